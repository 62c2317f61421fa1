// imghist: histograms of image files, from the command line.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "decoder_process.hpp"
#include "imghist/imghist.hpp"
#include "output.hpp"
#include "plot.hpp"
#include "reader.hpp"

#ifndef IMGHIST_CLI_VERSION
#define IMGHIST_CLI_VERSION "0.0.0"
#endif

namespace fs = std::filesystem;
using namespace imghist;
using namespace imghist::cli;

namespace {

constexpr int kExitOk = 0, kExitFileFailed = 1, kExitUsage = 2;
constexpr std::uint64_t kDefaultMaxPixels = std::uint64_t(1) << 28;  // 16384 x 16384
constexpr std::size_t kProgressThreshold = 4;  // automatic progress above this many files
constexpr std::size_t kSumTitleNames = 90;     // bytes of file names in a sum chart's title

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const char* kFooter = R"HELP(
What it counts:
  Pixels as the file stores them: 8-bit stays 8-bit (256 bins, bin = value), 16-bit stays
  16-bit (256 bins, bin = value >> 8), half/float use 257 bins over [0, 1] (bin 256 holds 1.0
  and above; NaN, values below 0 and above 1 are also reported as nan/below/above). Colour is
  not premultiplied by alpha and not colour-converted (CMYK is refused). Channels are taken by
  name: R,G,B (and A), or Y for gray; others (Z, AOVs) are left out with a note. Indexed
  images are expanded to RGB. --bins/--range replace the default bins; values outside the
  range are counted as below/above and binned only with --clamp.

Inputs:
  Regular files whose content is a trusted format (the reader is picked by the content,
  not the name): {TRUSTED}.
  Other formats need --untrusted-readers (less safe readers). FIFOs, devices and sockets
  are refused. Directories are searched recursively for files with those formats'
  extensions (hidden files skipped).
  -- ends the options, so a file name that starts with '-' goes after it:
  imghist -- -name.png

Output formats (--format):
  table  per-file channel summary: pixels, mean, stddev, median, p1, p99, min, max (in bins),
         shares clipped in the first/last bin, NaN/below/above counts, notes. Errors on stderr.
  json   one document: {"schema": 2, "imghist": VERSION, "results": [...], "errors": [...],
         "sums": [...]} (schema in docs/cli.md; "sums" only with --sum).
  csv    image,format,channel,kind,bin,lo,hi,count: one row per file, channel and bin (kind
         bin), then rows of kind below, above and nans (bin -1). --sum adds rows with image
         "(sum)", one set per layout, told apart by format.
  --sum merges files of the same channels and bins; files of another layout (16-bit among
  8-bit, gray among RGB) get a sum of their own, each listing its files.
  Names and messages in the table, CSV, on stderr and in plot titles are escaped: \\ \n \t
  \xHH for control and non-UTF-8 bytes, \uHHHH for invisible controls (docs/cli.md).

Plot (--plot FILE.png or FILE.svg):
  R, G and B curves over the luminance as a filled area, clipped shares at both ends.
  One file: its histogram. Several files: their sum (one chart per layout, FILE-FORMATS.png,
  when they differ), or one chart each when FILE contains {} (replaced by the file's name
  without extension). A chart never replaces another chart of the same run or an input.
  --log uses a log10 counts axis.

Decoding:
  Each worker decodes its files in a decoder process of its own, so a file that crashes or
  hangs a reader is one error and the other files are still reported. --decode-timeout
  bounds the time per file; --decode-in-process decodes in imghist itself (for debugging).

Exit status:
  0  every file was read and counted, and the report and plots were written
  1  at least one file or directory failed (each failure is one line naming it and the
     reason; the other files are still reported), a plot could not be written, or stdout
     could not be written (a full disk)
  2  usage error: bad option or value, unknown or unavailable backend/device, no input

Examples:
  imghist photo.jpg                         table for one file
  imghist --plot hist.png photo.jpg         ... and a chart
  imghist --mode luma --format json shots/  luminance of every image under shots/, as JSON
  imghist --sum --plot all.svg --log *.png  one merged histogram, log-scale chart
  imghist --bins 64 --range 0:4 --clamp render.exr   64 bins over [0, 4), outliers clamped
  imghist --list-backends                   compiled backends and their devices
  imghist --backend opencl --device 0:1 big.tif

Environment:
  IMGHIST_OPENCL_DEVICE, IMGHIST_VULKAN_DEVICE, IMGHIST_CUDA_DEVICE pick a device when
  --device is not given.
)HELP";

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

