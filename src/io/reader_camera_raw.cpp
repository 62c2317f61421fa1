// Camera raw files built on TIFF (DNG, CR2, NEF, ARW, PEF, ...) start like any TIFF, and
// OpenImageIO's TIFF reader gives their first image: a small preview, or the sensor's mosaic
// counted as gray. Neither is what a raw histogram counts, so such files are recognised from
// their first directory (read here, 12 or 20 bytes an entry) before any reader sees them: LibRaw
// reads them where imghist is built with it (reader_libraw.cpp), and they are refused otherwise.
#include <algorithm>
#include <fstream>
#include <optional>
#include <vector>

#include "reader_internal.hpp"

namespace imghist::io::reading {

namespace {

constexpr std::uint16_t kNewSubfileType = 254, kOldSubfileType = 255, kPhotometric = 262, kDngVersion = 50706;
constexpr std::uint64_t kPhotometricCfa = 32803, kPhotometricLinearRaw = 34892;
constexpr std::uint64_t kMostEntriesRead = 4096;  // a real first directory has a few dozen

// An unsigned integer of `n` bytes at `p`, in the file's byte order.
std::uint64_t number(const unsigned char* p, int n, bool little_endian) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t(p[little_endian ? i : n - 1 - i]) << (8 * i);
    return v;
}

// The first integer of an entry's value field (SHORT or LONG, as TIFF stores them), or nullopt.
std::optional<std::uint64_t> entry_value(const unsigned char* entry, bool big_tiff, bool little_endian) {
    const std::uint64_t type = number(entry + 2, 2, little_endian);
    const unsigned char* value = entry + (big_tiff ? 12 : 8);
    if (type == 3) return number(value, 2, little_endian);  // SHORT
    if (type == 4) return number(value, 4, little_endian);  // LONG
    return std::nullopt;
}

// Why the first directory marks the file as camera raw; empty for an ordinary TIFF.
std::vector<std::string> first_directory_marks(std::ifstream& file, const unsigned char* head, bool big_tiff,
                                             bool little_endian) {
    const std::uint64_t directory = big_tiff ? number(head + 8, 8, little_endian) : number(head + 4, 4, little_endian);
    const int count_bytes = big_tiff ? 8 : 2, entry_bytes = big_tiff ? 20 : 12;
    unsigned char count_field[8] = {};
    if (!file.seekg(std::streamoff(directory)) || !file.read(reinterpret_cast<char*>(count_field), count_bytes))
        return {};  // no directory: the TIFF reader refuses the file itself
    const std::uint64_t entries = std::min(number(count_field, count_bytes, little_endian), kMostEntriesRead);
    std::vector<unsigned char> table(entries * std::uint64_t(entry_bytes));
    file.read(reinterpret_cast<char*>(table.data()), std::streamsize(table.size()));
    const std::uint64_t complete = std::uint64_t(file.gcount()) / std::uint64_t(entry_bytes);
    std::vector<std::string> marks;
    for (std::uint64_t i = 0; i < complete; ++i) {
        const unsigned char* entry = table.data() + i * std::uint64_t(entry_bytes);
        const std::uint64_t tag = number(entry, 2, little_endian);
        const std::optional<std::uint64_t> value = entry_value(entry, big_tiff, little_endian);
        if (tag == kDngVersion) marks.push_back("DNG tags");
        if (tag == kPhotometric && value == kPhotometricCfa) marks.push_back("a colour filter array mosaic");
        if (tag == kPhotometric && value == kPhotometricLinearRaw) marks.push_back("linear raw sensor data");
        if ((tag == kNewSubfileType && value && (*value & 1)) || (tag == kOldSubfileType && value == 2u))
            marks.push_back("its first image is a reduced-resolution preview");
    }
    return marks;
}

}  // namespace

std::vector<std::string> camera_raw_marks(const std::string& path, const FileHead& head) {
    if (head.count < 16) return {};  // too short for a directory: the TIFF reader refuses it
    const bool little_endian = head.bytes[0] == 'I', big_tiff = head.bytes[2] == '+' || head.bytes[3] == '+';
    std::ifstream file(path, std::ios::binary);
    std::vector<std::string> marks = first_directory_marks(file, head.bytes, big_tiff, little_endian);
    if (!big_tiff && head.bytes[8] == 'C' && head.bytes[9] == 'R') marks.insert(marks.begin(), "a Canon CR2 signature");
    return marks;
}

void refuse_camera_raw(const std::vector<std::string>& marks) {
    std::string why;
    for (const std::string& mark : marks) why += (why.empty() ? "" : ", ") + mark;
    throw ReadError("camera raw file (" + why +
                    "): this imghist is built without LibRaw, and reading it as TIFF would count its preview or "
                    "its mosaic as gray; convert it with a raw converter (to 16-bit TIFF, for example) first");
}

}  // namespace imghist::io::reading
