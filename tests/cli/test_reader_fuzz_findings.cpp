// Files the reader fuzz target (fuzz/fuzz_reader.cpp) found: imghist::io::read_image() must turn them into
// a imghist::io::ReadError, like any other bad file, whose message says what was wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <string>

#include "imghist/io.hpp"

namespace fs = std::filesystem;

namespace {

// Reads a reproducer of tests/data/repro/ and expects a imghist::io::ReadError containing every one of `says`.
void expect_read_error(const std::string& name, std::initializer_list<const char*> says,
                       const imghist::io::ReadOptions& options = {}) {
    const fs::path file = fs::path(IMGHIST_SOURCE_DIR) / "tests/data/repro" / name;
    ASSERT_TRUE(fs::is_regular_file(file)) << file;
    try {
        (void)imghist::io::read_image(file.string(), options);
        ADD_FAILURE() << name << " was read";
    } catch (const imghist::io::ReadError& e) {
        for (const char* part : says) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "imghist::io::read_image let another exception through: " << e.what();
    }
}

}  // namespace

// A GIF header made OpenImageIO's GIFInput::seek_subimage throw std::length_error.
TEST(ReaderFuzzFindings, DecoderExceptionIsAReadError) {
    expect_read_error("fuzz_gif_seek_subimage_length_error.gif", {"gif"});
}

// A 262-byte PNG whose tEXt chunk claims 1.8 GB: libpng allocated (and touched) 2 GB before it
// found the end of the file. The chunk is refused from its header, naming the chunk.
TEST(ReaderFuzzFindings, PngChunkLongerThanTheFileIsRefusedFromItsHeader) {
    expect_read_error("fuzz_png_chunk_longer_than_file.png", {"chunk 'tEXt'", "left in the file"});
}

// A 36-byte GIF whose logical screen is 16722 x 29252: OpenImageIO's GIF reader allocated the
// 2 GB canvas as it opened the file. The screen size is checked against --max-pixels (here the
// command's default, 16384 x 16384) from the header, before the reader sees the file.
TEST(ReaderFuzzFindings, GifScreenBeyondMaxPixelsIsRefusedFromItsHeader) {
    imghist::io::ReadOptions options;
    options.max_pixels = std::uint64_t(16384) * 16384;
    expect_read_error("fuzz_gif_screen_canvas_2gb.gif", {"16722 x 29252", "exceeds the limit"}, options);
}

// A 558-byte OpenEXR file whose header declares 245,761 scanline chunks, none of them present:
// OpenEXR rebuilt the missing offset table chunk by chunk (minutes under the fuzzer's sanitizers).
// Refused from the header, since a complete file has at least 16 bytes per chunk.
TEST(ReaderFuzzFindings, ExrWithFarMoreChunksThanBytesIsRefusedFromItsHeader) {
    expect_read_error("fuzz_exr_chunks_missing_minutes.exr", {"245761 chunks", "558 bytes", "truncated"});
}

