// imghist: histograms of image files, from the command line.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

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
  Regular files whose content is PNG, JPEG, TIFF, OpenEXR, PNM/PFM, HDR, BMP, WebP or GIF
  (the reader is picked by the content, not the name). Other formats need --untrusted-readers
  (less safe readers). FIFOs, devices and sockets are refused. Directories are searched
  recursively for files with those formats' extensions (hidden files skipped).

Output formats (--format):
  table  per-file channel summary: pixels, mean, stddev, median, p1, p99, min, max (in bins),
         shares clipped in the first/last bin, NaN/below/above counts, notes. Errors on stderr.
  json   one document: {"imghist": VERSION, "results": [...], "errors": [...], "sum": {...}}
         (schema in docs/cli.md; "sum" only with --sum).
  csv    file,channel,bin,lo,hi,count: one row per file, channel and bin, plus rows with
         bin = nan, below, above. --sum adds rows with file "(sum)".

Plot (--plot FILE.png or FILE.svg):
  R, G and B curves over the luminance as a filled area, clipped shares at both ends.
  One file: its histogram. Several files: their sum, or one chart each when FILE contains {}
  (replaced by the file's name without extension). --log uses a log10 counts axis.

Exit status:
  0  every file was read and counted
  1  at least one file failed (each failure is one line naming the file and the reason; the
     other files are still reported), or the plot could not be written
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

Inputs expand_inputs(const std::vector<std::string>& args, bool untrusted_readers) {
    Inputs in;
    for (const std::string& arg : args) {
        std::error_code ec;
        if (!fs::is_directory(arg, ec)) {
            in.files.push_back(arg);
            continue;
        }
        std::vector<std::string> found;
        std::string walk_error;
        fs::recursive_directory_iterator it(arg, fs::directory_options::skip_permission_denied, ec);
        if (ec) walk_error = ec.message();
        for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            const fs::directory_entry& entry = *it;
            if (hidden(entry.path())) {
                if (entry.is_directory(ec)) it.disable_recursion_pending();
                continue;
            }
            std::error_code fe;
            if (entry.is_regular_file(fe) && has_image_extension(entry.path(), untrusted_readers))
                found.push_back(entry.path().string());
        }
        if (ec && walk_error.empty()) walk_error = ec.message();
        std::sort(found.begin(), found.end());
        if (!walk_error.empty())
            in.failed.push_back({arg, std::nullopt, {}, "cannot read directory: " + walk_error});
        else if (found.empty())
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
                devs.push_back({{"id", d.id}, {"name", d.name}, {"gpu", d.is_gpu},
                                {"available", d.available}, {"note", d.note}});
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
            std::cout << "    --device " << d.id << "  " << d.name << "  (" << (d.is_gpu ? "GPU" : "CPU")
                      << ", " << (d.available ? "available" : "unavailable") << ")";
            if (!d.note.empty()) std::cout << "  " << d.note;
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
           "  \u00B7  " + describe_layout(r.channels.front().layout) + "  \u00B7  " + r.backend;
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
        std::cerr << "\r\033[K[" << count_ << "/" << total_ << "] " << name << std::flush;
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
    app.footer(kFooter);
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
    app.add_flag("--sum", sum, "Also report one histogram merged over all inputs");
    app.add_option("--plot", plot_path, "Draw the histogram chart to FILE.png or FILE.svg ({} = file name)")
        ->type_name("FILE");
    app.add_flag("--log", log, "Log-scale counts axis in the plot");
    app.add_option("-j,--threads", threads, "Worker threads (default: all cores)")->check(CLI::Range(1u, 4096u))->type_name("N");
    app.add_option("--max-pixels", max_pixels_text,
                   "Refuse images with more pixels, checked from the header before reading "
                   "(default 268435456 = 16384 x 16384; K/M/G suffixes; 0 = no limit)")
        ->type_name("N");
    app.add_flag("--untrusted-readers", read_options.untrusted_readers,
                 "Also read formats outside the trusted list (TGA, IFF, DPX, PSD, ...) with "
                 "OpenImageIO's less safe readers, chosen by extension; directories then take "
                 "their extensions too. Use only on files you trust");
    bool progress_flag = false;
    auto* progress_opt = app.add_flag("--progress,!--no-progress", progress_flag, "Show progress on stderr (default: when stderr is a terminal and more than 4 files)");
    app.set_version_flag("-V,--version", version_text());

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? kExitOk : kExitUsage;
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
        if (inputs.empty()) throw UsageError("no input files (try --help)");
    } catch (const std::exception& e) {
        std::cerr << "imghist: " << e.what() << "\nRun with --help for more information.\n";
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

    // The first engine is made here, so a bad backend or device is a usage error up front.
    std::vector<std::unique_ptr<Engine>> engines(workers);
    try {
        engines[0] = imghist::create_engine(backend_name, engine_options);
    } catch (const std::exception& e) {
        std::cerr << "imghist: " << e.what() << "\nRun with --list-backends to see what is available.\n";
        return kExitUsage;
    }
    const std::string resolved_backend(engines[0]->backend_name());

    std::vector<FileOutcome> outcomes(total);
    const bool show_progress = progress_opt->count()
                                   ? progress_flag
                                   : (::isatty(STDERR_FILENO) && total > kProgressThreshold);
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
        for (std::size_t i; (i = next.fetch_add(1)) < total;) {
            FileOutcome& o = outcomes[i];
            o.file = expanded.files[i];
            try {
                LoadedImage image = read_image(o.file, read_options);
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
    SumOutcome summed;
    if (sum || plot_sum) summed = sum_outcomes(outcomes);

    if (format == "json") {
        write_json(std::cout, outcomes, sum ? &summed : nullptr);
    } else {
        for (const FileOutcome& o : outcomes)
            if (!o.result) std::cerr << "imghist: " << o.file << ": " << o.error << '\n';
        if (format == "csv") write_csv(std::cout, outcomes, sum ? &summed : nullptr);
        else write_table(std::cout, outcomes, sum ? &summed : nullptr);
    }
    for (const std::string& w : warnings) std::cerr << "imghist: warning: " << w << '\n';
    if ((sum && format == "csv") || (plot_sum && !sum))
        for (const auto& [file, why] : summed.excluded)
            std::cerr << "imghist: " << file << ": left out of the sum: " << why << '\n';
    std::cout.flush();

    if (!plot_path.empty()) {
        try {
            if (plot_path.find("{}") != std::string::npos) {
                for (const FileOutcome& o : outcomes) {
                    if (!o.result) continue;
                    PlotOptions po{fs::path(o.file).filename().string(),
                                   subtitle_for(*o.result, std::string(format_info(o.result->format).name)), log};
                    write_plot(replace_all(plot_path, "{}", stem_of(o.file)), *o.result, po);
                }
            } else if (plot_sum) {
                if (!summed.result) throw std::runtime_error("no file was read, so there is nothing to plot");
                Result r = *summed.result;
                PlotOptions po{"sum of " + std::to_string(summed.files) + " files",
                               std::to_string(summed.pixels) + " pixels  \u00B7  " + summed.format + "  \u00B7  " +
                                   describe_layout(r.channels.front().layout) + "  \u00B7  " + r.backend,
                               log};
                write_plot(plot_path, r, po);
            } else {
                const auto it = std::find_if(outcomes.begin(), outcomes.end(),
                                             [](const FileOutcome& o) { return o.result.has_value(); });
                if (it == outcomes.end()) throw std::runtime_error("no file was read, so there is nothing to plot");
                PlotOptions po{fs::path(it->file).filename().string(),
                               subtitle_for(*it->result, std::string(format_info(it->result->format).name)), log};
                write_plot(plot_path, *it->result, po);
            }
        } catch (const std::exception& e) {
            std::cerr << "imghist: plot: " << e.what() << '\n';
            status = kExitFileFailed;
        }
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "imghist: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "imghist: unexpected error\n";
    }
    return kExitFileFailed;
}
