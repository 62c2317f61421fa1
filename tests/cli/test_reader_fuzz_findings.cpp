// Files the reader fuzz target (fuzz/fuzz_reader.cpp) found: read_image() must turn them into
// a ReadError that names the decoder, like any other bad file.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "reader.hpp"

namespace fs = std::filesystem;

TEST(ReaderFuzzFindings, DecoderExceptionIsAReadError) {
    const fs::path file = fs::path(IMGHIST_SOURCE_DIR) / "tests/data/repro/fuzz_gif_seek_subimage_length_error.gif";
    ASSERT_TRUE(fs::is_regular_file(file)) << file;
    try {
        (void)imghist::cli::read_image(file.string(), {});
        FAIL() << "a GIF whose decoder throws was read";
    } catch (const imghist::cli::ReadError& e) {
        EXPECT_NE(std::string(e.what()).find("gif"), std::string::npos) << e.what();
    } catch (const std::exception& e) {
        FAIL() << "read_image let a decoder exception through: " << e.what();
    }
}
