// libFuzzer target of the file reader: the bytes become a file that imghist::io::read_image()
// reads with the command's default options, as `imghist FILE` would (trusted readers only). It must return a view
// that lies inside the pixels it owns (counted here by `reference`, under ASan), or throw
// imghist::io::ReadError; any other exception, a crash, or a sanitizer report is a finding.
//
// Input: "EXT\n" then the file's bytes, where EXT (up to 8 letters or digits) is the file
// name's extension, so that the fuzzer reaches each reader by extension as well as by content
// (scripts/fuzz.sh seeds the corpus this way). Without such a prefix the file has no extension.
// OpenImageIO itself is not instrumented: ASan sees its heap use, not its stack or globals.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "imghist/imghist.hpp"
#include "imghist/io.hpp"
#include "scratch.hpp"

namespace {

// The file's extension from the input's "EXT\n" prefix, or "" with the whole input as file.
std::string take_extension(const std::uint8_t*& data, std::size_t& size) {
    constexpr std::size_t kMaxExtension = 8;
    for (std::size_t i = 0; i < size && i <= kMaxExtension; ++i) {
        if (data[i] == '\n') {
            std::string ext(reinterpret_cast<const char*>(data), i);
            for (char ch : ext)
                if (!std::isalnum(static_cast<unsigned char>(ch))) return "";
            data += i + 1;
            size -= i + 1;
            return ext;
        }
    }
    return "";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    imghist::io::configure_reader_threads(1);
    imghist::fuzz::remove_scratch_dir_at_exit();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto reference = imghist::create_engine("reference");
    const std::string ext = take_extension(data, size);
    const std::filesystem::path path = imghist::fuzz::scratch_dir() / (ext.empty() ? "input" : "input." + ext);
    imghist::fuzz::write_file(path, {reinterpret_cast<const char*>(data), size});
    imghist::io::ReadOptions options;
    options.camera_raw = true;  // LibRaw too, as the command reads
    // The command's defaults, but a smaller pixel limit: its 2^28 pixels of RGBA float are
    // 4 GiB, past libFuzzer's memory limit; the limit is checked from the header either way.
    options.max_pixels = std::uint64_t(1) << 22;
    try {
        const imghist::io::LoadedImage image = imghist::io::read_image(path.string(), options);
        (void)reference->compute(image.view);  // reads every byte the view claims
    } catch (const imghist::io::ReadError&) {
    }
    std::filesystem::remove(path);
    return 0;
}
