// The checks that turn the options as typed into the run's settings (options.hpp, settle).
#include <cmath>

#include "imghist/imghist.hpp"
#include "option_values.hpp"
#include "options.hpp"
#include "plot.hpp"
#include "tile_bound.hpp"

namespace imghist::cli {

namespace {

constexpr std::uint64_t kDefaultMaxPixels = std::uint64_t(1) << 28;  // 16384 x 16384

Request request_for(const CommandLine& line) {
    Request request;
    request.mode = *parse_mode(line.mode_text);
    request.weights = LumaWeights::parse(line.weights_text);
    request.count_alpha = line.alpha;
    request.value_extremes = !line.no_extremes;
    request.sample_stats = !line.no_sample_stats;
    if (!line.percentiles_text.empty()) {
        if (line.no_sample_stats) throw UsageError("--percentiles needs the sample statistics (drop --no-sample-stats)");
        request.percentiles = parse_percentiles(line.percentiles_text);
    }
    if (line.bins_given) request.bins.bins = line.bins;
    if (!line.range_text.empty()) request.bins.range = parse_range(line.range_text);
    request.bins.clamp = line.clamp;
    request.bins.closed_top = line.closed_top;
    if (line.closed_top && line.range_text.empty() && line.edges_text.empty() && line.ev_text.empty())
        throw UsageError("--closed-top closes the last bin at the range's top: give --range, --edges or --ev");
    if (!line.edges_text.empty() + !line.ev_text.empty() > 1)
        throw UsageError("--edges and --ev both give the edges: use one");
    if ((!line.edges_text.empty() || !line.ev_text.empty()) && (line.bins_given || !line.range_text.empty()))
        throw UsageError("--edges and --ev give the bins and range: drop --bins and --range");
    if (line.read_options.ev_from_white &&
        (line.bins_given || !line.range_text.empty() || !line.edges_text.empty() || !line.ev_text.empty()))
        throw UsageError("--ev-from-white gives the bins of camera raw files: drop --bins, --range, --edges and --ev");
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
