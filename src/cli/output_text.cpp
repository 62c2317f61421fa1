#include "output_text.hpp"

#include <charconv>
#include <cstdio>

#include "output.hpp"

namespace imghist::cli {

std::string number(double v) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string percent(double share) {
    if (share == 0) return "0%";
    if (share < 0.0001) return "<0.01%";
    return fixed(share * 100.0, 2) + "%";
}

std::string thousands(std::uint64_t v) {
    std::string s = std::to_string(v), out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i && (s.size() - i) % 3 == 0) out += ',';
        out += s[i];
    }
    return out;
}

std::string describe_layout(const BinLayout& layout) {
    std::string s = std::to_string(layout.bins) + (layout.edges.empty() ? "" : " edge") + " bins over [" +
                    number(layout.lo) + ", " +
                    number(layout.hi) + (layout.closed_top ? "]" : ")");
    if (layout.clamp) s += ", clamped";
    return s;
}

}  // namespace imghist::cli
