// What the reader tests (test_reader*.cpp) share: their fixture (the command run for JSON, the
// reader's refusal of a file), the repro files, files written with OpenImageIO under given
// channel names, and the samples of a loaded image.
#pragma once

#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>

#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "imghist/io.hpp"

namespace imghist::reader_test {

namespace fs = std::filesystem;
using io::LoadedImage;
using io::ReadError;
using io::ReadOptions;
using io::read_image;
using cli_test::CommandRun;

inline const fs::path kRepro = fs::path(IMGHIST_SOURCE_DIR) / "tests/data/repro";
inline const fs::path kSamplePng = fs::path(IMGHIST_SOURCE_DIR) / "examples/sample.png";

class ReaderTest : public cli_test::ScratchDirTest {
protected:
    // Runs imghist --format json ARGS; status 124 when it ran past 30 s (it blocked on a file).
    static CommandRun run_json(const std::vector<std::string>& args) {
        std::vector<std::string> all = {"--format", "json"};
        all.insert(all.end(), args.begin(), args.end());
        return run(all, {.timeout_seconds = 30});
    }

    // The io::ReadError message, or "" when the file was read.
    static std::string refusal(const std::string& file, const io::ReadOptions& options = {}) {
        try {
            (void)io::read_image(file, options);
            return "";
        } catch (const io::ReadError& e) {
            return e.what();
        }
    }
};

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline bool has_note(const io::LoadedImage& image, const std::string& part) {
    for (const std::string& n : image.notes)
        if (contains(n, part)) return true;
    return false;
}

// The image, or nullopt after a test failure that names the io::ReadError.
inline std::optional<io::LoadedImage> read_or_fail(const std::string& file) {
    try {
        return io::read_image(file, {});
    } catch (const io::ReadError& e) {
        ADD_FAILURE() << e.what();
        return std::nullopt;
    }
}

template <typename T>
std::vector<T> samples_of(const io::LoadedImage& image) {
    const auto& fi = image.view.info();
    EXPECT_EQ(sizeof(T), std::size_t(fi.bytes_per_sample));
    const std::size_t n = std::size_t(image.view.width) * image.view.height * fi.channels;
    std::vector<T> out(n);
    const std::size_t row = std::size_t(image.view.width) * fi.channels;
    for (std::uint32_t y = 0; y < image.view.height; ++y)
        std::memcpy(out.data() + y * row, image.view.row(y),
                    row * sizeof(T));
    return out;
}

// Writes with OpenImageIO; `names` become the channel names.
inline void write_oiio(const std::string& file, int width, int height, const std::vector<std::string>& names,
                       OIIO_NAMESPACE::TypeDesc type, const void* data, int alpha_channel = -1,
                       const std::string& compression = "") {
    namespace OIIO = OIIO_NAMESPACE;
    OIIO::ImageSpec spec(width, height, int(names.size()), type);
    spec.channelnames = names;
    spec.alpha_channel = alpha_channel;
    spec.attribute("oiio:UnassociatedAlpha", 1);
    if (!compression.empty()) spec.attribute("compression", compression);
    auto out = OIIO::ImageOutput::create(file);
    ASSERT_TRUE(out) << OIIO::geterror();
    ASSERT_TRUE(out->open(file, spec)) << out->geterror();
    ASSERT_TRUE(out->write_image(type, data)) << out->geterror();
    ASSERT_TRUE(out->close());
}

}  // namespace imghist::reader_test
