#include "core/device_select.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace imghist {

namespace {
std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}
}  // namespace

std::size_t select_device(std::string_view backend, const std::vector<DeviceInfo>& devices,
                          std::string selector, const char* env_variable,
                          const std::vector<int>& preference) {
    const std::string name(backend);
    // One line: the command line prints messages one a line.
    std::string listing;
    for (std::size_t i = 0; i < devices.size(); ++i)
        listing += std::string(i ? "; " : " ") + std::to_string(i) + (devices[i].id.empty() || devices[i].id == std::to_string(i) ? "" : " (" + devices[i].id + ")") +
                   ": " + devices[i].name + (devices[i].available ? "" : " [unusable: " + devices[i].note + "]");
    if (devices.empty()) listing = " none";

    std::string from;
    if (selector.empty() && env_variable != nullptr) {
        if (const char* env = std::getenv(env_variable); env != nullptr && *env != '\0') {
            selector = env;
            from = std::string(" (from ") + env_variable + ")";
        }
    }
    if (selector.empty() || selector == "auto") {
        std::size_t best = devices.size();
        auto rank = [&](std::size_t i) {
            return i < preference.size() ? preference[i] : (devices[i].is_gpu ? 0 : 1);
        };
        for (std::size_t i = 0; i < devices.size(); ++i)
            if (devices[i].available && (best == devices.size() || rank(i) < rank(best))) best = i;
        if (best == devices.size()) throw BackendUnavailable(name + ": no usable device; devices:" + listing);
        return best;
    }
    std::size_t match = devices.size();
    if (all_digits(selector) && std::stoul(selector) < devices.size()) {
        match = std::stoul(selector);
    } else {
        for (std::size_t i = 0; i < devices.size() && match == devices.size(); ++i)
            if (devices[i].id == selector) match = i;
        const std::string want = lower(selector);
        for (std::size_t i = 0; i < devices.size() && match == devices.size(); ++i)
            if (lower(devices[i].name).find(want) != std::string::npos) match = i;
        for (std::size_t i = 0; i < devices.size(); ++i)  // prefer a usable device among name matches
            if (match < devices.size() && !devices[match].available && devices[i].available &&
                devices[i].id != selector && lower(devices[i].name).find(want) != std::string::npos)
                match = i;
    }
    if (match == devices.size())
        throw BackendUnavailable(name + ": no device matches '" + selector + "'" + from + "; devices:" + listing);
    if (!devices[match].available)
        throw BackendUnavailable(name + ": device " + std::to_string(match) + " (" + devices[match].name +
                                 ") is not usable: " + devices[match].note);
    return match;
}

}  // namespace imghist
