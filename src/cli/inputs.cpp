#include "inputs.hpp"

#include <climits>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "imghist/io.hpp"
#include "option_file.hpp"
#include "walk_rule.hpp"

namespace imghist::cli {

namespace fs = std::filesystem;

namespace {

bool hidden(const fs::path& p) {
    const std::string name = p.filename().string();
    return !name.empty() && name[0] == '.' && name != "." && name != "..";
}

// Adds the files under dir that the walk reads to `found`, and those it does not read to
// `failed` with the reason (walk_rule.hpp; hidden names skipped, symlinked directories not
// followed); a directory that cannot be listed is an error naming it and the system's reason.
void walk_directory(const fs::path& dir, bool untrusted_readers, std::vector<std::string>& found,
                    std::vector<FileOutcome>& failed) {
    std::error_code ec;
    std::vector<fs::path> subdirectories;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const fs::directory_entry& entry = *it;
        if (hidden(entry.path())) continue;
        std::error_code fe;
        if (fs::is_directory(entry.symlink_status(fe))) {
            subdirectories.push_back(entry.path());
            continue;
        }
        if (entry.is_directory(fe)) continue;  // a symbolic link to a directory: not followed
        // Anything else is decided by its name: a FIFO or a broken link with an image extension
        // goes to the reader, which says what it is.
        const WalkDecision decision = walk_decision(entry.path(), untrusted_readers);
        if (decision.kind == WalkDecision::read) found.push_back(entry.path().string());
        else if (decision.kind == WalkDecision::not_read)
            failed.push_back({entry.path().string(), std::nullopt, {}, decision.reason});
    }
    if (ec) failed.push_back({dir.string(), std::nullopt, {}, "cannot read directory: " + ec.message()});
    std::sort(subdirectories.begin(), subdirectories.end());
    for (const fs::path& sub : subdirectories) walk_directory(sub, untrusted_readers, found, failed);
}

void add_input(Inputs& in, const std::string& arg, Origin origin, bool untrusted_readers, bool search_directories) {
    std::error_code ec;
    if (!search_directories || !fs::is_directory(arg, ec)) {
        in.files.push_back(arg);
        in.origins.push_back(origin);
        return;
    }
    std::vector<std::string> found;
    std::vector<FileOutcome> failed;
    in.walked = true;
    walk_directory(arg, untrusted_readers, found, failed);
    std::sort(found.begin(), found.end());
    std::sort(failed.begin(), failed.end(), [](const FileOutcome& a, const FileOutcome& b) { return a.file < b.file; });
    if (found.empty() && failed.empty()) failed.push_back({arg, std::nullopt, {}, "directory holds no image files"});
    in.failed.insert(in.failed.end(), std::make_move_iterator(failed.begin()), std::make_move_iterator(failed.end()));
    in.files.insert(in.files.end(), found.begin(), found.end());
    in.origins.insert(in.origins.end(), found.size(), origin);
}

// The longest path the system opens is PATH_MAX - 1 bytes: a longer line is not a path, and
// bounding it keeps a list without newlines (a binary file, /dev/zero on stdin) from growing.
constexpr std::size_t kMaxPathLine = PATH_MAX;

// Takes each non-empty line of `list` as an argument.
void add_list(Inputs& in, OptionFile& list, const std::string& name, bool untrusted_readers, bool search_directories) {
    in.lists.push_back(name);
    Origin origin{std::uint32_t(in.lists.size()), 0};
    std::string line;
    for (;;) {
        try {
            if (!list.next_line(line, kMaxPathLine)) break;
        } catch (const OptionFileError& e) {
            throw std::runtime_error("the list of paths " + name + ": " + e.what() + ": not a list of paths, one a line");
        }
        ++origin.line;
        if (line.empty()) continue;
        if (line.find('\0') != std::string::npos) {
            // A path ends at its first NUL for the system: reading it would read another file.
            in.failed.push_back({line, std::nullopt, {}, "a path cannot hold a NUL byte (" + in.origin_text(origin) + ")"});
            continue;
        }
        const std::size_t failures = in.failed.size();
        add_input(in, line, origin, untrusted_readers, search_directories);
        for (std::size_t k = failures; k < in.failed.size(); ++k) in.failed[k].error += " (" + in.origin_text(origin) + ")";
    }
}

}  // namespace

std::string Inputs::origin_text(Origin o) const {
    return o.list == 0 ? std::string() : "line " + std::to_string(o.line) + " of " + lists[o.list - 1];
}

std::string Inputs::origin(std::size_t file) const { return origin_text(origins[file]); }

Inputs expand_inputs(const std::vector<std::string>& args, const std::string& files_from, bool untrusted_readers,
                     bool search_directories) {
    Inputs in;
    bool stdin_read = false;
    const auto read_stdin = [&] {
        if (stdin_read) throw std::runtime_error("the list of paths on stdin can be read only once ('-' or --files-from -)");
        stdin_read = true;
        OptionFile list = OptionFile::standard_input();
        add_list(in, list, "stdin", untrusted_readers, search_directories);
    };
    for (const std::string& arg : args) {
        if (arg == "-") read_stdin();
        else add_input(in, arg, {}, untrusted_readers, search_directories);
    }
    if (files_from == "-") {
        read_stdin();
    } else if (!files_from.empty()) {
        std::optional<OptionFile> list;
        try {
            list.emplace(files_from, OptionFileKinds::regular_or_pipe);
        } catch (const OptionFileError& e) {
            throw std::runtime_error("--files-from " + files_from + ": " + e.what());
        }
        add_list(in, *list, files_from, untrusted_readers, search_directories);
    }
    return in;
}

}  // namespace imghist::cli
