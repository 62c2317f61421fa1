// The pieces of the imghist._imghist module, one file each (module.cpp puts them together).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"
#include "imghist/io.hpp"

namespace imghist::python {

namespace nb = nanobind;

// Any array, read-only or not, of any dtype, on the host or a CUDA device: the checks are ours,
// so that a wrong dtype is named instead of converted (view.cpp).
using Array = nb::ndarray<nb::ro>;

// Where an image's pixels are: host memory, or CUDA device memory counted on `stream`.
struct Placement {
    bool cuda = false;
    int device = 0;             // the CUDA device ordinal (DLPack's device_id)
    std::uintptr_t stream = 1;  // DLPack's stream value: 1 legacy default, 2 per-thread default, else a handle
    bool operator==(const Placement&) const = default;
};

// One image, checked: the array (which keeps the pixels alive), a view of its pixels (no copy;
// for a CUDA array, `data` is a device pointer) and where they are.
struct Pixels {
    Array array;
    ImageView view;
    Placement where;
};
// `stream`: the stream= keyword (None: the producer's current stream). TypeError /
// InvalidArgument naming what is wrong.
Pixels pixels_of(nb::handle image, nb::handle stream, const std::optional<std::string>& layout);

// The array behind `image`, zero-copy. A CUDA array is exported with DLPack's stream protocol,
// so that its producer makes it ready on the stream it is counted on (cuda_arrays.cpp).
Array array_of(nb::handle image, nb::handle stream, Placement& where);
// A view of the array's pixels (no copy): its dtype, shape and row stride give the format.
ImageView view_of(const Array& array, const std::optional<std::string>& layout);
// The format of an (H, W) or (H, W, C) array of `channels` samples of `sample` (gray, RGB, RGBA).
PixelFormat natural_format(SampleType sample, std::size_t channels);

// cuda_arrays.cpp: DLPack devices, streams, and counting where a CUDA array lives.
// A CUDA array's device (from __dlpack_device__, without exporting); nullopt for host arrays;
// InvalidArgument for other devices.
std::optional<Placement> cuda_placement_of(nb::handle image);
// The DLPack capsule of a CUDA array, exported for the stream it is counted on (set in `where`).
nb::object export_cuda(nb::handle image, Placement& where, nb::handle stream);
// Where an array imported some other way (a DLPack capsule) lives; `stream` as for pixels_of.
Placement placement_of_imported(const Array& array, nb::handle stream);
// Throws InvalidArgument unless a stream= keyword is None (host arrays have no stream).
void check_no_stream(nb::handle stream);
// histogram(backend=...) for an image at `where`: "auto" means "cuda" for a CUDA array, and any
// backend other than "cuda" is refused for it (it would need a host copy).
std::string backend_for(const Placement& where, const std::string& backend);
// The engine's device option for an image at `where`: a CUDA array's own device unless named.
std::string device_for(const Placement& where, nb::handle device);
// Throws InvalidArgument unless `engine` can count images at `where`.
void check_engine_for(const Engine& engine, const Placement& where);
// Counts CUDA images on where.stream with the CUDA engine, without a host copy. Called without the GIL.
std::vector<Result> compute_on_cuda(Engine& engine, const std::vector<ImageView>& views, const Request& request,
                                    const Placement& where);

// The keywords of histogram() as a Request (request.cpp); throws InvalidArgument.
struct RequestArgs {
    std::string mode = "all";
    nb::object bins, range;  // bins: None, an integer or a 1-D sequence of edges
    nb::object ev;           // None or (lo, hi, bins_per_stop): EV edges (ev_edges)
    bool clamp = false;
    bool closed_top = false;  // BinSpec::closed_top: numpy's closed last bin
    nb::object weights;
    bool alpha = false;
    nb::object roi, tiles;  // None, (x, y, width, height) and None, (tx, ty)
    nb::object mask, alpha_threshold;  // None, a 2-D uint8 / bool array and None, a number
    bool extremes = false;             // Request::value_extremes
    nb::object sample_stats;           // False, True or percentiles: Request::sample_stats and percentiles
};
// mask=, viewed as gray8 (view.cpp): a host array's own bytes, or a packed copy of a strided
// one; or a CUDA array in place (device_view), for images on the same CUDA device.
struct MaskPixels {
    Array array;
    std::vector<std::uint8_t> packed;  // the copy, when the array's pixels are not packed
    ImageView view;
    std::optional<DeviceImage> device_view;  // a CUDA mask (then `view` is unset)
};
// `image_where`: where the images the mask goes with live (null: host memory, e.g. files). A
// CUDA mask is exported for the images' stream.
std::shared_ptr<const MaskPixels> mask_of(nb::handle mask, const Placement* image_where);
// A Request and the memory its mask views, which must outlive every count of the request.
struct CheckedRequest {
    Request request;
    std::shared_ptr<const MaskPixels> mask_pixels;
};
CheckedRequest request_of(const RequestArgs& args, const Placement* image_where = nullptr);
// The keywords of histogram() in a call (engine.cpp).
RequestArgs args_of(const std::string& mode, nb::object bins, nb::object range, nb::object ev, bool clamp, bool closed_top,
                    nb::object weights, bool alpha, nb::object roi, nb::object tiles, nb::object mask,
                    nb::object alpha_threshold, bool extremes, nb::object sample_stats);
// EngineOptions::device from None, an index or a name substring.
std::string device_of(nb::handle device);
// A str's text in UTF-8; InvalidArgument naming `what` for another type, or for a str that has
// none (one holding a lone surrogate, as os.fsdecode makes of bytes that are not UTF-8).
std::string utf8_of(nb::handle str, const std::string& what);

// A new numpy array that owns `values` (moved to the heap, freed with the array). Returned as an
// object: the getters' default policy (reference_internal) does not apply to an owned array.
template <class T>
nb::object numpy_array(std::vector<T> values, std::initializer_list<std::size_t> shape) {
    auto* owned = new std::vector<T>(std::move(values));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    return nb::cast(nb::ndarray<nb::numpy, T>(owned->data(), shape, owner), nb::rv_policy::take_ownership);
}
// Counts (uint64, shape (channels, bins)) of one result (result.cpp).
nb::object counts_of(const Result& result);

// CLI JSON schema of one result (docs/cli.md), as Python objects, and back (result_dict.cpp).
nb::dict result_to_dict(const Result& result);
Result result_from_dict(nb::handle dict);
nb::dict stats_dict(const ChannelHistogram& channel);
// A number as the command line's JSON writes it: integral values as ints (result_dict.cpp).
nb::object json_number(double v);
// Sample statistics (sample_stats.cpp): .sample_stats() of a channel (None without them) and of
// a result, normalize(), and the "sample_stats" member of to_dict / from_dict.
nb::object sample_stats_of(const ChannelHistogram& channel);
nb::dict sample_stats_of(const Result& result);
nb::dict normalize_of(const Result& result, std::optional<double> scale);
void put_sample_stats(nb::dict& channel_dict, const ChannelHistogram& channel);
void sample_stats_from(nb::handle channel_dict, ChannelHistogram& channel, const std::string& name);
// The pixels a result counted: its region, or the whole image for a result without one.
Region region_of(const Result& result);
// A sum of files (histogram_files(), the command line's "sums") has no size: its files' sizes differ.
inline bool is_sum(const Result& result) { return result.width == 0 || result.height == 0; }

// How a file is read: the keywords of imghist.read() and the file functions (files.cpp).
struct FileReadArgs {
    std::optional<std::uint64_t> max_pixels;  // None: no limit
    bool untrusted_readers = false;           // refused: only the command line runs them
    bool subtract_black = false;              // camera raw: value less its channel's black level
    std::optional<std::uint32_t> ev_from_white;  // camera raw: EV bins per stop from white
};
// files.cpp: an image file read into host memory by imghist::io; where the package has no file
// reader, read_file raises imghist.Error saying so. Camera raw files are read per 2 x 2 block.
using ImageFile = std::shared_ptr<const io::LoadedImage>;
ImageFile read_file(nb::handle path, const FileReadArgs& read);
// InvalidArgument where ev_from_white is given with bins, range or ev (it sets the bins).
void check_file_bins(const RequestArgs& args, const FileReadArgs& read);
// The file's histograms as histogram_files counts them: a camera raw file per sensor channel,
// with the reader's notes first. Called without the GIL, holding the engine.
Result count_file(Engine& engine, const io::LoadedImage& image, const Request& request);

// camera_raw.cpp: imghist.CameraRawHistogram, the histograms of camera raw files, whose R, G1, B,
// G2 the result holds as R, G, B, A (io.hpp, SensorChannels).
struct CameraRawResult : Result {
    std::optional<io::SensorChannels> sensor;  // a file's levels and clipping; a sum has none
};
// A Histogram, or a CameraRawHistogram for camera raw files (one file's with its `sensor`).
nb::object histogram_object(Result result, bool camera_raw, const std::optional<io::SensorChannels>& sensor);
// The command line's JSON "camera_raw" object of one file (docs/cli.md).
nb::dict sensor_dict(const io::SensorChannels& sensor);
void bind_camera_raw(nb::module_& m);

// The C++ engine of an imghist.Engine, for a caller that runs without the GIL and holds `lock`
// (the engine's one-call-at-a-time lock) while it uses it (engine.cpp).
Engine& engine_of(nb::handle py_engine, std::unique_lock<std::mutex>& lock);
extern const char* const kHistogramFileDocText;
void bind_files(nb::module_& m);
// cli_rules.cpp: the command line's directory walk and progress line (with the file reader).
void bind_cli_rules(nb::module_& m);

// A message of the library (UTF-8, except the bytes of a file it may quote) as a str: bytes that
// are not UTF-8 as \xNN escapes, the way the command line shows them (module.cpp).
nb::str message_str(const std::string& text);

void bind_errors(nb::module_& m);
void bind_result(nb::module_& m);
void bind_engine(nb::module_& m);
void bind_batch(nb::module_& m);

// histogram_batch (batch.cpp): the images of a batch as views into arrays kept alive here.
struct BatchImages {
    std::vector<Array> arrays;
    std::vector<ImageView> views;
    Placement where;  // every image's (they must agree)
};
// `images`: a sequence of arrays of one format, or one (N, H, W) / (N, H, W, C) array.
BatchImages batch_images_of(nb::handle images, nb::handle stream, const std::optional<std::string>& layout);
// One engine, one call where the backend has a batch call (CUDA), else image by image.
// Called without the GIL.
std::vector<Result> count_batch(Engine& engine, const BatchImages& images, const Request& request);
// An imghist.HistogramBatch of the results.
nb::object batch_object(std::vector<Result> results);
extern const char* const kHistogramBatchDoc;

// planes.cpp: layout="chw", channel-first (C, H, W) and (N, C, H, W) arrays, counted plane by
// plane where they lie; the planes' histograms are the channels the (H, W, C) image gives.
struct PlaneImages {
    BatchImages planes;  // every image's channels, image by image, each an (H, W) gray view
    std::size_t images = 0, channels = 0;
    PixelFormat format = PixelFormat::gray8;  // the format of the same image in (H, W, C)
    bool batch = false;                       // an (N, C, H, W) array
};
bool is_channel_first(const std::optional<std::string>& layout);
// `batch`: an (N, C, H, W) array, else one (C, H, W) image. InvalidArgument naming the shape.
PlaneImages planes_of(nb::handle images, nb::handle stream, bool batch);
// Whether counting needs a pixel's samples together (the luminance, an alpha threshold): then
// interleaved_copy() gives the packed (H, W, C) copy of a host array, and refuses a CUDA one.
bool needs_interleaved(const Request& request, std::size_t channels);
nb::object interleaved_copy(nb::handle images, const Placement& where);
// One Result per image, as count_batch gives them for (H, W, C) images. Called without the GIL.
std::vector<Result> count_planes(Engine& engine, const PlaneImages& planes, const Request& request);

}  // namespace imghist::python
