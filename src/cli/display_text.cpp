// Names, messages and numbers as text: display_text() for terminals and the text formats, the
// UTF-8 form and hex bytes of a name for JSON (docs/cli.md, "Names"), the table's numbers.
#include <cstdio>
#include <string>
#include <string_view>

#include "output.hpp"

namespace imghist::cli {

namespace {

// Length of the valid UTF-8 sequence at s[i] (0 if the byte starts none), its code point in cp.
// Strict: no overlong forms, no surrogates, nothing above U+10FFFF.
std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t& cp) {
    const unsigned char lead = static_cast<unsigned char>(s[i]);
    const std::size_t n = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    cp = n == 1 ? lead : lead & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
        const unsigned char c = static_cast<unsigned char>(s[i + k]);
        if ((c >> 6) != 0x2) return 0;
        cp = (cp << 6) | (c & 0x3F);
    }
    static constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kSmallest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

// Valid characters a terminal or a text layout would still act on: C1 controls (U+009B is
// CSI), line and paragraph separators, and the bidirectional controls that reorder text.
bool is_invisible_control(char32_t cp) {
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x61C || cp == 0x200E || cp == 0x200F ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string hex_escape(char prefix, unsigned value, int digits) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\%c%0*x", prefix, digits, value);
    return buf;
}

}  // namespace

std::string utf8_or_replaced(std::string_view bytes) {
    std::string out;
    for (std::size_t i = 0; i < bytes.size();) {
        char32_t cp = 0;
        const std::size_t n = utf8_sequence(bytes, i, cp);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(bytes.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::string hex_bytes(std::string_view bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += kDigits[c >> 4];
        out += kDigits[c & 0xF];
    }
    return out;
}

std::string display_text(std::string_view bytes) {
    std::string out;
    for (std::size_t i = 0; i < bytes.size();) {
        const unsigned char c = static_cast<unsigned char>(bytes[i]);
        char32_t cp = 0;
        const std::size_t n = utf8_sequence(bytes, i, cp);
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c == '\t') out += "\\t";
        else if (n == 0 || c < 0x20 || c == 0x7F) out += hex_escape('x', c, 2);
        else if (is_invisible_control(cp)) out += hex_escape('u', unsigned(cp), 4);
        else out.append(bytes.substr(i, n));
        i += n == 0 ? 1 : n;
    }
    return out;
}

bool is_utf8(std::string_view bytes) {
    char32_t cp = 0;
    for (std::size_t i = 0, n = 0; i < bytes.size(); i += n)
        if ((n = utf8_sequence(bytes, i, cp)) == 0) return false;
    return true;
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

}  // namespace imghist::cli
