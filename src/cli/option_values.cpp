#include "option_values.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "imghist/imghist.hpp"
#include "option_file.hpp"
#include "options.hpp"

namespace imghist::cli {

std::uint64_t parse_count(const std::string& text) {
    // An integer, optionally with a K/M/G suffix (powers of 1000).
    std::size_t pos = 0;
    unsigned long long v = 0;
    try {
        if (text.empty() || text[0] == '-') throw std::invalid_argument("negative");
        v = std::stoull(text, &pos, 10);
    } catch (const std::exception&) {
        throw UsageError("--max-pixels: '" + text + "' is not a count");
    }
    std::string suffix = text.substr(pos);
    std::uint64_t mul = 1;
    if (suffix == "k" || suffix == "K") mul = 1000;
    else if (suffix == "m" || suffix == "M") mul = 1000 * 1000;
    else if (suffix == "g" || suffix == "G") mul = 1000 * 1000 * 1000;
    else if (!suffix.empty()) throw UsageError("--max-pixels: '" + text + "' is not a count");
    if (v > UINT64_MAX / mul) throw UsageError("--max-pixels: '" + text + "' is too large");
    return v * mul;
}

double parse_double(const std::string& text, const std::string& what) {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
        throw UsageError(what + ": '" + text + "' is not a finite number");
    return v;
}

std::pair<double, double> parse_range(const std::string& text, const std::string& what) {
    // LO:HI; the separator is the first ':' that follows a digit or '.', so "-1:2" works.
    std::size_t colon = std::string::npos;
    for (std::size_t i = 1; i < text.size(); ++i)
        if (text[i] == ':') { colon = i; break; }
    if (colon == std::string::npos) throw UsageError(what + ": expected LO:HI, got '" + text + "'");
    const double lo = parse_double(text.substr(0, colon), what + " LO");
    const double hi = parse_double(text.substr(colon + 1), what + " HI");
    if (!(lo < hi)) throw UsageError(what + ": LO must be below HI (got '" + text + "')");
    return {lo, hi};
}

// --edges: numbers separated by commas (or, from @FILE, commas, spaces and newlines).
std::vector<double> parse_edges(const std::string& text) {
    std::string list = text;
    if (!text.empty() && text[0] == '@') {
        try {
            list = OptionFile(text.substr(1), OptionFileKinds::regular).rest(std::size_t(1) << 20);  // 4097 edges, 255 bytes each
        } catch (const OptionFileError& e) {
            throw UsageError("--edges " + text + ": " + e.what());
        }
    }
    for (char& c : list)
        if (c == ',' || c == '\n' || c == '\r' || c == '\t') c = ' ';
    std::istringstream words(list);
    std::vector<double> edges;
    std::string word;
    while (words >> word) edges.push_back(parse_double(word, "--edges"));
    if (edges.size() < 2) throw UsageError("--edges: expected at least two edges E0,E1,..., got '" + text + "'");
    return edges;
}

// --percentiles P,P,...: each in [0, 100], at most kMaxPercentiles.
std::vector<double> parse_percentiles(const std::string& text) {
    std::vector<double> percents;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        percents.push_back(parse_double(text.substr(start, comma - start), "--percentiles"));
        start = comma + 1;
    }
    try {
        validate_percentiles(percents);
    } catch (const InvalidArgument& e) {
        throw UsageError("--percentiles: " + std::string(e.what()));
    }
    return percents;
}

// --ev LO:HI:BINS_PER_STOP (LO may be negative: the separators are the colons after the first character).
std::vector<double> parse_ev(const std::string& text) {
    const std::size_t first = text.find(':', 1);
    const std::size_t second = first == std::string::npos ? first : text.find(':', first + 2);
    if (second == std::string::npos) throw UsageError("--ev: expected LO:HI:BINS_PER_STOP, got '" + text + "'");
    const double lo = parse_double(text.substr(0, first), "--ev LO");
    const double hi = parse_double(text.substr(first + 1, second - first - 1), "--ev HI");
    const std::string per_stop_text = text.substr(second + 1);
    std::uint32_t per_stop = 0;
    const auto [ptr, ec] = std::from_chars(per_stop_text.data(), per_stop_text.data() + per_stop_text.size(), per_stop);
    if (per_stop_text.empty() || ec != std::errc() || ptr != per_stop_text.data() + per_stop_text.size() || per_stop == 0)
        throw UsageError("--ev: BINS_PER_STOP must be a whole number of at least 1, got '" + per_stop_text + "'");
    try {
        return ev_edges(lo, hi, per_stop);
    } catch (const InvalidArgument& e) {
        throw UsageError(std::string("--ev: ") + e.what());
    }
}

// N comma-separated unsigned 32-bit integers, for --roi and --tiles.
std::vector<std::uint32_t> parse_integers(const std::string& text, std::size_t n, const std::string& what,
                                          const std::string& shape) {
    std::vector<std::uint32_t> out;
    std::size_t pos = 0;
    while (true) {
        const std::size_t end = text.find(',', pos);
        const std::string part = text.substr(pos, end == std::string::npos ? end : end - pos);
        std::uint32_t v = 0;
        const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (part.empty() || ec != std::errc() || ptr != part.data() + part.size())
            throw UsageError(what + ": expected " + shape + " (non-negative integers), got '" + text + "'");
        out.push_back(v);
        if (end == std::string::npos) break;
        pos = end + 1;
    }
    if (out.size() != n) throw UsageError(what + ": expected " + shape + ", got '" + text + "'");
    return out;
}

}  // namespace imghist::cli
