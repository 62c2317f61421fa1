// What a directory walk does with each file it finds (docs/cli.md, "Inputs"): reads it, leaves
// it out as an obvious non-image (a sidecar, notes, metadata), or lists it with the reason it is
// not read, so a walk never drops a file silently.
#pragma once

#include <filesystem>
#include <string>

namespace imghist::cli {

struct WalkDecision {
    enum Kind { read, left_out, not_read } kind;
    std::string reason;  // for not_read: one line, without the file name
};

// By the file's extension alone (nothing is opened): the readers' extensions are read, with
// `untrusted_readers` those of every reader a walk uses.
WalkDecision walk_decision(const std::filesystem::path& file, bool untrusted_readers);

}  // namespace imghist::cli
