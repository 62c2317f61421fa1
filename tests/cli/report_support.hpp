// What the report tests (test_report*.cpp) share: their fixture, PNG files written with
// OpenImageIO, the comparison of a JSON "histograms" object with a library Result, and the
// lines of a text.
#pragma once

#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "imghist/imghist.hpp"

namespace imghist::cli_test {

class ReportTest : public ScratchDirTest {};

inline void write_png(const std::string& file, const ImageView& v) {
    namespace OIIO = OIIO_NAMESPACE;
    const auto& fi = v.info();
    OIIO::ImageSpec spec(int(v.width), int(v.height), fi.channels,
                         fi.sample == SampleType::u16 ? OIIO::TypeDesc::UINT16 : OIIO::TypeDesc::UINT8);
    if (fi.channels == 4) spec.alpha_channel = 3;
    spec.attribute("oiio:UnassociatedAlpha", 1);
    auto out = OIIO::ImageOutput::create("png");
    ASSERT_TRUE(out && out->open(file, spec)) << OIIO::geterror();
    ASSERT_TRUE(out->write_image(spec.format, v.data, OIIO::AutoStride, OIIO::stride_t(v.stride_bytes)));
    ASSERT_TRUE(out->close());
}

// The JSON histograms equal the library's, channel by channel.
inline void expect_histograms(const nlohmann::json& h, const Result& want, const std::string& what) {
    ASSERT_TRUE(h.is_object()) << what;
    EXPECT_EQ(h.size(), want.channels.size()) << what;
    for (const auto& c : want.channels) {
        const std::string name(channel_name(c.channel));
        ASSERT_TRUE(h.contains(name)) << what << ": no " << name;
        EXPECT_EQ(h[name]["counts"].get<std::vector<std::uint64_t>>(), c.counts) << what << " " << name;
        EXPECT_EQ(h[name]["nan"].get<std::uint64_t>(), c.nan) << what << " " << name;
        EXPECT_EQ(h[name]["below"].get<std::uint64_t>(), c.below) << what << " " << name;
        EXPECT_EQ(h[name]["above"].get<std::uint64_t>(), c.above) << what << " " << name;
    }
}

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

}  // namespace imghist::cli_test
