#include "walk_rule.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "imghist/io.hpp"
#include "io/reader_internal.hpp"

namespace imghist::cli {

namespace {

// Files written beside images that no image reader reads: editors' sidecars (XMP, RawTherapee,
// DxO, Capture One, Apple's edits), notes, metadata and checksums. Listed in docs/cli.md.
constexpr std::array<std::string_view, 24> kLeftOut = {
    "aae", "cop", "cos", "csv", "db",  "dop",  "html", "ini",    "json", "log", "md",  "md5",
    "on1", "pdf", "pp3", "sha1", "sha256", "toml", "tsv", "txt", "xml", "xmp", "yaml", "yml"};

bool contains(const std::vector<std::string>& sorted, const std::string& ext) {
    return std::binary_search(sorted.begin(), sorted.end(), ext);
}

// What the kinds of file a walk never reads (io::image_extensions) are, for the reason.
std::string kind_of_reader(const std::string& reader) {
    if (reader == "raw") return "camera raw";
    if (reader == "ffmpeg") return "video";
    if (reader == "openvdb") return "a volume";
    return "OpenImageIO's " + reader + " format";
}

std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

WalkDecision walk_decision(const std::filesystem::path& file, bool untrusted_readers) {
    std::string ext = file.extension().string();
    if (ext.size() < 2)
        return {WalkDecision::not_read, "no file extension: a folder walk takes images by their extension (name the "
                                        "file itself to have its content read)"};
    ext.erase(0, 1);
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (contains(io::image_extensions(untrusted_readers), ext)) return {WalkDecision::read, {}};
    if (std::find(kLeftOut.begin(), kLeftOut.end(), ext) != kLeftOut.end()) return {WalkDecision::left_out, {}};
    if (contains(io::image_extensions(true), ext))
        return {WalkDecision::not_read, upper(ext) + " needs --untrusted-readers"};
    for (const auto& [known, reader] : io::reading::known_reader_extensions())
        if (known == ext)
            return {WalkDecision::not_read, upper(ext) + " is " + kind_of_reader(reader) + ", which a folder walk does not read"};
    return {WalkDecision::not_read,
            "." + ext + " is not an image extension (name the file itself to have its content read)"};
}

}  // namespace imghist::cli
