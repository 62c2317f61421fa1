#include "inputs.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "reader.hpp"

namespace imghist::cli {

namespace fs = std::filesystem;

namespace {

bool hidden(const fs::path& p) {
    const std::string name = p.filename().string();
    return !name.empty() && name[0] == '.' && name != "." && name != "..";
}

bool has_image_extension(const fs::path& p, bool untrusted_readers) {
    std::string ext = p.extension().string();
    if (ext.size() < 2) return false;
    ext.erase(0, 1);
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    const auto& list = image_extensions(untrusted_readers);
    return std::binary_search(list.begin(), list.end(), ext);
}

// Adds the image files under dir to `found` (hidden names skipped, symlinked directories not
// followed); a directory that cannot be listed is an error naming it and the system's reason.
void walk_directory(const fs::path& dir, bool untrusted_readers, std::vector<std::string>& found,
                    std::vector<FileOutcome>& failed) {
    std::error_code ec;
    std::vector<fs::path> subdirectories;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const fs::directory_entry& entry = *it;
        if (hidden(entry.path())) continue;
        std::error_code fe;
        if (fs::is_directory(entry.symlink_status(fe))) subdirectories.push_back(entry.path());
        else if (entry.is_regular_file(fe) && has_image_extension(entry.path(), untrusted_readers)) found.push_back(entry.path().string());
    }
    if (ec) failed.push_back({dir.string(), std::nullopt, {}, "cannot read directory: " + ec.message()});
    std::sort(subdirectories.begin(), subdirectories.end());
    for (const fs::path& sub : subdirectories) walk_directory(sub, untrusted_readers, found, failed);
}

}  // namespace

Inputs expand_inputs(const std::vector<std::string>& args, bool untrusted_readers, bool search_directories) {
    Inputs in;
    for (const std::string& arg : args) {
        std::error_code ec;
        if (!search_directories || !fs::is_directory(arg, ec)) {
            in.files.push_back(arg);
            continue;
        }
        std::vector<std::string> found;
        const std::size_t failures = in.failed.size();
        walk_directory(arg, untrusted_readers, found, in.failed);
        std::sort(found.begin(), found.end());
        if (found.empty() && in.failed.size() == failures)
            in.failed.push_back({arg, std::nullopt, {}, "directory holds no image files"});
        in.files.insert(in.files.end(), found.begin(), found.end());
    }
    return in;
}

}  // namespace imghist::cli
