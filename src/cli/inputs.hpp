// The command's inputs: files as named, directories expanded to the image files under them.
#pragma once

#include <string>
#include <vector>

#include "output.hpp"

namespace imghist::cli {

// Expands directories; an input that yields nothing becomes an error outcome right away.
struct Inputs {
    std::vector<std::string> files;
    std::vector<FileOutcome> failed;  // directories that could not be walked or hold no image
};

// Directories are searched recursively for files with an image extension (hidden names skipped,
// symlinked directories not followed) unless `search_directories` is false: then a directory
// stays an input, which the reader refuses as one.
Inputs expand_inputs(const std::vector<std::string>& args, bool untrusted_readers, bool search_directories = true);

}  // namespace imghist::cli