std::pair<double, double> parse_range(const std::string& text) {
    // LO:HI; the separator is the first ':' that follows a digit or '.', so "-1:2" works.
    std::size_t colon = std::string::npos;
    for (std::size_t i = 1; i < text.size(); ++i)
        if (text[i] == ':') { colon = i; break; }
    if (colon == std::string::npos) throw UsageError("--range: expected LO:HI, got '" + text + "'");
    const double lo = parse_double(text.substr(0, colon), "--range LO");
    const double hi = parse_double(text.substr(colon + 1), "--range HI");
    if (!(lo < hi)) throw UsageError("--range: LO must be below HI (got '" + text + "')");
    return {lo, hi};
}

bool hidden(const fs::path& p) {
    const std::string name = p.filename().string();
    return !name.empty() && name[0] == '.' && name != "." && name != "..";
}

bool has_image_extension(const fs::path& p, bool untrusted_readers) {
    std::string ext = p.extension().string();
    if (ext.size() < 2) return false;
    ext.erase(0, 1);
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    const auto& list = image_extensions(untrusted_readers);
    return std::binary_search(list.begin(), list.end(), ext);
}

// Expands directories; an input that yields nothing becomes an error outcome right away.
struct Inputs {
    std::vector<std::string> files;
    std::vector<FileOutcome> failed;  // directories that could not be walked or hold no image
};

// Adds the image files under dir to `found` (hidden names skipped, symlinked directories not
// followed); a directory that cannot be listed is an error naming it and the system's reason.
void walk_directory(const fs::path& dir, bool untrusted_readers, std::vector<std::string>& found,
                    std::vector<FileOutcome>& failed) {
    std::error_code ec;
    std::vector<fs::path> subdirectories;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const fs::directory_entry& entry = *it;
        if (hidden(entry.path())) continue;
        std::error_code fe;
        if (fs::is_directory(entry.symlink_status(fe))) subdirectories.push_back(entry.path());
        else if (entry.is_regular_file(fe) && has_image_extension(entry.path(), untrusted_readers)) found.push_back(entry.path().string());
    }
    if (ec) failed.push_back({dir.string(), std::nullopt, {}, "cannot read directory: " + ec.message()});
    std::sort(subdirectories.begin(), subdirectories.end());
    for (const fs::path& sub : subdirectories) walk_directory(sub, untrusted_readers, found, failed);
}

Inputs expand_inputs(const std::vector<std::string>& args, bool untrusted_readers) {
    Inputs in;
    for (const std::string& arg : args) {
        std::error_code ec;
        if (!fs::is_directory(arg, ec)) {
            in.files.push_back(arg);
            continue;
        }
        std::vector<std::string> found;
        const std::size_t failures = in.failed.size();
        walk_directory(arg, untrusted_readers, found, in.failed);
        std::sort(found.begin(), found.end());
        if (found.empty() && in.failed.size() == failures)
            in.failed.push_back({arg, std::nullopt, {}, "directory holds no image files"});
        in.files.insert(in.files.end(), found.begin(), found.end());
    }
    return in;
}

