// imghist: histograms of image files, from the command line.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "charts.hpp"
#include "decoder_process.hpp"
#include "imghist/imghist.hpp"
#include "inputs.hpp"
#include "interrupt.hpp"
#include "merge.hpp"
#include "options.hpp"
#include "output.hpp"
#include "plot.hpp"
#include "imghist/dataset.hpp"
#include "imghist/io.hpp"
#include "io/reader_internal.hpp"
#include "io/reader_raw.hpp"
#include "progress.hpp"
#include "read_summary.hpp"
#include "sink.hpp"
#ifdef IMGHIST_CLI_WITH_MPI
#include "imghist/mpi.hpp"
#endif

#ifndef IMGHIST_CLI_VERSION
#define IMGHIST_CLI_VERSION "0.0.0"
#endif

namespace fs = std::filesystem;
using namespace imghist;
using namespace imghist::cli;

namespace {

constexpr int kExitOk = 0, kExitFileFailed = 1, kExitUsage = 2;
constexpr std::size_t kProgressThreshold = 4;  // automatic progress above this many files

std::string version_text() {
    std::string backends;
    for (const Backend* b : imghist::backends()) backends += (backends.empty() ? "" : ", ") + std::string(b->name());
    return std::string("imghist ") + IMGHIST_CLI_VERSION + " (library " + std::string(imghist::version()) +
           ")\n" + io::reader_version() + (plot_available() ? ", plots with cairo" : ", plots disabled (no cairo)") +
           "\nbackends: " + backends;
}

// The backend `auto` takes (mirrors imghist::create_engine) without creating an engine.
std::string auto_choice() {
    for (const Backend* b : imghist::backends())
        for (const DeviceInfo& d : b->devices())
            if (d.is_gpu && d.available) return std::string(b->name());
    return "cpu";
}

bool any_available(const std::vector<DeviceInfo>& devices) {
    return std::any_of(devices.begin(), devices.end(), [](const DeviceInfo& d) { return d.available; });
}

nlohmann::ordered_json backend_json(const Backend& b) {
    nlohmann::ordered_json jb;
    jb["name"] = std::string(b.name());
    jb["summary"] = std::string(b.summary());
    const auto devices = b.devices();
    auto devs = nlohmann::ordered_json::array();
    // Driver strings are escaped like every message, so they cannot break the JSON.
    for (const DeviceInfo& d : devices)
        devs.push_back({{"id", display_text(d.id)}, {"name", display_text(d.name)}, {"gpu", d.is_gpu},
                        {"available", d.available}, {"note", display_text(d.note)}});
    jb["available"] = any_available(devices);
    jb["devices"] = std::move(devs);
    return jb;
}

void print_backend(const Backend& b) {
    const auto devices = b.devices();
    std::cout << "\n" << b.name() << (any_available(devices) ? "" : "  [unavailable]") << "  " << b.summary() << '\n';
    if (devices.empty()) std::cout << "    (no devices)\n";
    for (const DeviceInfo& d : devices) {
        std::cout << "    --device " << display_text(d.id) << "  " << display_text(d.name) << "  ("
                  << (d.is_gpu ? "GPU" : "CPU")
                  << ", " << (d.available ? "available" : "unavailable") << ")";
        if (!d.note.empty()) std::cout << "  " << display_text(d.note);
        std::cout << '\n';
    }
}

int list_backends(const std::string& format) {
    const std::string chosen = auto_choice();
    if (format == "json" || format == "jsonl") {
        nlohmann::ordered_json doc;
        doc["imghist"] = std::string(imghist::version());
        doc["auto"] = chosen;
        auto list = nlohmann::ordered_json::array();
        for (const Backend* b : imghist::backends()) list.push_back(backend_json(*b));
        doc["backends"] = std::move(list);
        std::cout << doc.dump(format == "json" ? 1 : -1) << '\n';  // JSON Lines: one line
        return kExitOk;
    }
    std::cout << "Compiled backends (auto picks: " << chosen << "):\n";
    for (const Backend* b : imghist::backends()) print_backend(*b);
    return kExitOk;
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

// The reader of one decode thread: raw files are read here (there is no decoder), the others by
// the thread's own decoder (a decoder process, or in-process with --decode-in-process).
io::FileReader make_reader(const Settings& settings, DecoderLauncher& launcher) {
    if (settings.raw)
        return [&settings](const std::string& file) { return io::read_raw(file, *settings.raw, settings.read_options); };
    auto decoder = std::make_shared<FileDecoder>(launcher);
    return [decoder, &settings](const std::string& file) { return decoder->read(file, settings.read_options); };
}

// Progress is shown when asked for, or on a terminal for more than a few files; in place on a
// terminal, else as plain lines (a log).
ProgressMode progress_mode(const CommandLine& line, std::size_t total) {
    const bool terminal = ::isatty(STDERR_FILENO);
    const bool shown = line.progress_on || (!line.progress_off && terminal && total > kProgressThreshold);
    return !shown ? ProgressMode::off : terminal ? ProgressMode::terminal : ProgressMode::log;
}

int usage_error(const std::string& message, const char* hint = "Run with --help for more information.") {
    std::cerr << "imghist: " << display_text(message) << '\n' << hint << '\n';
    return kExitUsage;
}

// The end of the report and the charts; returns the exit status.
int finish(const CommandLine& line, Sink& sink, const Inputs& expanded) {
    int status = sink.failed() ? kExitFileFailed : kExitOk;
    const bool several = sink.counted() > 1;
    const bool plot_sum = !line.plot_path.empty() && line.plot_path.find("{}") == std::string::npos && several;
    if (!sink.close()) status = kExitFileFailed;
    (void)stdout_failure();  // now, while errno still says why
    if (const std::string summary = sink.tally().summary(); expanded.walked && !summary.empty())
        std::cerr << "imghist: " << summary << '\n';
    const std::vector<SumGroup> no_sums;
    if (!line.plot_path.empty() &&
        !plot_outcomes(line.plot_path, line.log, sink.kept(), plot_sum ? sink.sums() : no_sums, expanded.files))
        status = kExitFileFailed;
    return status;
}

#ifdef IMGHIST_CLI_WITH_MPI
// --mpi --sum-only: this rank counts its share (imghist::mpi); rank 0 writes the report of every
// rank's files: the sums, reduced over the ranks, then the errors gathered there in input order.
// The exit status is the same on every rank.
int count_over_ranks(const CommandLine& line, const Settings& settings, const Inputs& expanded, Engine& engine,
                     const io::DatasetOptions& pipeline) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const mpi::DistributedSummary summary =
        mpi::histogram_files(MPI_COMM_WORLD, engine, expanded.files, settings.request, {}, pipeline);
    const std::vector<mpi::FileSummary> files = mpi::gather_files(MPI_COMM_WORLD, summary.mine, 0);
    int status = summary.failed > 0 || !expanded.failed.empty() ? kExitFileFailed : kExitOk;
    if (rank != 0) return status;
    const std::unique_ptr<Report> report = make_report(line.format, std::cout, false, settings.exposure);
    for (const FileOutcome& o : expanded.failed) (void)report->add(o);
    std::vector<std::vector<SumMember>> members(summary.sums.size());
    std::vector<std::uint64_t> pixels(summary.sums.size(), 0);
    std::vector<std::vector<PixelFormat>> formats(summary.sums.size());
    for (const mpi::FileSummary& f : files) {
        if (f.sum < 0) {
            FileOutcome o;
            o.file = f.path;
            o.error = f.error;
            if (const std::string where = expanded.origin(f.index); !where.empty()) o.error += " (" + where + ")";
            (void)report->add(o);
            continue;
        }
        const auto g = std::size_t(f.sum);
        members[g].push_back(SumMember{f.path, kNoResult});
        pixels[g] += std::uint64_t(f.width) * f.height;
        formats[g].push_back(f.format);
    }
    SumGroups sums;
    for (std::size_t g = 0; g < summary.sums.size(); ++g)
        sums.add(summary.sums[g], std::move(members[g]), pixels[g], formats[g]);
    if (!report->finish(&sums.groups(), nullptr)) status = kExitFileFailed;
    (void)stdout_failure();
    return status;
}

// MPI_Init for the run, MPI_Finalize after it; an error on one rank aborts them all rather than
// leave the others waiting in a collective.
struct MpiSession {
    MpiSession(int& argc, char**& argv) { MPI_Init(&argc, &argv); }
    ~MpiSession() {
        if (std::uncaught_exceptions() > 0) MPI_Abort(MPI_COMM_WORLD, kExitFileFailed);
        MPI_Finalize();
    }
};
#endif

// The run's one engine, made before any file is read so that a bad backend or device, or a
// --decode gpu that cannot run, is a usage error up front: null once that error is written.
std::unique_ptr<Engine> make_run_engine(const CommandLine& line, const Settings& settings, unsigned cores) {
    EngineOptions engine_options;
    engine_options.device = line.device;
    engine_options.threads = cores;  // one engine counts every file, on this thread
    const bool gpu_decode = line.decode == "gpu";
    std::unique_ptr<Engine> engine;
    try {
        engine = imghist::create_engine(gpu_decode && line.backend_name == "auto" ? "cuda" : line.backend_name,
                                        engine_options);
    } catch (const std::exception& e) {
        usage_error(e.what(), "Run with --list-backends to see what is available.");
        return nullptr;
    }
    if (!gpu_decode) return engine;
    std::string why;
    const std::string refusal = engine->backend_name() != "cuda" ? "--decode gpu needs --backend cuda"
                                : settings.raw ? "--decode gpu decodes JPEGs; --raw files have nothing to decode"
                                : !io::gpu_decode_available(&why) ? "--decode gpu cannot run here: " + why
                                                                  : "";
    if (refusal.empty()) return engine;
    usage_error(refusal);
    return nullptr;
}

// One counted file as the report takes it; a failure names where its path came from.
FileOutcome outcome_of(io::FileHistogram& f, bool gpu_decode, const Inputs& expanded) {
    FileOutcome o;
    o.file = std::move(f.path);
    if (gpu_decode) {
        o.decoder = f.decoder;
        o.gpu_fallback = f.gpu_fallback;
    }
    if (f.result) {
        o.notes = f.result->notes;
        o.result = std::move(f.result);
        o.sensor = f.sensor;
    } else {
        o.error = std::move(f.error);
        if (const std::string where = expanded.origin(f.index); !where.empty()) o.error += " (" + where + ")";
    }
    return o;
}

// Reads and counts every input, reporting each as it is done; returns the exit status.
int count_and_report(const CommandLine& line, const Settings& settings) {
    Inputs expanded;
    try {
        expanded = expand_inputs(line.inputs, line.files_from, settings.read_options.untrusted_readers, !settings.raw);
    } catch (const std::runtime_error& e) {
        return usage_error(e.what());
    }
    const std::size_t total = expanded.files.size();
    if (total == 0 && expanded.failed.empty()) return usage_error("no input files: the lists of paths are empty");
    const unsigned cores = line.threads ? line.threads : std::max(1u, std::thread::hardware_concurrency());
    const unsigned decoders = unsigned(std::max<std::size_t>(1, std::min<std::size_t>(cores, total)));
    const unsigned reader_threads = std::max(1u, cores / decoders);
    io::configure_reader_threads(reader_threads);
    DecoderSettings decoder_settings = line.decoder_settings;
    decoder_settings.reader_threads = reader_threads;
    if (settings.raw) decoder_settings.in_process = true;  // raw files have no decoder: no launcher either
    decoder_settings.load_oiio_first = std::any_of(expanded.files.begin(), expanded.files.end(), [](const std::string& f) {
        return !io::reading::decoded_without_oiio_by_extension(f);
    });
    DecoderLauncher decoder_launcher(decoder_settings);

    const bool gpu_decode = line.decode == "gpu";
    std::unique_ptr<Engine> engine = make_run_engine(line, settings, cores);
    if (!engine) return kExitUsage;
    io::DatasetOptions pipeline;
    pipeline.decode_threads = decoders;
    pipeline.max_pending = std::size_t(4) * decoders;
    pipeline.make_reader = [&] { return make_reader(settings, decoder_launcher); };
    if (gpu_decode) pipeline.decode = io::Decode::gpu;
    // --mpi with per-file results: every rank counts its share, rank 0 gathers every file's
    // result and reports them as one process would (the same report, sums and all).
    std::optional<std::vector<io::FileHistogram>> gathered;
#ifdef IMGHIST_CLI_WITH_MPI
    if (line.mpi && line.sum_only) return count_over_ranks(line, settings, expanded, *engine, pipeline);
    if (line.mpi) {
        std::vector<io::FileHistogram> mine;
        const mpi::DistributedSummary summary = mpi::histogram_files(
            MPI_COMM_WORLD, *engine, expanded.files, settings.request,
            [&](io::FileHistogram& f) { mine.push_back(std::move(f)); }, pipeline);
        gathered = mpi::gather_histograms(MPI_COMM_WORLD, mine, 0);
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank != 0) return summary.failed > 0 || !expanded.failed.empty() ? kExitFileFailed : kExitOk;
    }
#endif
    const std::unique_ptr<Report> report = make_report(line.format, std::cout, !line.sum_only, settings.exposure);
    Progress progress(progress_mode(line, total), total, std::cerr, [] { return terminal_width(STDERR_FILENO); });
    Sink sink(line, *report, std::cout, progress, ::isatty(STDOUT_FILENO), expanded.failed.size() + total);
    // Ctrl-C or SIGTERM: the report ends with what was done, and says so (docs/cli.md, "Interruption").
    const InterruptHandler on_signal([&](int signal) {
        progress.finish();
        const Interruption interruption = sink.close_interrupted(signal);
        std::cerr << "imghist: " << interruption_message(interruption) << '\n';
    });
    // Directories without images are reported first, then the files in input order.
    for (FileOutcome& o : expanded.failed) sink.take(o);
    const auto take = [&](io::FileHistogram& f) {
        FileOutcome o = outcome_of(f, gpu_decode, expanded);
        progress.done(o.file, f.file_bytes, !o.result);
        sink.take(o);
    };
    if (gathered) {
        for (io::FileHistogram& f : *gathered) take(f);
    } else {
        (void)io::histogram_files(*engine, expanded.files, settings.request, take, pipeline);
    }
    progress.finish();
    engine.reset();
    return finish(line, sink, expanded);
}

