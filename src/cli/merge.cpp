#include "merge.hpp"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "merge_entry.hpp"
#include "option_file.hpp"

namespace imghist::cli {

namespace {

using json = ReportJson;

// A JSON document, or one line of JSON Lines, is read whole before it is parsed (and parsing
// takes several times its size): larger inputs are refused, not read until memory runs out. A
// run of more files than a document of this size holds is merged from --format jsonl (one line
// a file) or --sum-only reports.
constexpr std::size_t kMaxReportBytes = std::size_t(256) << 20;

bool blank(const std::string& text) { return text.find_first_not_of(" \t\r\n") == std::string::npos; }

// Parses `text` as JSON; a syntax error gives nullopt and `why`. A key given twice in one object
// is refused: imghist never writes one, and which of the values was meant is unknown.
std::optional<json> parse(const std::string& text, const std::string& where, std::string& why) {
    std::vector<std::unordered_set<std::string>> keys;  // of each object being parsed
    const json::parser_callback_t unique_keys = [&](int, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        if (event == json::parse_event_t::object_end) keys.pop_back();
        if (event == json::parse_event_t::key && !keys.back().insert(parsed.get<std::string>()).second)
            fail(where, "the key " + excerpt(parsed.get<std::string>(), 64, "\"") + " is given twice in one object");
        return true;
    };
    try {
        return json::parse(text, unique_keys);
    } catch (const json::exception& e) {  // a syntax error, or a number past a double's range
        why = excerpt(e.what(), 200);
        return std::nullopt;
    }
}

// Adds every count of `r` (and `pixels`) to `total`, which fits 64 bits only if every sum does.
void add_total(unsigned __int128& total, const Result& r, std::uint64_t pixels) {
    total += pixels;
    for (const ChannelHistogram& c : r.channels) {
        for (std::uint64_t n : c.counts) total += n;
        total += c.nan + (unsigned __int128)c.below + c.above + c.clipped_low_count.value_or(0) +
                 c.clipped_high_count.value_or(0);
    }
}

class Reader {
public:
    explicit Reader(MergedInputs& merged) : merged_(merged) {}

    void read(const std::string& file) {
        ++index_;
        input_ = display_text(file);
        inputs_.push_back(input_);
        std::optional<OptionFile> in;
        try {
            in.emplace(file, OptionFileKinds::regular);
            read_from(*in);
        } catch (const OptionFileTooLarge& e) {
            fail(input_, std::string(e.what()) + " (the most imghist merge reads as one JSON document or one line of "
                                                  "JSON Lines: merge a larger run from --format jsonl or --sum-only reports)");
        } catch (const OptionFileError& e) {
            fail(input_, e.what());
        }
    }

private:
    // A document on its first line (as imghist writes one), JSON Lines, or a document over
    // several lines (pretty-printed by another tool).
    void read_from(OptionFile& in) {
        std::string first;
        while (in.next_line(first, kMaxReportBytes) && blank(first)) {
        }
        if (blank(first)) fail(input_, "empty: not an imghist report");
        const std::string at_first = input_ + ": line " + std::to_string(in.lines_read());
        std::string why;
        if (const auto j = parse(first, at_first, why)) {
            if (j->is_object() && j->contains("schema")) {
                for (std::string more; in.next_line(more, kMaxReportBytes);)
                    if (!blank(more)) fail(input_ + ": line " + std::to_string(in.lines_read()), "text after the JSON document");
                return document(*j);
            }
            if (!j->is_object()) fail(input_, "not an imghist report: a JSON document without \"schema\"");
            return lines(*j, at_first, in);
        }
        const std::string more = in.rest(kMaxReportBytes - first.size());
        if (!blank(more)) {  // a document over several lines, parsed whole; else `why` stands
            const auto doc = parse(first + "\n" + more, input_, why);
            if (doc && doc->is_object() && doc->contains("schema")) return document(*doc);
            if (doc) fail(input_, "not an imghist report: a JSON document without \"schema\"");
        }
        if (first.rfind("{\"schema\"", 0) == 0) fail(input_, "malformed JSON document: " + why);
        fail(at_first, "not JSON (neither a JSON document nor JSON Lines)");
    }

    void document(const json& doc) {
        const json& schema = doc["schema"];
        if (!schema.is_number_integer() || schema.get<std::int64_t>() < kOldestMergedSchema ||
            schema.get<std::int64_t>() > kJsonSchema)
            fail(input_ + ": schema", "schema " + excerpt(schema.dump(-1, ' ', false, json::error_handler_t::replace)) +
                                          " is not read (imghist merge reads schemas " + std::to_string(kOldestMergedSchema) +
                                          " to " + std::to_string(kJsonSchema) + ")");
        if (!doc.contains("imghist") || !doc["imghist"].is_string()) fail(input_, "no \"imghist\" version string");
        const auto list = [&](const char* name) -> const json& {
            if (!doc.contains(name)) fail(input_, std::string("no \"") + name + "\" field");
            const json& items = doc[name];
            if (!items.is_array()) fail(input_ + ": " + name, "not an array");
            return items;
        };
        const json& errors = list("errors");
        for (std::size_t i = 0; i < errors.size(); ++i)
            error(errors[i], input_ + ": errors[" + std::to_string(i) + "]");
        if (doc.contains("interrupted")) interrupted(doc["interrupted"]);
        const bool has_sums = doc.contains("sums");
        const std::string name = has_sums ? "sums" : "results";
        const json& entries = list(name.c_str());
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const std::string where = input_ + ": " + name + "[" + std::to_string(i) + "]";
            add(has_sums ? sum_entry(entries[i], where) : result_entry(entries[i], where));
        }
    }