std::string version_text() {
    std::string backends;
    for (const Backend* b : imghist::backends()) backends += (backends.empty() ? "" : ", ") + std::string(b->name());
    return std::string("imghist ") + IMGHIST_CLI_VERSION + " (library " + std::string(imghist::version()) +
           ")\n" + reader_version() + (plot_available() ? ", plots with cairo" : ", plots disabled (no cairo)") +
           "\nbackends: " + backends;
}

// The backend `auto` takes (mirrors imghist::create_engine) without creating an engine.
std::string auto_choice() {
    for (const Backend* b : imghist::backends())
        for (const DeviceInfo& d : b->devices())
            if (d.is_gpu && d.available) return std::string(b->name());
    return "cpu";
}

int list_backends(const std::string& format) {
    const std::string chosen = auto_choice();
    if (format == "json") {
        nlohmann::ordered_json doc;
        doc["imghist"] = std::string(imghist::version());
        doc["auto"] = chosen;
        auto list = nlohmann::ordered_json::array();
        for (const Backend* b : imghist::backends()) {
            nlohmann::ordered_json jb;
            jb["name"] = std::string(b->name());
            jb["summary"] = std::string(b->summary());
            auto devs = nlohmann::ordered_json::array();
            bool any = false;
            for (const DeviceInfo& d : b->devices()) {
                any = any || d.available;
                // Driver strings are escaped like every message, so they cannot break the JSON.
                devs.push_back({{"id", display_text(d.id)}, {"name", display_text(d.name)}, {"gpu", d.is_gpu},
                                {"available", d.available}, {"note", display_text(d.note)}});
            }
            jb["available"] = any;
            jb["devices"] = std::move(devs);
            list.push_back(std::move(jb));
        }
        doc["backends"] = std::move(list);
        std::cout << doc.dump(1) << '\n';
        return kExitOk;
    }
    std::cout << "Compiled backends (auto picks: " << chosen << "):\n";
    for (const Backend* b : imghist::backends()) {
        const auto devices = b->devices();
        bool any = false;
        for (const DeviceInfo& d : devices) any = any || d.available;
        std::cout << "\n" << b->name() << (any ? "" : "  [unavailable]") << "  " << b->summary() << '\n';
        if (devices.empty()) std::cout << "    (no devices)\n";
        for (const DeviceInfo& d : devices) {
            std::cout << "    --device " << display_text(d.id) << "  " << display_text(d.name) << "  ("
                      << (d.is_gpu ? "GPU" : "CPU")
                      << ", " << (d.available ? "available" : "unavailable") << ")";
            if (!d.note.empty()) std::cout << "  " << display_text(d.note);
            std::cout << '\n';
        }
    }
    return kExitOk;
}

std::string stem_of(const std::string& file) {
    std::string s = fs::path(file).stem().string();
    return s.empty() ? std::string("image") : s;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
        s.replace(p, from.size(), to);
    return s;
}

std::string subtitle_for(const Result& r, const std::string& format_text) {
    return std::to_string(r.width) + " \u00D7 " + std::to_string(r.height) + "  \u00B7  " + format_text +
           "  \u00B7  " + describe_layout(r.channels.front().layout) + "  \u00B7  " + display_text(r.backend);
}

// One chart to draw: where, what, and the input it stands for (named in its error).
struct Chart {
    std::string path;
    const Result* result;
    PlotOptions options;
    std::string source;
};

// Draws every chart, each failure one line on stderr; a chart never replaces a chart drawn
// earlier in this run or an input file. Returns false if any chart was not written.
bool draw_charts(const std::vector<Chart>& charts, const std::vector<std::string>& inputs) {
    const auto same_file = [](const std::string& p) {
        std::error_code ec;
        const fs::path c = fs::weakly_canonical(p, ec);
        return ec ? fs::path(p).lexically_normal() : c;
    };
    std::map<fs::path, std::string> drawn;  // chart path -> the input it was drawn for
    for (const std::string& in : inputs) drawn.emplace(same_file(in), "");
    bool ok = true;
    for (const Chart& c : charts) {
        const std::string what = "imghist: plot of " + display_text(c.source) + ": ";
        const auto [it, fresh] = drawn.emplace(same_file(c.path), c.source);
        if (!fresh) {
            std::cerr << what << display_text(c.path) << " is "
                      << (it->second.empty() ? std::string("an input file")
                                             : "already the chart of " + display_text(it->second))
                      << "; not overwritten\n";
            ok = false;
            continue;
        }
        try {
            write_plot(c.path, *c.result, c.options);
        } catch (const std::exception& e) {
            std::cerr << what << display_text(e.what()) << '\n';
            ok = false;
        }
    }
    return ok;
}

