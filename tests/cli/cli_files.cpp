#include "cli_files.hpp"

#include <OpenImageIO/imageio.h>

#include <fstream>

#include "oiio_sample_type.hpp"

namespace imghist::cli_test {

namespace OIIO = OIIO_NAMESPACE;

void write_oiio(const std::string& file, const ImageView& v, const std::map<std::string, std::string>& attrs) {
    const auto& fi = v.info();
    OIIO::ImageSpec spec(int(v.width), int(v.height), fi.channels, oiio_type(fi.sample));
    if (fi.channels == 4) spec.alpha_channel = 3;
    // Write the samples as given: no un-premultiplication on the way out.
    spec.attribute("oiio:UnassociatedAlpha", 1);
    for (const auto& [k, val] : attrs) spec.attribute(k, val);
    auto out = OIIO::ImageOutput::create(file);
    ASSERT_TRUE(out) << OIIO::geterror();
    ASSERT_TRUE(out->open(file, spec)) << out->geterror();
    ASSERT_TRUE(out->write_image(oiio_type(fi.sample), v.data, OIIO::AutoStride, OIIO::stride_t(v.stride_bytes)))
        << out->geterror();
    ASSERT_TRUE(out->close()) << out->geterror();
}

void write_bytes(const std::string& file, const std::string& bytes) {
    std::ofstream f(file, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
}

Result reference(const ImageView& v, const Request& req) { return create_engine("reference")->compute(v, req); }

const nlohmann::json* find_result(const nlohmann::json& doc, const std::string& file) {
    for (const auto& r : doc["results"])
        if (r["file"] == file) return &r;
    return nullptr;
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
    std::vector<nlohmann::json> lines;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
        lines.push_back(nlohmann::json::parse(text.substr(start, end - start)));
    EXPECT_EQ(start, text.size()) << "the output does not end with a newline";
    return lines;
}

}  // namespace imghist::cli_test
