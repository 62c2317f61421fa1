#include "gpu/tuning.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>

#include "imghist/error.hpp"

namespace imghist::gpu {
namespace {

bool contains_any_case(std::string_view text, std::string_view part) {
    const auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
    return part.empty() || std::search(text.begin(), text.end(), part.begin(), part.end(),
                                          [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

// What a number under `r` may be, for the message that rejects one.
std::string describe(const Range& r, std::uint64_t max) {
    std::string rule = r.power_of_two ? "a power of two"
                       : r.multiple > 1 ? "a multiple of " + std::to_string(r.multiple)
                                        : "a number";
    const bool has_min = r.min > (r.power_of_two ? 1u : 0u);
    const bool has_max = max < std::numeric_limits<std::uint64_t>::max();
    if (has_min && has_max) rule += " from " + std::to_string(r.min) + " to " + std::to_string(max);
    else if (has_max) rule += " up to " + std::to_string(max);
    else if (has_min) rule += " of at least " + std::to_string(r.min);
    if (r.automatic) rule += ", or auto";
    return rule;
}

}  // namespace

bool DeviceMatch::matches(const DeviceIdentity& device) const {
    if (type == Type::gpu && !device.gpu) return false;
    if (type == Type::not_gpu && device.gpu) return false;
    return contains_any_case(device.vendor, vendor) && contains_any_case(device.name, name);
}

std::string DeviceMatch::describe() const {
    std::string s = type == Type::gpu ? "GPUs" : type == Type::not_gpu ? "devices that are not GPUs" : "every device";
    if (*vendor != '\0') s += ", vendor contains '" + std::string(vendor) + "'";
    if (*name != '\0') s += ", name contains '" + std::string(name) + "'";
    return s;
}

std::uint64_t Knob::number() const {
    const bool digits = !value.empty() && value.size() <= 18 &&
                        std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) throw InvalidArgument(source + ": '" + key + "' needs a number, got '" + value + "'");
    return std::stoull(value);
}

void Knob::reject(const std::string& rule) const { throw InvalidArgument(source + ": " + key + " is " + rule); }

std::vector<Knob> split_knobs(const std::string& source, std::string_view text) {
    std::vector<Knob> knobs;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find(',', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string item(text.substr(pos, end - pos));
        pos = end + 1;
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos) throw InvalidArgument(source + ": '" + item + "' is not key=value");
        knobs.push_back({source, item.substr(0, eq), item.substr(eq + 1)});
    }
    return knobs;
}

void unknown_key(const Knob& knob, const std::vector<const char*>& keys) {
    std::string list;
    for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
    throw InvalidArgument(knob.source + ": unknown key '" + knob.key + "' (keys: " + list + ")");
}

std::int64_t read_number(const Knob& knob, const Range& range, std::uint64_t type_max) {
    if (range.automatic && knob.is_auto()) return *range.automatic;
    const std::uint64_t n = knob.number();
    // A clamping knob takes its automatic value as a number too; elsewhere the number that stands
    // for "auto" inside the struct (wg=0) is no setting a user meant, so only `auto` spells it.
    if (range.automatic && *range.automatic >= 0 && n == std::uint64_t(*range.automatic)) {
        if (range.clamp) return *range.automatic;
        knob.reject(describe(range, std::min(range.max, type_max)) + " (write " + knob.key + "=auto for the default)");
    }
    const std::uint64_t max = std::min(range.max, type_max);
    if (range.clamp) return std::int64_t(std::clamp(n, range.min, max) / range.multiple * range.multiple);
    if (n < range.min || n > max || n % range.multiple != 0 || (range.power_of_two && !std::has_single_bit(n)))
        knob.reject(describe(range, max));
    return std::int64_t(n);
}

std::string write_number(std::int64_t value, const Range& range) {
    return range.automatic && value == *range.automatic ? "auto" : std::to_string(value);
}

const Family* family_for(const std::vector<Family>& families, const DeviceIdentity& device) {
    for (const Family& f : families)
        if (f.match.matches(device)) return &f;
    return nullptr;
}

std::string family_source(const char* variable, const Family& family) {
    return std::string(variable) + " (family '" + family.name + "')";
}

const char* environment(const char* variable) { return std::getenv(variable); }

}  // namespace imghist::gpu
