// Histograms of many image files (part of imghist::io): files decoded on a pool of threads,
// counted by one engine, each file's result handed over as it is done, in input order, and the
// exact sums. A file that cannot be read or counted is reported and left out of the sums; it
// never stops the run. Memory is bounded by the decoded images held at once, not by the number
// of files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "imghist/engine.hpp"
#include "imghist/io.hpp"

namespace imghist::io {

// One file's outcome.
struct FileHistogram {
    std::size_t index = 0;         // position in the list of paths
    std::string path;
    std::optional<Result> result;  // empty when the file failed
    std::string error;             // why it failed, one line without the path; empty otherwise
    std::uint64_t file_bytes = 0;  // the file's size on disk (0 when unknown)
    // Which decoder read it: "cpu", or "gpu" (DatasetOptions::decode). A file the GPU could not
    // decode goes to the CPU reader; then decoder is "cpu" and gpu_fallback says why.
    std::string decoder = "cpu";
    std::string gpu_fallback;
    // A camera raw file's levels and clipping (its result's channels are R, G1, B, G2).
    std::optional<SensorChannels> sensor;
};

enum class Decode {
    cpu,  // every file decoded by the CPU reader on the decode threads
    // JPEGs decoded on the GPU (nvImageCodec) and counted there, in batches; needs an engine of
    // the cuda backend and a build with GPU decoding (gpu_decode_available()). Other files,
    // and JPEGs the GPU does not take (CMYK, 12-bit), go to the CPU reader.
    gpu,
};

// Reads one file on a decode thread, as read_image does (a ReadError, or another exception,
// fails that file only).
using FileReader = std::function<LoadedImage(const std::string& path)>;

struct DatasetOptions {
    unsigned decode_threads = 0;  // threads decoding files; 0: one per core
    std::size_t max_pending = 0;  // decoded images held at most; 0: two per decode thread
    ReadOptions read;             // max_pixels, untrusted_readers (of the default reader)
    // Makes the reader of each decode thread, all before any file is read. A reader is called
    // by its thread only and may keep state from file to file (the command line's own a
    // decoder process each); it is destroyed after every image it read, which may be destroyed
    // on the calling thread. Empty: read_image with `read`, into buffers reused across files.
    // Decode::gpu makes one more, for the calling thread.
    std::function<FileReader()> make_reader;
    Decode decode = Decode::cpu;
    std::size_t gpu_batch = 0;    // Decode::gpu: files per decode and count launch; 0: 128
};

struct DatasetSummary {
    // The exact sum of the counted files: one Result per kind of histogram (files whose
    // channels or bins differ, such as 8-bit and 16-bit files, cannot be added), in the order
    // each kind first appeared.
    std::vector<Result> sums;
    // Whether each sum is of camera raw files (channels R, G1, B, G2, held as R, G, B, A): those
    // are never added to other images' histograms.
    std::vector<bool> camera_raw_sums;
    std::size_t files = 0, counted = 0, failed = 0;
    std::uint64_t bytes = 0;  // file_bytes of every file, counted or not
};

// Whether Decode::gpu can run here (a build with the cuda backend and nvImageCodec's headers,
// and nvImageCodec loads); `why` gets the reason when it cannot.
bool gpu_decode_available(std::string* why = nullptr);

// Reads and counts every file of `paths` with `request` on `engine` (which is used by the
// calling thread only, as engine.hpp asks). `on_file` is called on the calling thread for each
// file in input order, as soon as it and every file before it are done; an exception from it
// stops the run (the decoders are joined) and is rethrown. A result's notes are the reader's,
// then the engine's. Bad luminance weights throw InvalidArgument before any file is read, as
// does Decode::gpu with an engine other than cuda's (BackendUnavailable where GPU decoding
// cannot run); bins or a range that a file's format cannot take
// fail that file (the engine's InvalidArgument, as its error).
DatasetSummary histogram_files(Engine& engine, const std::vector<std::string>& paths, const Request& request,
                               const std::function<void(FileHistogram&)>& on_file,
                               const DatasetOptions& options = {});

}  // namespace imghist::io
