// The imghist command's options: their definitions (options.cpp) and help text (help_text.cpp),
// and the checks that turn what was typed into the run's settings (settle.cpp, with the value
// parsers of option_values.cpp; a bad value is a UsageError, before any file is read).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "decoder_process.hpp"
#include "imghist/request.hpp"
#include "imghist/exposure.hpp"
#include "imghist/result.hpp"
#include "imghist/io.hpp"
#include "io/reader_raw.hpp"

namespace imghist::cli {

// A bad option or value: exit status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// --exposure, --exposure-percentiles and --key as typed (imghist and imghist merge).
struct ExposureOptions {
    bool on = false;
    std::string percentiles = "50:95";
    double key = 0.18;
};

// The options as typed, before they are checked.
struct CommandLine {
    std::vector<std::string> inputs;
    io::ReadOptions read_options{.camera_raw = true};  // counted per CFA channel by histogram_files
    DecoderSettings decoder_settings;
    std::string mode_text = "all", backend_name = "auto", device, range_text, weights_text = "rec709";
    std::string format = "table", plot_path, max_pixels_text, raw_text, files_from;
    std::string decode = "cpu";  // --decode: where JPEGs are decoded
    std::string roi_text, tiles_text;  // --roi X,Y,W,H and --tiles TX,TY
    std::string mask_path;             // --mask FILE
    std::optional<double> alpha_threshold;  // --alpha-threshold T
    std::string edges_text, ev_text;   // --edges E0,E1,... (or @FILE) and --ev LO:HI:BINS_PER_STOP
    ExposureOptions exposure;
    std::uint32_t bins = 0;
    bool bins_given = false;
    unsigned threads = 0;
    bool list = false, clamp = false, closed_top = false, alpha = false, sum = false, sum_only = false, log = false;
    bool progress_on = false, progress_off = false;
    bool mpi = false;  // --mpi: one rank of mpirun (imghist::mpi)
    bool no_extremes = false;  // --no-extremes
    bool no_sample_stats = false;  // --no-sample-stats
    std::string percentiles_text;  // --percentiles P,P,...
};

// Defines every option of `app` (and its help text) to fill `line`.
void add_options(CLI::App& app, CommandLine& line);

// The options of `imghist merge REPORT...` (merge.hpp).
struct MergeLine {
    std::vector<std::string> inputs;
    std::string format = "table";
    ExposureOptions exposure;
};

// The checked --exposure settings, or none without --exposure; throws UsageError.
std::optional<ExposureSettings> exposure_settings(const ExposureOptions& options);

// Defines the options of `imghist merge` (and its help text) to fill `line`.
void add_merge_options(CLI::App& app, MergeLine& line);

// What the checked options ask for.
struct Settings {
    Request request;
    io::ReadOptions read_options;
    std::optional<io::RawLayout> raw;  // --raw: every input is headerless pixels of this layout
    std::optional<ExposureSettings> exposure;  // --exposure
    // --mask: the mask's pixels, which request.mask views (shared, so copies keep them alive).
    std::shared_ptr<const io::LoadedImage> mask;
};

// Checks the options beyond their syntax; throws UsageError.
Settings settle(const CommandLine& line);

}  // namespace imghist::cli
