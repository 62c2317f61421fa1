// The scratch directory of a fuzz target: one per process under $TMPDIR (scripts/fuzz.sh points
// it into the build directory), made on first use and removed at exit; and writing inputs there.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace imghist::fuzz {

inline const std::filesystem::path& scratch_dir() {
    static const std::filesystem::path dir = [] {
        std::string pattern = (std::filesystem::temp_directory_path() / "imghist-fuzz-XXXXXX").string();
        if (!mkdtemp(pattern.data())) std::abort();
        return std::filesystem::path(pattern);
    }();
    return dir;
}

// Makes the directory before atexit() so that it still exists when the handler removes it.
inline void remove_scratch_dir_at_exit() {
    scratch_dir();
    std::atexit([] { std::filesystem::remove_all(scratch_dir()); });
}

// Writes `bytes` to `path`, replacing it; a file that cannot be written stops the run.
inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) std::abort();
}

}  // namespace imghist::fuzz