// The charts --plot asks for: one per file with {}, one per sum group for several files (a
// sum of several layouts is several charts, FILE-FORMATS.ext, and says so), else the file's.
std::vector<Chart> plan_charts(const std::string& plot_path, bool log, const std::vector<FileOutcome>& outcomes,
                               const std::vector<SumGroup>& sums) {
    std::vector<Chart> charts;
    const auto file_chart = [&](const std::string& path, const FileOutcome& o) {
        charts.push_back({path, &*o.result,
                          {display_text(fs::path(o.file).filename().string()),
                           subtitle_for(*o.result, std::string(format_info(o.result->format).name)), log},
                          o.file});
    };
    if (plot_path.find("{}") != std::string::npos) {
        for (const FileOutcome& o : outcomes)
            if (o.result) file_chart(replace_all(plot_path, "{}", stem_of(o.file)), o);
        return charts;
    }
    if (sums.empty()) {
        const auto it = std::find_if(outcomes.begin(), outcomes.end(), [](const FileOutcome& o) { return o.result.has_value(); });
        if (it != outcomes.end()) file_chart(plot_path, *it);
        return charts;
    }
    const fs::path base(plot_path);
    for (const SumGroup& g : sums) {
        // Names until the title is full (the plot cuts a long title from its start).
        std::string names;
        std::size_t listed = 0;
        for (; listed < g.members.size() && names.size() < kSumTitleNames; ++listed)
            names += (names.empty() ? ": " : ", ") + display_text(fs::path(outcomes[g.members[listed]].file).filename().string());
        if (listed < g.members.size()) names += " and " + std::to_string(g.members.size() - listed) + " more";
        const std::string path = sums.size() == 1 ? plot_path
                                                  : (base.parent_path() / (base.stem().string() + "-" + formats_label(g) +
                                                                           base.extension().string())).string();
        charts.push_back({path, &g.result,
                          {"sum of " + std::to_string(g.members.size()) + (g.members.size() == 1 ? " file" : " files") + names,
                           std::to_string(g.pixels) + " pixels  \u00B7  " + formats_label(g) + "  \u00B7  " +
                               describe_layout(g.result.channels.front().layout) + "  \u00B7  " +
                               display_text(g.result.backend),
                           log},
                          "the sum of " + formats_label(g)});
    }
    return charts;
}

// errno of the first failed write to stdout (a full disk, a closed pipe...), 0 while none.
// Checked right after the report, while errno still tells why, and again at exit.
int stdout_failure() {
    static int failure = 0;
    if (failure == 0) {
        std::cout.flush();
        if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) failure = errno != 0 ? errno : EIO;
    }
    return failure;
}

class Progress {
public:
    Progress(bool enabled, std::size_t total) : enabled_(enabled), total_(total) {}
    void done(const std::string& file) {
        if (!enabled_) return;
        std::lock_guard lock(mutex_);
        ++count_;
        std::string name = fs::path(file).filename().string();
        if (name.size() > 48) name = "..." + name.substr(name.size() - 45);
        std::cerr << "\r\033[K[" << count_ << "/" << total_ << "] " << display_text(name) << std::flush;
    }
    void finish() {
        if (enabled_ && count_ > 0) std::cerr << "\r\033[K" << std::flush;
    }

private:
    bool enabled_;
    std::size_t total_, count_ = 0;
    std::mutex mutex_;
};

