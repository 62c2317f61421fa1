#include "output.hpp"

#include <algorithm>
#include <iostream>

#include "output_formats.hpp"

namespace imghist::cli {

void SumGroups::add(const Result& r, std::vector<SumMember> members, std::uint64_t pixels,
                    const std::vector<PixelFormat>& formats, bool camera_raw) {
    // Result::can_merge is the one rule of what may be summed: the first group it accepts, of
    // camera raw files for a camera raw file (its channels are colour positions, not R, G, B, A).
    auto group = std::find_if(groups_.begin(), groups_.end(),
                              [&](const SumGroup& g) { return g.camera_raw == camera_raw && g.result.can_merge(r); });
    if (group == groups_.end()) group = groups_.insert(groups_.end(), SumGroup{r, {}, 0, {}, camera_raw});
    else group->result.merge(r);
    for (SumMember& m : members) group->members.push_back(std::move(m));
    group->pixels += pixels;
    for (PixelFormat f : formats)
        if (std::find(group->formats.begin(), group->formats.end(), f) == group->formats.end())
            group->formats.push_back(f);
}

void SumGroups::add(const FileOutcome& o, std::size_t result_index) {
    const Result& r = *o.result;
    add(r, {SumMember{o.file, result_index}}, std::uint64_t(r.width) * r.height, {r.format}, o.sensor.has_value());
}

std::string formats_label(const SumGroup& group) {
    std::string label;
    for (PixelFormat f : group.formats) label += (label.empty() ? "" : "+") + std::string(format_info(f).name);
    return group.camera_raw ? camera_raw_label(label) : label;
}

std::size_t TextReport::add(const FileOutcome& o) {
    if (!o.result) {
        std::cerr << "imghist: " << display_text(o.file) << ": " << display_text(o.error) << '\n';
        return kNoResult;
    }
    if (!per_file_) return kNoResult;
    write(o);
    return results_++;
}

std::unique_ptr<Report> make_report(const std::string& format, std::ostream& out, bool per_file,
                                    const std::optional<ExposureSettings>& exposure) {
    if (format == "json") return make_json_report(out, per_file, exposure);
    if (format == "jsonl") return make_json_lines_report(out, per_file, exposure);
    if (format == "csv") return make_csv_report(out, per_file);
    return make_table_report(out, per_file, exposure);
}

}  // namespace imghist::cli
