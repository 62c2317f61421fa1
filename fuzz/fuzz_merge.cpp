// libFuzzer target of `imghist merge` (src/cli/merge.cpp, output.cpp): the bytes become up to
// three report files (split at NUL bytes: a NUL is never part of a JSON text) that
// read_merge_inputs() reads as the command does. It must return the merged sums or throw
// MergeInputError. What it returns is then written in every report format, as the command
// writes it, and the JSON written must read back to the same sums: the same groups, counts,
// layouts, pixels, formats and files (merging a merge changes nothing). Any other exception, a
// crash, or a sanitizer report is a finding.
//
// Seeds: with IMGHIST_FUZZ_WRITE_SEEDS=DIR the target writes reports of the command's current
// schema into DIR and exits (fuzz_merge_seeds.cpp); scripts/fuzz.sh seeds the corpus so.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/merge.hpp"
#include "cli/output.hpp"
#include "fuzz_merge_seeds.hpp"
#include "imghist/imghist.hpp"
#include "scratch.hpp"

namespace {

using imghist::cli::MergedInputs;

constexpr std::size_t kMaxInputs = 3;

// The input's parts (at most kMaxInputs; later NULs stay in the last), each written to a file.
std::vector<std::string> write_inputs(std::string_view bytes) {
    std::vector<std::string> files;
    while (true) {
        const std::size_t nul = files.size() + 1 < kMaxInputs ? bytes.find('\0') : std::string_view::npos;
        const std::string path = (imghist::fuzz::scratch_dir() / ("report" + std::to_string(files.size()))).string();
        imghist::fuzz::write_file(path, bytes.substr(0, nul));
        files.push_back(path);
        if (nul == std::string_view::npos) return files;
        bytes.remove_prefix(nul + 1);
    }
}

[[noreturn]] void finding(const std::string& what) {
    std::fprintf(stderr, "fuzz_merge: %s\n", what.c_str());
    std::abort();
}

// The sums written as `format` (with the auto-exposure, as `imghist merge --exposure` does);
// false when the report could not encode something (then it says so in an error entry).
bool write_report(const MergedInputs& merged, const std::string& format, std::string& text) {
    std::ostringstream out;
    const auto report = imghist::cli::make_report(format, out, false, imghist::ExposureSettings{});
    for (const imghist::cli::FileOutcome& o : merged.errors) (void)report->add(o);
    const bool complete = report->finish(&merged.sums.groups(), nullptr);
    text = out.str();
    return complete;
}

bool same_group(const imghist::cli::SumGroup& a, const imghist::cli::SumGroup& b) {
    if (!a.result.same_histograms(b.result) || a.result.counted_pixels != b.result.counted_pixels ||
        a.pixels != b.pixels || a.formats != b.formats || a.members.size() != b.members.size())
        return false;
    for (std::size_t k = 0; k < a.members.size(); ++k)
        if (a.members[k].file != b.members[k].file) return false;
    return true;
}

// The JSON report of `merged`, read back, holds the same sums and the same failed files.
void check_round_trip(const MergedInputs& merged, const std::string& json) {
    const std::string path = (imghist::fuzz::scratch_dir() / "merged.json").string();
    imghist::fuzz::write_file(path, json);
    MergedInputs again;
    try {
        again = imghist::cli::read_merge_inputs({path});
    } catch (const imghist::cli::MergeInputError& e) {
        finding(std::string("the merged report does not read back: ") + e.what());
    }
    const auto& groups = merged.sums.groups();
    const auto& read_back = again.sums.groups();
    if (groups.size() != read_back.size()) finding("the merged report reads back to another number of sums");
    for (std::size_t g = 0; g < groups.size(); ++g)
        if (!same_group(groups[g], read_back[g])) finding("sum " + std::to_string(g) + " reads back differently");
    if (again.errors.size() != merged.errors.size()) finding("the merged report reads back to other errors");
    for (std::size_t k = 0; k < merged.errors.size(); ++k)
        if (again.errors[k].file != merged.errors[k].file) finding("a failed file's name reads back differently");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("IMGHIST_FUZZ_WRITE_SEEDS")) {
        imghist::fuzz::write_merge_seeds(dir);
        std::exit(0);
    }
    imghist::fuzz::remove_scratch_dir_at_exit();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::string> files = write_inputs({reinterpret_cast<const char*>(data), size});
    MergedInputs merged;
    try {
        merged = imghist::cli::read_merge_inputs(files);
    } catch (const imghist::cli::MergeInputError&) {
        return 0;
    }
    std::string text;
    for (const char* format : {"table", "csv", "jsonl"}) (void)write_report(merged, format, text);
    if (write_report(merged, "json", text)) check_round_trip(merged, text);
    return 0;
}