int run(int argc, char** argv) {
    CLI::App app{"imghist: per-channel R, G, B and luminance histograms of image files, counted\n"
                 "the same way on every backend (CPU, OpenCL, Vulkan, CUDA).",
                 "imghist"};
    // The trusted formats come from the reader's own list, so the help cannot drift from it.
    app.footer(replace_all(kFooter, "{TRUSTED}", trusted_format_names()));
    app.get_formatter()->column_width(34);

    std::vector<std::string> inputs;
    ReadOptions read_options;
    std::string mode_text = "all", backend_name = "auto", device, range_text, weights_text = "rec709";
    std::string format = "table", plot_path, max_pixels_text;
    std::uint32_t bins = 0;
    unsigned threads = 0;
    bool list = false, clamp = false, alpha = false, sum = false, log = false;

    app.add_option("inputs", inputs, "Image files and directories (searched recursively)")->type_name("PATH...");
    app.add_option("--mode", mode_text, "Histograms to compute: rgb (R, G, B), luma (Y), or all")
        ->check(CLI::IsMember({"rgb", "luma", "all"}))->capture_default_str();
    app.add_option("-b,--backend", backend_name, "Backend: auto, cpu, reference, opencl, vulkan, cuda (see --list-backends)")
        ->capture_default_str();
    app.add_flag("--list-backends", list, "List every compiled backend, its devices and whether they are available");
    app.add_option("-d,--device", device, "Device for the backend: an id from --list-backends or a name substring");
    auto* bins_opt = app.add_option("--bins", bins, "Number of bins (default: 256; 257 over [0, 1] for float)")
                         ->check(CLI::Range(1u, 1u << 20))->type_name("N");
    app.add_option("--range", range_text, "Binned range [LO, HI), e.g. 0:256 or 0:1 (use --range=-1:1 for a negative LO)")
        ->type_name("LO:HI");
    app.add_flag("--clamp", clamp, "Fold values outside --range into the first and last bins");
    app.add_option("--luma-weights", weights_text, "rec709, rec601, rec2020, or WR,WG,WB integers summing to 10000")
        ->capture_default_str();
    app.add_flag("--alpha", alpha, "Also count the alpha channel (A)");
    app.add_option("-f,--format", format, "Report format: table, json or csv")
        ->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
    app.add_flag("--sum", sum, "Also report the inputs merged: one histogram per layout (channels and bins)");
    app.add_option("--plot", plot_path, "Draw the histogram chart to FILE.png or FILE.svg ({} = file name)")
        ->type_name("FILE");
    app.add_flag("--log", log, "Log-scale counts axis in the plot");
    app.add_option("-j,--threads", threads, "Worker threads (default: all cores)")->check(CLI::Range(1u, 4096u))->type_name("N");
    app.add_option("--max-pixels", max_pixels_text,
                   "Refuse images with more pixels, checked from the header before reading "
                   "(default 268435456 = 16384 x 16384; K/M/G suffixes; 0 = no limit)")
        ->type_name("N");
    DecoderSettings decoder_settings;
    app.add_option("--decode-timeout", decoder_settings.timeout_seconds,
                   "Seconds a file may take to decode before it is reported as an error (0 = no limit)")
        ->check(CLI::NonNegativeNumber)->capture_default_str()->type_name("SECONDS");
    app.add_flag("--decode-in-process", decoder_settings.in_process,
                 "Decode in this process, not in decoder processes: no crash isolation, no time "
                 "limit (for debugging and profiling)");
    app.add_flag("--untrusted-readers", read_options.untrusted_readers,
                 "Also read formats outside the trusted list (TGA, IFF, DPX, PSD, ...) with "
                 "OpenImageIO's less safe readers, chosen by extension; directories then take "
                 "their extensions too. Use only on files you trust");
    bool progress_on = false, progress_off = false;
    // Two flags: CLI11 shows one negatable flag as "--progress,--no-progress{false}".
    app.add_flag("--progress", progress_on, "Show progress on stderr (default: when stderr is a terminal and more than 4 files)");
    app.add_flag("--no-progress", progress_off, "Never show progress");
    app.set_version_flag("-V,--version", version_text());

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        // CLI11's message quotes the argument: escaped like every message on stderr.
        std::cerr << "imghist: " << display_text(e.what()) << "\nRun with --help for more information.\n";
        return kExitUsage;
    }

    if (list) return list_backends(format);

    Request request;
    read_options.max_pixels = kDefaultMaxPixels;
    try {
        request.mode = *parse_mode(mode_text);
        request.weights = LumaWeights::parse(weights_text);
        request.count_alpha = alpha;
        if (bins_opt->count()) request.bins.bins = bins;
        if (!range_text.empty()) request.bins.range = parse_range(range_text);
        request.bins.clamp = clamp;
        // Catches what is wrong for every sample type (bins, range) before any file is read.
        (void)resolve_layout(SampleType::f32, request.bins);
        if (!max_pixels_text.empty()) read_options.max_pixels = parse_count(max_pixels_text);
        if (!plot_path.empty()) {
            if (!plot_path_supported(plot_path))
                throw UsageError("--plot: the file name must end in .png or .svg: " + plot_path);
            if (!plot_available())
                throw UsageError("--plot is not available: this imghist was built without cairo "
                                 "(install libcairo2-dev and rebuild)");
        }
        if (log && plot_path.empty()) throw UsageError("--log only changes the plot: add --plot FILE");
        if (progress_on && progress_off) throw UsageError("--progress and --no-progress contradict each other");
        if (inputs.empty())
            throw UsageError("no input files (try --help; a file name that starts with '-' goes after --)");
    } catch (const std::exception& e) {
        std::cerr << "imghist: " << display_text(e.what()) << "\nRun with --help for more information.\n";
        return kExitUsage;
    }

    Inputs expanded = expand_inputs(inputs, read_options.untrusted_readers);
    const std::size_t total = expanded.files.size();
    const unsigned cores = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    const unsigned workers = unsigned(std::max<std::size_t>(1, std::min<std::size_t>(cores, total)));
    EngineOptions engine_options;
    engine_options.device = device;
    engine_options.threads = std::max(1u, cores / workers);
    configure_reader_threads(engine_options.threads);
    decoder_settings.reader_threads = engine_options.threads;
    DecoderLauncher decoder_launcher(decoder_settings);

    // The first engine is made here, so a bad backend or device is a usage error up front.
    std::vector<std::unique_ptr<Engine>> engines(workers);
    try {
        engines[0] = imghist::create_engine(backend_name, engine_options);
    } catch (const std::exception& e) {
        std::cerr << "imghist: " << display_text(e.what()) << "\nRun with --list-backends to see what is available.\n";
        return kExitUsage;
    }
    const std::string resolved_backend(engines[0]->backend_name());

    std::vector<FileOutcome> outcomes(total);
    const bool show_progress =
        progress_on || (!progress_off && ::isatty(STDERR_FILENO) && total > kProgressThreshold);
    Progress progress(show_progress, total);
    std::atomic<std::size_t> next{0};
    std::mutex warn_mutex;
    std::vector<std::string> warnings;

    const auto worker = [&](unsigned id) {
        if (!engines[id]) {
            try {
                engines[id] = imghist::create_engine(resolved_backend, engine_options);
            } catch (const std::exception& e) {
                std::lock_guard lock(warn_mutex);
                warnings.push_back("worker " + std::to_string(id) + " has no engine (" + e.what() +
                                   "); the others take its files");
                return;
            }
        }
        Engine& engine = *engines[id];
        FileDecoder decoder(decoder_launcher);
        for (std::size_t i; (i = next.fetch_add(1)) < total;) {
            FileOutcome& o = outcomes[i];
            o.file = expanded.files[i];
            try {
                LoadedImage image = decoder.read(o.file, read_options);
                Result r = engine.compute(image.view, request);
                o.notes = std::move(image.notes);
                o.notes.insert(o.notes.end(), r.notes.begin(), r.notes.end());
                o.result = std::move(r);
            } catch (const ReadError& e) {
                o.error = e.what();
            } catch (const imghist::Error& e) {
                o.error = e.what();
            } catch (const std::bad_alloc&) {
                o.error = "out of memory";
            } catch (const std::exception& e) {
                o.error = std::string("unexpected error: ") + e.what();
            } catch (...) {
                o.error = "unexpected error";
            }
            if (o.result) o.error.clear();
            progress.done(o.file);
        }
    };
    {
        std::vector<std::thread> pool;
        for (unsigned id = 1; id < workers; ++id) pool.emplace_back(worker, id);
        worker(0);
        for (auto& t : pool) t.join();
    }
    progress.finish();
    engines.clear();

    // Directories without images are reported first, then the files in input order.
    outcomes.insert(outcomes.begin(), expanded.failed.begin(), expanded.failed.end());

    int status = kExitOk;
    for (const FileOutcome& o : outcomes)
        if (!o.result) status = kExitFileFailed;

    const bool several = std::count_if(outcomes.begin(), outcomes.end(),
                                       [](const FileOutcome& o) { return o.result.has_value(); }) > 1;
    const bool plot_sum = !plot_path.empty() && plot_path.find("{}") == std::string::npos && several;
    std::vector<SumGroup> sums;
    if (sum || plot_sum) sums = sum_outcomes(outcomes);

    if (format == "json") {
        if (!write_json(std::cout, outcomes, sum ? &sums : nullptr)) status = kExitFileFailed;
    } else {
        for (const FileOutcome& o : outcomes)
            if (!o.result) std::cerr << "imghist: " << display_text(o.file) << ": " << display_text(o.error) << '\n';
        if (format == "csv") write_csv(std::cout, outcomes, sum ? &sums : nullptr);
        else write_table(std::cout, outcomes, sum ? &sums : nullptr);
    }
    for (const std::string& w : warnings) std::cerr << "imghist: warning: " << display_text(w) << '\n';
    (void)stdout_failure();  // now, while errno still says why

    if (!plot_path.empty()) {
        const std::vector<SumGroup> no_sums;
        const std::vector<Chart> charts = plan_charts(plot_path, log, outcomes, plot_sum ? sums : no_sums);
        if (plot_sum && sums.size() > 1) {
            std::string list;
            for (const Chart& c : charts) list += (list.empty() ? "" : ", ") + display_text(c.path);
            std::cerr << "imghist: note: the files have " << sums.size() << " different layouts, so their sum is "
                      << sums.size() << " charts: " << list << '\n';
        }
        if (charts.empty()) {
            std::cerr << "imghist: plot: no file was read, so there is nothing to plot\n";
            status = kExitFileFailed;
        } else if (!draw_charts(charts, expanded.files)) {
            status = kExitFileFailed;
        }
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    if (is_decoder_process(argc, argv)) return run_decoder_process(argc, argv);
    int status = kExitFileFailed;
    try {
        status = run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "imghist: " << display_text(e.what()) << '\n';
    } catch (...) {
        std::cerr << "imghist: unexpected error\n";
    }
    // A report that did not reach stdout is a failure, whatever else went well.
    int failure = stdout_failure();
    if (failure == 0 && std::fclose(stdout) != 0) failure = errno != 0 ? errno : EIO;
    if (failure != 0) {
        std::cerr << "imghist: cannot write to stdout: " << std::strerror(failure) << '\n';
        if (status == kExitOk) status = kExitFileFailed;
    }
    return status;
}
