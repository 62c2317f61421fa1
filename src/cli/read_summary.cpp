#include "read_summary.hpp"

#include <algorithm>

namespace imghist::cli {

namespace {

constexpr std::size_t kReasonsKept = 256;  // distinct reasons counted; the rest are "other"
constexpr std::size_t kReasonsShown = 3;
constexpr std::size_t kReasonChars = 120;  // a reason longer than this is cut in the summary

std::string shortened(const std::string& reason) {
    if (reason.size() <= kReasonChars) return reason;
    std::size_t cut = kReasonChars;
    while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0) == 0x80) --cut;  // a whole UTF-8 character
    return reason.substr(0, cut) + "\u2026";
}

}  // namespace

void ReadTally::add(const FileOutcome& o) {
    if (o.result) {
        ++counted_;
        return;
    }
    ++not_read_;
    const auto same = [&](const auto& r) { return r.first == o.error; };
    if (const auto it = std::find_if(reasons_.begin(), reasons_.end(), same); it != reasons_.end()) ++it->second;
    else if (reasons_.size() < kReasonsKept) reasons_.emplace_back(o.error, 1);
}

std::string ReadTally::summary() const {
    if (not_read_ == 0) return "";
    std::vector<std::pair<std::string, std::size_t>> commonest = reasons_;
    std::stable_sort(commonest.begin(), commonest.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string text = std::to_string(counted_) + " counted, " + std::to_string(not_read_) + " not read: ";
    std::size_t shown = 0;
    for (; shown < std::min(kReasonsShown, commonest.size()); ++shown)
        text += (shown ? "; " : "") + display_text(shortened(commonest[shown].first)) + " (" +
                std::to_string(commonest[shown].second) + ")";
    std::size_t rest = not_read_;
    for (std::size_t k = 0; k < shown; ++k) rest -= commonest[k].second;
    if (rest > 0) text += "; " + std::to_string(rest) + " for other reasons";
    return text;
}

}  // namespace imghist::cli