    // JSON Lines: the sum lines when there are any, else the result lines; the error lines
    // always. The results are summed as they come (imghist writes the sums last), so an input
    // of many files holds one sum per layout in memory, not every line.
    void lines(const json& first, const std::string& at_first, OptionFile& in) {
        SumGroups results;
        bool has_sums = false;
        const auto entry = [&](const json& j, const std::string& where) {
            if (!j.is_object()) fail(where, "not a JSON object");
            if (j.contains("sum")) {
                has_sums = true;
                add(sum_entry(j["sum"], where + ": sum"));
            } else if (j.contains("error")) {
                error(j, where);
            } else if (j.contains("histograms")) {
                const MergeEntry e = result_entry(j, where);
                check(e);
                if (!has_sums) results.add(e.result, members(e.files), e.pixels, e.formats, e.camera_raw);
            } else if (j.contains("interrupted")) {
                interrupted(j["interrupted"]);
            } else {
                fail(where, "not an imghist entry (no \"histograms\", \"error\" or \"sum\" field)");
            }
        };
        entry(first, at_first);
        std::string why;
        for (std::string line; in.next_line(line, kMaxReportBytes);) {
            const std::string where = input_ + ": line " + std::to_string(in.lines_read());
            if (blank(line)) continue;
            const auto j = parse(line, where, why);
            if (!j) fail(where, "not JSON (neither a JSON document nor JSON Lines)");
            entry(*j, where);
        }
        if (has_sums) return;
        for (const SumGroup& g : results.groups()) {
            std::vector<std::string> files;
            for (const SumMember& m : g.members) files.push_back(m.file);
            add_checked(g.result, std::move(files), g.pixels, g.formats, g.camera_raw, input_);
        }
    }

    static std::vector<SumMember> members(const std::vector<std::string>& files) {
        std::vector<SumMember> out;
        for (const std::string& f : files) out.push_back(SumMember{f, kNoResult});
        return out;
    }

    void error(const json& entry, const std::string& where) { merged_.errors.push_back(error_entry(entry, where, input_)); }

    // A run a signal ended: its report is merged, and the merge says it holds part of that run.
    void interrupted(const json& note) {
        const bool counts = note.is_object() && note.value("reported", json()).is_number_unsigned() &&
                            note.value("inputs", json()).is_number_unsigned();
        merged_.warnings.push_back(
            input_ + " is the report of an interrupted run" +
            (counts ? " (" + note["reported"].dump() + " of its " + note["inputs"].dump() + " inputs)" : "") +
            ": only the inputs it reports are merged");
    }

    // The entry's counts fit 64 bits, and its fields agree as in every report imghist writes.
    static void check(const MergeEntry& e) {
        unsigned __int128 total = 0;
        add_total(total, e.result, e.pixels);
        if (total >> 64) fail(e.where, "the counts of the inputs add up to more than 64 bits hold");
        check_entry(e.result, e.formats, e.counted, e.where);
    }

    void add(const MergeEntry& e) {
        check(e);
        add_checked(e.result, e.files, e.pixels, e.formats, e.camera_raw, e.where);
    }

    void add_checked(const Result& r, std::vector<std::string> names, std::uint64_t pixels,
                     const std::vector<PixelFormat>& formats, bool camera_raw, const std::string& where) {
        add_total(total_, r, pixels);
        if (total_ >> 64) fail(where, "the counts of the inputs add up to more than 64 bits hold");
        std::vector<SumMember> members;
        for (std::string& name : names) {
            const auto [it, first] = seen_.try_emplace(name, index_);
            if (!first && it->second != index_) repeated(name, inputs_[it->second]);
            members.push_back(SumMember{std::move(name), kNoResult});
        }
        merged_.sums.add(r, std::move(members), pixels, formats, camera_raw);
    }

    void repeated(const std::string& name, const std::string& earlier) {
        constexpr std::size_t kMaxWarnings = 20;
        if (++repeats_ <= kMaxWarnings)
            merged_.warnings.push_back(display_text(name) + " is in " + earlier + " and in input " +
                                       std::to_string(index_ + 1) + " (" + input_ + "): counted in both");
        else if (repeats_ == kMaxWarnings + 1)
            merged_.warnings.push_back("more files are in several inputs (only the first " +
                                       std::to_string(kMaxWarnings) + " are named)");
    }

    MergedInputs& merged_;
    std::string input_;                   // the input being read, for messages
    std::vector<std::string> inputs_;     // every input so far (the same one may be given twice)
    std::size_t index_ = std::size_t(-1);  // the input being read, in inputs_
    std::unordered_map<std::string, std::size_t> seen_;  // file name -> the first input naming it
    unsigned __int128 total_ = 0;
    std::size_t repeats_ = 0;
};

}  // namespace

MergedInputs read_merge_inputs(const std::vector<std::string>& files) {
    MergedInputs merged;
    Reader reader(merged);
    for (const std::string& f : files) reader.read(f);
    return merged;
}

}  // namespace imghist::cli
