#include "options.hpp"

#include "help_text.hpp"
#include "io/ev_from_white.hpp"

namespace imghist::cli {

namespace {

void add_exposure_options(CLI::App& app, ExposureOptions& exposure, const std::string& what) {
    app.add_flag("--exposure", exposure.on, what);
    app.add_option("--exposure-percentiles", exposure.percentiles,
                   "The samples --exposure averages, as percentiles of the luminance")
        ->capture_default_str()->type_name("LOW:HIGH");
    app.add_option("--key", exposure.key, "The key value --exposure brings the mean to (mid grey)")
        ->capture_default_str()->type_name("VALUE");
}

void add_counting_options(CLI::App& app, CommandLine& line) {
    app.add_option("inputs", line.inputs, "Image files and directories (searched recursively); - reads paths from stdin, one a line")
        ->type_name("PATH...");
    app.add_option("--files-from", line.files_from, "Also take the paths listed in FILE, one a line (- = stdin; empty lines skipped)")
        ->type_name("FILE");
    app.add_option("--mode", line.mode_text, "Histograms to compute: rgb (R, G, B), luma (Y), or all")
        ->check(CLI::IsMember({"rgb", "luma", "all"}))->capture_default_str();
    app.add_option("-b,--backend", line.backend_name, "Backend: auto, cpu, reference, opencl, vulkan, cuda (see --list-backends)")
        ->capture_default_str();
    app.add_flag("--list-backends", line.list, "List every compiled backend, its devices and whether they are available");
    app.add_option("-d,--device", line.device, "Device for the backend: an id from --list-backends or a name substring");
    // The callback records that --bins was given: its default depends on the sample type.
    app.add_option_function<std::uint32_t>("--bins", [&line](std::uint32_t n) { line.bins = n, line.bins_given = true; },
                                           "Number of bins (default: 256; 257 over [0, 1] for float)")
        ->check(CLI::Range(1u, 1u << 20))->type_name("N");
    app.add_option("--range", line.range_text, "Binned range [LO, HI), e.g. 0:256, 0:1 or -1:1")
        ->type_name("LO:HI");
    app.add_flag("--clamp", line.clamp, "Fold values outside --range (or the edges) into the first and last bins");
    app.add_flag("--closed-top", line.closed_top,
                 "Close the last bin as numpy.histogram does: --bins 10 --range 0:255 counts 255 in the last bin "
                 "(as edge bins, at most 4096)");
    app.add_option("--edges", line.edges_text,
                   "Edge bins [E_k, E_k+1) instead of --bins/--range: 2 to 4097 increasing numbers, or @FILE")
        ->type_name("E0,E1,...");
    app.add_option("--ev", line.ev_text,
                   "Log2 (EV) bins: edges 2^(LO + k / BINS_PER_STOP) from 2^LO to 2^HI, rounded to fp32 "
                   "(e.g. --ev=-16:16:8; at most 4096 bins)")
        ->type_name("LO:HI:BINS_PER_STOP");
    add_exposure_options(app, line.exposure,
                         "Report the auto-exposure of the luminance: log2(key) - its mean EV between the percentiles "
                         "(counts --ev=-16:16:8 unless --edges or --ev is given)");
    app.add_option("--luma-weights", line.weights_text, "rec709, rec601, rec2020, or WR,WG,WB integers summing to 10000")
        ->capture_default_str();
    app.add_flag("--alpha", line.alpha, "Also count the alpha channel (A)");
    app.add_option("--roi", line.roi_text,
                   "Count only the W x H pixels from column X, row Y (an image it does not fit is that file's error)")
        ->type_name("X,Y,W,H");
    app.add_option("--tiles", line.tiles_text,
                   "Also one histogram per tile of a TX x TY grid (the last column and row take the remainder; "
                   "per-tile counts in --format json)")
        ->type_name("TX,TY");
    app.add_flag("--no-extremes", line.no_extremes,
                 "Skip the pass that finds each channel's finite min and max and its +Inf/-Inf counts "
                 "(half and float files)");
    app.add_flag("--no-sample-stats", line.no_sample_stats,
                 "Skip the statistics of the samples themselves (exact count, sum, mean, stddev, min, max, "
                 "percentiles); the table then shows the bins' statistics (bin centres)");
    app.add_option("--percentiles", line.percentiles_text,
                   "The sample percentiles to report, in percent (default 1,50,99; exact order statistics, "
                   "docs/semantics.md)")
        ->type_name("P,P,...");
    app.add_option("--mask", line.mask_path,
                   "Count only pixels where FILE (one 8-bit channel, each input's size) is not 0")
        ->type_name("FILE");
    app.add_option("--alpha-threshold", line.alpha_threshold,
                   "Count only pixels whose alpha is above T (file units: 0-255, 0-65535 or float; colour as stored)")
        ->type_name("T");
}

void add_output_options(CLI::App& app, CommandLine& line) {
    app.add_option("-f,--format", line.format, "Report format: table, json, jsonl (JSON Lines: one line per file) or csv")
        ->check(CLI::IsMember({"table", "json", "jsonl", "csv"}))->capture_default_str();
    app.add_flag("--sum", line.sum, "Also report the inputs merged: one histogram per layout (channels and bins)");
    app.add_flag("--sum-only", line.sum_only, "Report only the sums and the errors, no per-file results");
    app.add_flag("--mpi", line.mpi,
                 "Run as one rank of mpirun: the files are split over the ranks, rank 0 writes the report of them "
                 "all (per-file results gathered there; with --sum-only only the sums, reduced, and the errors; "
                 "docs/scale-out.md; needs a build with MPI)");
    app.add_option("--plot", line.plot_path, "Draw the histogram chart to FILE.png or FILE.svg ({} = file name)")
        ->type_name("FILE");
    app.add_flag("--log", line.log, "Log-scale counts axis in the plot");
    app.add_option("-j,--threads", line.threads, "Decode threads, and the engine's threads (default: all cores)")->check(CLI::Range(1u, 4096u))->type_name("N");
}

void add_reading_options(CLI::App& app, CommandLine& line) {
    app.add_option("--max-pixels", line.max_pixels_text,
                   "Refuse images with more pixels, checked from the header before reading "
                   "(default 268435456 = 16384 x 16384; K/M/G suffixes; 0 = no limit)")
        ->type_name("N");
    app.add_option("--decode-timeout", line.decoder_settings.timeout_seconds,
                   "Seconds a file may take to decode before it is reported as an error (0 = no limit)")
        ->check(CLI::NonNegativeNumber)->capture_default_str()->type_name("SECONDS");
    app.add_option("--decode", line.decode,
                   "Where JPEGs are decoded: cpu, or gpu (nvImageCodec on the cuda backend, in batches, "
                   "counted there; needs pip install nvidia-nvimgcodec-cu13 nvidia-nvjpeg, found through "
                   "IMGHIST_NVIMGCODEC_LIBRARY or the library's build-time path). Other files, and JPEGs the GPU "
                   "does not take (CMYK, 12-bit), go to the CPU reader; the JSON says which decoder read each "
                   "file. GPU-decoded samples can differ from the CPU's by 1 in a few in 100,000 (another IDCT)")
        ->check(CLI::IsMember({"cpu", "gpu"}))->capture_default_str()->type_name("WHERE");
    app.add_flag("--decode-in-process", line.decoder_settings.in_process,
                 "Decode in this process, not in decoder processes: no crash isolation, no time "
                 "limit (for debugging and profiling)");
    app.add_flag("--untrusted-readers", line.read_options.untrusted_readers,
                 "Also read formats outside the trusted list (TGA, IFF, DPX, PSD, ...) with "
                 "OpenImageIO's less safe readers, chosen by extension; directories then take "
                 "their extensions too. Use only on files you trust");
    app.add_flag("--subtract-black", line.read_options.subtract_black, "Camera raw files: count each value less its channel's black level (0 at or below it)");
    app.add_option("--ev-from-white", line.read_options.ev_from_white,
                   "Camera raw files: count on an EV axis from the white level, N bins per stop over the 16 "
                   "stops below it (0 EV = white)")
        ->check(CLI::Range(1u, io::kMaxEvFromWhitePerStop))->type_name("N");
    app.add_option("--raw", line.raw_text,
                   "Read every input as headerless native-endian pixels (read in this process: no "
                   "decoder); FORMAT is one of " + io::raw_format_names() + "; STRIDE = bytes per row")
        ->type_name("FORMAT:WIDTHxHEIGHT[:STRIDE]");
    // Two flags: CLI11 shows one negatable flag as "--progress,--no-progress{false}".
    app.add_flag("--progress", line.progress_on,
                 "Show progress on stderr: files done, files/s, MB/s, errors, ETA. On a terminal one line "
                 "redrawn in place and cleared at the end; else a plain line a second and a summary line "
                 "(default: on when stderr is a terminal and more than 4 files)");
    app.add_flag("--no-progress", line.progress_off, "Never show progress");
}

}  // namespace

void add_options(CLI::App& app, CommandLine& line) {
    app.footer(command_help_footer());
    app.get_formatter()->column_width(34);
    add_counting_options(app, line);
    add_output_options(app, line);
    add_reading_options(app, line);
}

void add_merge_options(CLI::App& app, MergeLine& line) {
    app.footer(merge_help_footer());
    app.get_formatter()->column_width(34);
    app.add_option("inputs", line.inputs, "Reports of earlier runs: imghist --format json or --format jsonl output")
        ->type_name("REPORT...")->required();
    app.add_option("-f,--format", line.format, "Report format of the merged sums: table, json, jsonl or csv")
        ->check(CLI::IsMember({"table", "json", "jsonl", "csv"}))->capture_default_str();
    add_exposure_options(app, line.exposure,
                         "Report the auto-exposure of each sum's luminance, as imghist --exposure does (the inputs must "
                         "have been counted in EV bins or edges over positive values)");
}

}  // namespace imghist::cli
