#include "options.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "imghist/imghist.hpp"
#include "option_file.hpp"
#include "plot.hpp"
#include "tile_bound.hpp"

namespace imghist::cli {

namespace {

constexpr std::uint64_t kDefaultMaxPixels = std::uint64_t(1) << 28;  // 16384 x 16384

// The help text after the options, in three parts around the lists that come from the code
// (the reader's trusted formats, the library's pixel formats), so the help cannot drift from them.
const char* kFooterCounting = R"HELP(
What it counts:
  Pixels as the file stores them: 8-bit stays 8-bit (256 bins, bin = value), 16-bit stays
  16-bit (256 bins, bin = value >> 8), half/float use 257 bins over [0, 1] (bin 256 holds 1.0
  and above; NaN, values below 0 and above 1 are also reported as nan/below/above). Colour is
  not premultiplied by alpha and not colour-converted (CMYK is refused). Channels are taken by
  name: R,G,B (and A), or Y for gray; others (Z, AOVs) are left out with a note. Indexed
  images are expanded to RGB. --bins/--range replace the default bins; values outside the
  range are counted as below/above and binned only with --clamp.

Edge bins, EV bins and exposure:
  --edges E0,E1,...,EN counts N bins [E_k, E_k+1) (1 to 4096 bins, strictly increasing;
  @FILE reads the edges from FILE, separated by commas, spaces or newlines). Float samples
  are compared with the edges rounded to fp32, integers exactly (v >= ceil(E_k)).
  --ev LO:HI:BINS_PER_STOP makes log2 edges 2^(LO + k / BINS_PER_STOP) from 2^LO to 2^HI,
  each rounded once to fp32: zero and negative values count as below (they have no EV).
  --exposure adds the auto-exposure of the luminance (Y, or a gray image's channel) to the
  table and JSON: the mean EV of the samples between two percentiles (--exposure-percentiles,
  default 50:95) and the exposure log2(--key) - mean that brings it to the key value (default
  0.18). Without --edges or --ev it counts --ev -16:16:8. docs/semantics.md has the formula.
  Values are taken as linear light: 8- and 16-bit files usually hold display-encoded (sRGB)
  values (a note says so); linearise them first, e.g.
  oiiotool in.jpg --colorconvert sRGB linear -d float -o in.exr

Inputs:
  Regular files whose content is a trusted format (the reader is picked by the content,
  not the name): )HELP";

const char* kFooterInputs = R"HELP(.
  Other formats need --untrusted-readers (less safe readers). FIFOs, devices and sockets
  are refused. Directories are searched recursively for files with those formats'
  extensions (hidden files skipped).
  -- ends the options, so a file name that starts with '-' goes after it:
  imghist -- -name.png
  - (and --files-from FILE, - = stdin) reads paths one a line, taken like arguments; empty
  lines are skipped, and a path that fails is reported with its line ("line 7 of stdin").
  A file named - is ./-.

Raw pixels (--raw FORMAT:WIDTHxHEIGHT[:STRIDE]):
  Every input is read as headerless native-endian pixels of FORMAT, WIDTH x HEIGHT, rows
  STRIDE bytes apart (default: packed). The file must hold exactly HEIGHT rows of STRIDE bytes
  (the last row's padding may be left out). Raw files are read by imghist itself, in this
  process: there is no decoder, so no decoder process. Directories are not searched.
  FORMAT: )HELP";

const char* kFooterRest = R"HELP(

Regions and tiles:
  --roi X,Y,W,H counts only the W x H pixels from column X, row Y; a file it does not fit
  inside is that file's error (never cropped), the other files are still counted.
  --tiles TX,TY also counts one histogram per tile of a TX x TY grid over those pixels:
  every tile is floor(W / TX) x floor(H / TY), the last column and row take the remainder.
  The table lists each tile's mean per channel; --format json has every tile's counts
  ("region", "tile_grid", "tiles": docs/cli.md). CSV and the plot show the whole region.

Masks and alpha:
  --mask FILE counts only the pixels where FILE, a one-channel 8-bit image (gray8) of each
  input's own size, is not 0; a file of another size is that file's error. Masked-out pixels
  count nowhere (not as NaN, below, above or clipped). --alpha-threshold T counts only pixels
  whose alpha is above T, in the file's own units (0-255, 0-65535, or the float value); NaN
  alpha is never above. Colour is counted as stored: imghist never premultiplies it (PNG and
  TIFF are read straight; EXR colour is premultiplied in the file itself). A file without
  alpha is that file's error. With either, the table's "counted:" line and the JSON's
  "counted_pixels" say how many pixels were counted (per tile too).

Output formats (--format):
  table  per-file channel summary: pixels, mean, stddev, median, p1, p99, min, max (in bins
         and values), the shares of samples at the extreme values (clip: 0 / 255, 0 / 65535;
         floats: <= 0 / >= 1, display black and white, which scene-referred (HDR) data passes
         unclipped), NaN/below/above counts, notes. Errors on stderr.
  json   one document: {"schema": 2, "imghist": VERSION, "results": [...], "errors": [...],
         "sums": [...]} (schema in docs/cli.md; "sums" only with --sum).
  jsonl  JSON Lines: one object per file as it is done (a result, or {"file", "error"}), then
         with --sum one line {"sum": {...}} per layout.
  csv    image,format,channel,kind,bin,lo,hi,count: one row per file, channel and bin (kind
         bin), then rows of kind below, above and nans (bin -1). --sum adds rows with image
         "(sum 1)", "(sum 2)"..., one set per layout (per entry of the JSON's "sums").
  --sum merges files of the same channels and bins; files of another layout (16-bit among
  8-bit, gray among RGB) get a sum of their own, each listing its files. --sum-only prints
  only the sums and the errors.
  Each file is reported as soon as it and the files before it are done, and not kept, so
  memory does not grow with the number of files.
  imghist merge REPORT... sums the json/jsonl reports of earlier runs, layout by layout, so a
  dataset can be counted in pieces (imghist merge --help).
  Names and messages in the table, CSV, on stderr and in plot titles are escaped: \\ \n \t
  \xHH for control and non-UTF-8 bytes, \uHHHH for invisible controls (docs/cli.md).

Plot (--plot FILE.png or FILE.svg):
  R, G and B curves over the luminance as a filled area, clipped shares at both ends.
  One file: its histogram. Several files: their sum (one chart per layout, FILE-FORMATS.png,
  when they differ), or one chart each when FILE contains {} (replaced by the file's name
  without extension). A chart never replaces another chart of the same run or an input.
  --log uses a log10 counts axis.

Decoding:
  Files are decoded in decoder processes, one per decode thread, so a file that crashes or
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
  find data -name '*.jpg' | imghist - --format jsonl --sum > run.jsonl
                                            a dataset, one line per file, then the sum
  imghist merge run1.jsonl run2.json        the sums of two earlier runs, summed
  imghist --bins 64 --range 0:4 --clamp render.exr   64 bins over [0, 4), outliers clamped
  imghist --mode luma --ev=-10:6:4 --exposure hdr.exr  EV histogram and auto-exposure
  imghist --raw bgr8:1920x1080 frame.bin    a raw frame in OpenCV's native order
  imghist --list-backends                   compiled backends and their devices
  imghist --backend opencl --device 0:1 big.tif

Environment:
  IMGHIST_OPENCL_DEVICE, IMGHIST_VULKAN_DEVICE, IMGHIST_CUDA_DEVICE pick a device when
  --device is not given.
)HELP";

// imghist merge --help, after the options.
const char* kMergeFooter = R"HELP(
What it reads:
  Reports of `imghist --format json` (one document, schema 2) and of `imghist --format jsonl`
  (JSON Lines), in any mix. From each input it takes the sums when the run has them (--sum or
  --sum-only: "sums" in a document, the {"sum": ...} lines in JSON Lines), else every per-file
  result, so no file is counted twice within one input. The errors an input reports are
  reported again (exit status 1).

What it does:
  Adds the counts exactly (64-bit: bins, nan, below, above, the clipped counts, the pixels),
  then recomputes every statistic (mean, percentiles, clipped shares) from the summed counts;
  the statistics stored in the inputs are not read. Inputs of different layouts (8-bit and
  16-bit, gray and RGB, other --bins or --range) are never added together: each layout gets a
  sum of its own, each listing its files, as --sum does. The output is the --sum-only report
  in --format (table, json, jsonl, csv), so a merged JSON can be merged again. --exposure adds
  each sum's auto-exposure (inputs counted with --ev or --edges), as imghist --exposure does.
  A file named in several inputs is counted once per input and named in a warning on stderr
  (it was probably counted twice).
  An input that cannot be read, is not JSON, is a report of another tool or schema, or lacks
  a field is an error naming the input and the field: exit status 1 and nothing on stdout.

Examples:
  imghist --format jsonl --sum-only part1/ > p1.jsonl
  imghist --format json --sum part2/ > p2.json
  imghist merge p1.jsonl p2.json              the table of the whole dataset
  imghist merge --format json p1.jsonl p2.json > all.json
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

std::pair<double, double> parse_range(const std::string& text, const std::string& what = "--range") {
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

Request request_for(const CommandLine& line) {
    Request request;
    request.mode = *parse_mode(line.mode_text);
    request.weights = LumaWeights::parse(line.weights_text);
    request.count_alpha = line.alpha;
    // The ranks' results travel in imghist::mpi's own encoding, which has no value extremes yet.
    request.value_extremes = !line.no_extremes && !line.mpi;
    if (line.bins_given) request.bins.bins = line.bins;
    if (!line.range_text.empty()) request.bins.range = parse_range(line.range_text);
    request.bins.clamp = line.clamp;
    if (!line.edges_text.empty() + !line.ev_text.empty() > 1)
        throw UsageError("--edges and --ev both give the edges: use one");
    if ((!line.edges_text.empty() || !line.ev_text.empty()) && (line.bins_given || !line.range_text.empty()))
        throw UsageError("--edges and --ev give the bins and range: drop --bins and --range");
    if (!line.edges_text.empty()) request.bins.edges = parse_edges(line.edges_text);
    if (!line.ev_text.empty()) request.bins.edges = parse_ev(line.ev_text);
    if (line.exposure.on && request.bins.edges.empty()) {
        if (line.bins_given || !line.range_text.empty())
            throw UsageError("--exposure needs EV bins (--ev) or --edges over positive values, not --bins/--range");
        request.bins.edges = ev_edges(-16, 16, 8);
    }
    if (line.exposure.on && request.mode == Mode::rgb)
        throw UsageError("--exposure reads the luminance: use --mode luma or all");
    if (!line.roi_text.empty()) {
        const auto v = parse_integers(line.roi_text, 4, "--roi", "X,Y,W,H");
        if (v[2] == 0 || v[3] == 0) throw UsageError("--roi: W and H must be at least 1 (got '" + line.roi_text + "')");
        request.roi = Region{v[0], v[1], v[2], v[3]};
    }
    if (!line.tiles_text.empty()) {
        const auto v = parse_integers(line.tiles_text, 2, "--tiles", "TX,TY");
        if (v[0] == 0 || v[1] == 0) throw UsageError("--tiles: TX and TY must be at least 1 (got '" + line.tiles_text + "')");
        if (request.roi && (v[0] > request.roi->width || v[1] > request.roi->height))
            throw UsageError("--tiles " + line.tiles_text + ": more tiles than the --roi's " +
                             std::to_string(request.roi->width) + " x " + std::to_string(request.roi->height) + " pixels");
        request.tiles = {v[0], v[1]};
    }
    // The ranks' results travel in imghist::mpi's own encoding, which has no regions yet.
    if (line.mpi && (request.roi || request.tiles.count() != 1))
        throw UsageError("--roi and --tiles do not work with --mpi yet (the ranks' results carry no regions)");
    // Catches what is wrong for every sample type (bins, range, edges) before any file is read.
    try {
        (void)resolve_layout(SampleType::f32, request.bins);
    } catch (const InvalidArgument& e) {
        if (request.bins.edges.empty()) throw;
        throw UsageError((line.ev_text.empty() ? "--edges: " : "--ev: ") + std::string(e.what()));
    }
    check_tile_counters(request, line.tiles_text);
    return request;
}

void check_plot_options(const CommandLine& line) {
    if (!line.plot_path.empty()) {
        if (!plot_path_supported(line.plot_path))
            throw UsageError("--plot: the file name must end in .png or .svg: " + line.plot_path);
        if (!plot_available())
            throw UsageError("--plot is not available: this imghist was built without cairo "
                             "(install libcairo2-dev and rebuild)");
    }
    if (line.log && line.plot_path.empty()) throw UsageError("--log only changes the plot: add --plot FILE");
}

// --mask and --alpha-threshold: the mask file is read here, once, for every input.
void settle_selection(const CommandLine& line, Settings& settings) {
    if (line.mask_path.empty() && !line.alpha_threshold) return;
    const char* names = !line.mask_path.empty() && line.alpha_threshold ? "--mask and --alpha-threshold"
                        : line.alpha_threshold                         ? "--alpha-threshold"
                                                                       : "--mask";
    if (line.mpi) throw UsageError(std::string(names) + " do not work with --mpi yet (the ranks' results carry no counted pixels)");
    if (line.decode == "gpu")
        throw UsageError(std::string(names) + " count images in host memory: drop --decode gpu");
    if (line.alpha_threshold) {
        if (std::isnan(*line.alpha_threshold)) throw UsageError("--alpha-threshold: T must be a number, not NaN");
        settings.request.alpha_threshold = *line.alpha_threshold;
    }
    if (line.mask_path.empty()) return;
    try {
        settings.mask = std::make_shared<const io::LoadedImage>(
            read_one_file(line.mask_path, settings.read_options, line.decoder_settings));
    } catch (const io::ReadError& e) {
        throw UsageError("--mask " + line.mask_path + ": " + e.what());
    }
    const PixelFormat format = settings.mask->view.format;
    const bool more_channels = io::left_channels_out(*settings.mask);  // gray + alpha is read as gray8
    if (format != PixelFormat::gray8 || more_channels)
        throw UsageError("--mask " + line.mask_path + ": a mask must be one 8-bit channel (gray8), this file is " +
                         (more_channels ? "gray8 with more channels (alpha)" : std::string(format_info(format).name)) +
                         ": save it as 8-bit grayscale");
    settings.request.mask = settings.mask->view;
}

}  // namespace

void add_options(CLI::App& app, CommandLine& line) {
    app.footer(kFooterCounting + io::trusted_format_names() + kFooterInputs + io::raw_format_names() + kFooterRest);
    app.get_formatter()->column_width(34);
    add_counting_options(app, line);
    add_output_options(app, line);
    add_reading_options(app, line);
}

std::optional<ExposureSettings> exposure_settings(const ExposureOptions& options) {
    if (!options.on) return std::nullopt;
    ExposureSettings exposure;
    const auto [low, high] = parse_range(options.percentiles, "--exposure-percentiles");
    exposure.low_percent = low;
    exposure.high_percent = high;
    exposure.key = options.key;
    try {
        exposure.validate();
    } catch (const InvalidArgument& e) {
        throw UsageError(std::string("--exposure: ") + e.what());
    }
    return exposure;
}

void add_merge_options(CLI::App& app, MergeLine& line) {
    app.footer(kMergeFooter);
    app.get_formatter()->column_width(34);
    app.add_option("inputs", line.inputs, "Reports of earlier runs: imghist --format json or --format jsonl output")
        ->type_name("REPORT...")->required();
    app.add_option("-f,--format", line.format, "Report format of the merged sums: table, json, jsonl or csv")
        ->check(CLI::IsMember({"table", "json", "jsonl", "csv"}))->capture_default_str();
    add_exposure_options(app, line.exposure,
                         "Report the auto-exposure of each sum's luminance, as imghist --exposure does (the inputs must "
                         "have been counted in EV bins or edges over positive values)");
}

Settings settle(const CommandLine& line) {
    Settings settings;
    settings.request = request_for(line);
    settings.read_options = line.read_options;
    settings.read_options.max_pixels = kDefaultMaxPixels;
    if (!line.max_pixels_text.empty()) settings.read_options.max_pixels = parse_count(line.max_pixels_text);
    if (!line.raw_text.empty()) {
        try {
            settings.raw = io::parse_raw_layout(line.raw_text);
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--raw: ") + e.what());
        }
    }
    check_plot_options(line);
    settings.exposure = exposure_settings(line.exposure);
    settle_selection(line, settings);
    if (line.progress_on && line.progress_off) throw UsageError("--progress and --no-progress contradict each other");
    if (line.inputs.empty() && line.files_from.empty())
        throw UsageError("no input files (try --help; a file name that starts with '-' goes after --)");
    return settings;
}

}  // namespace imghist::cli
