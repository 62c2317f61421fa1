// The command's inputs: files as named, directories expanded to the image files under them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "output.hpp"

namespace imghist::cli {

// Where an input was named, so its error can say: on the command line (list 0), or on a line of
// a list of paths (list k = Inputs::lists[k - 1]).
struct Origin {
    std::uint32_t list = 0;
    std::uint64_t line = 0;
};

// Expands directories; an input that yields nothing becomes an error outcome right away.
struct Inputs {
    std::vector<std::string> files;
    std::vector<Origin> origins;      // one per file
    std::vector<std::string> lists;   // the lists read: "stdin" or the --files-from path
    // Directories that could not be walked or hold no image, and files a walk does not read.
    std::vector<FileOutcome> failed;
    bool walked = false;              // a directory was searched
    // "line 7 of stdin" for a file named by a list, else "".
    std::string origin(std::size_t file) const;
    std::string origin_text(Origin o) const;
};

// Directories are searched recursively (hidden names skipped, symlinked directories not
// followed), each file found read, left out or failed by walk_rule.hpp, unless
// `search_directories` is false: then a directory stays an input, which the reader refuses as one. An argument "-" and `files_from` ("-" =
// stdin, empty = none) are lists of paths, one a line (empty lines skipped), taken like
// arguments; a list that cannot be read, or stdin read twice, throws std::runtime_error.
Inputs expand_inputs(const std::vector<std::string>& args, const std::string& files_from, bool untrusted_readers,
                     bool search_directories = true);

}  // namespace imghist::cli