// imghist merge REPORT...: every input is read before anything is written, so a bad one leaves
// stdout empty.
int merge_reports(int argc, char** argv) {
    CLI::App app{"imghist merge: the JSON and JSON Lines reports of earlier imghist runs summed into one,\n"
                 "so a dataset can be counted in pieces.",
                 "imghist merge"};
    MergeLine line;
    add_merge_options(app, line);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help
        return usage_error(e.what(), "Run imghist merge --help for more information.");
    }
    std::optional<ExposureSettings> exposure;
    try {
        exposure = exposure_settings(line.exposure);
    } catch (const UsageError& e) {
        return usage_error(e.what(), "Run imghist merge --help for more information.");
    }
    MergedInputs merged;
    try {
        merged = read_merge_inputs(line.inputs);
    } catch (const MergeInputError& e) {
        std::cerr << "imghist merge: " << e.what() << '\n';
        return kExitFileFailed;
    }
    const std::unique_ptr<Report> report = make_report(line.format, std::cout, false, exposure);
    for (const FileOutcome& o : merged.errors) (void)report->add(o);
    int status = merged.errors.empty() ? kExitOk : kExitFileFailed;
    if (!report->finish(&merged.sums.groups(), nullptr)) status = kExitFileFailed;
    for (const std::string& w : merged.warnings) std::cerr << "imghist merge: warning: " << w << '\n';
    return status;
}

