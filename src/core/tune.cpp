#include "core/tune.hpp"

#include <algorithm>
#include <cstdlib>

#include "imghist/error.hpp"

namespace imghist {

std::uint64_t TuneKnob::number() const {
    const bool digits = !value.empty() && value.size() <= 18 &&
                        std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) throw InvalidArgument(variable + ": '" + key + "' needs a number, got '" + value + "'");
    return std::stoull(value);
}

void TuneKnob::unknown(const char* keys) const {
    throw InvalidArgument(variable + ": unknown key '" + key + "' (keys: " + keys + ")");
}

std::vector<TuneKnob> tune_knobs(const char* variable) {
    std::vector<TuneKnob> knobs;
    const char* env = std::getenv(variable);
    if (env == nullptr) return knobs;
    const std::string s = env;
    std::size_t pos = 0;
    while (pos <= s.size()) {
        std::size_t end = s.find(',', pos);
        if (end == std::string::npos) end = s.size();
        const std::string item = s.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos)
            throw InvalidArgument(std::string(variable) + ": '" + item + "' is not key=value");
        knobs.push_back({variable, item.substr(0, eq), item.substr(eq + 1)});
    }
    return knobs;
}

}  // namespace imghist
