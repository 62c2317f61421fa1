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

// A 262-byte PNG whose tEXt chunk claims 1.8 GB: libpng allocated (and touched) 2 GB before it
// found the end of the file. The chunk is refused from its header, naming the chunk.
TEST(ReaderFuzzFindings, PngChunkLongerThanTheFileIsRefusedFromItsHeader) {
    const fs::path file = fs::path(IMGHIST_SOURCE_DIR) / "tests/data/repro/fuzz_png_chunk_longer_than_file.png";
    ASSERT_TRUE(fs::is_regular_file(file)) << file;
    try {
        (void)imghist::cli::read_image(file.string(), {});
        FAIL() << "a PNG whose chunk claims more bytes than the file holds was read";
    } catch (const imghist::cli::ReadError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("chunk 'tEXt'"), std::string::npos) << message;
        EXPECT_NE(message.find("left in the file"), std::string::npos) << message;
    }
}