// The usage line names both commands: counting, and merging earlier reports.
class UsageWithMerge final : public CLI::Formatter {
public:
    std::string make_usage(const CLI::App* app, std::string name) const override {
        return CLI::Formatter::make_usage(app, std::move(name)) + "       imghist merge [OPTIONS] REPORT...\n";
    }
};

int run(int argc, char** argv) {
    // Only as the first argument: a file named merge elsewhere is still a file (or ./merge).
    if (argc > 1 && std::string_view(argv[1]) == "merge") return merge_reports(argc - 1, argv + 1);
    CLI::App app{"imghist: per-channel R, G, B and luminance histograms of image files, counted\n"
                 "the same way on every backend (CPU, OpenCL, Vulkan, CUDA).",
                 "imghist"};
    app.formatter(std::make_shared<UsageWithMerge>());
    CommandLine line;
    add_options(app, line);
    // Made when asked for: it names OpenImageIO's version, which loads its readers.
    app.set_version_flag("-V,--version", std::function<std::string()>(version_text));
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        // CLI11's message quotes the argument: escaped like every message on stderr.
        return usage_error(e.what());
    }
    if (line.list) return list_backends(line.format);
    Settings settings;
    try {
        settings = settle(line);
    } catch (const std::exception& e) {
        return usage_error(e.what());
    }
    if (line.mpi) {
#ifdef IMGHIST_CLI_WITH_MPI
        MpiSession session(argc, argv);
        return count_and_report(line, settings);
#else
        return usage_error("--mpi: this build has no MPI (configure with IMGHIST_MPI=ON and libopenmpi-dev)");
#endif
    }
    return count_and_report(line, settings);
}

}  // namespace

int main(int argc, char** argv) {
    if (is_decoder_process(argc, argv)) return run_decoder_process(argc, argv);
    watch_interrupting_signals();  // before any thread starts, so none takes the signals
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
