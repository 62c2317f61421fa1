// imghist.read() and imghist.histogram_file(): image files through imghist::io (include/imghist/io.hpp),
// where the package was built with it (OpenImageIO found); else both raise imghist.Error saying so.
#include "bindings.hpp"

#include <memory>

#if defined(IMGHIST_PYTHON_IO)
#include "imghist/dataset.hpp"
#include "imghist/io.hpp"
#include "io/ev_from_white.hpp"
#endif

namespace imghist::python {

namespace {

constexpr const char* kReadDoc = R"(The pixels of an image file, as a new numpy array in the file's own sample type.

path               the file (str, bytes or os.PathLike; a name that is not UTF-8 is opened by
                   its bytes, as os.fsencode gives them).
max_pixels         refuse images of more pixels than this, from the header, before decoding
                   (None: no limit).
untrusted_readers  must be False: OpenImageIO's readers imghist does not trust can crash the
                   process that decodes, so only the command line runs them, in processes of
                   their own (imghist --untrusted-readers); True raises imghist.InvalidArgument.
raw                True: read a camera raw file (DNG, CR2, NEF, ARW...) through LibRaw, as the
                   sensor stored it (no demosaicing, white balance or scaling), and return
                   (blocks, camera_raw): blocks a uint16 array (H / 2, W / 2, 4) of the mosaic's
                   2 x 2 blocks, its last axis the channels R, G1, B, G2 (G1 the green of the
                   red row), and camera_raw the imghist command's JSON "camera_raw" object
                   (pattern, bits, white_level, each channel's black_level, maximum, clipped,
                   underexposed; blocks, clipped_any, clipped_all). A file that is not camera
                   raw raises imghist.ReadError; so does a camera raw file read with raw=False.
subtract_black     with raw=True: each value less its channel's black level (0 at or below it).

Otherwise returns (H, W) for gray, (H, W, 3) RGB or (H, W, 4) RGBA; dtype uint8, uint16, float16 or
float32, as the file stores it (other integer and double samples are converted as the command
line does, docs/cli.md "Reading policy"). Alpha is straight (unassociated), indexed colour is
expanded to RGB, nothing is premultiplied or colour-converted. Raises imghist.ReadError (also
an OSError) naming what is wrong: a missing file, not an image, truncated or corrupt data, too
many pixels; imghist.InvalidArgument for a path holding a NUL byte.)";

constexpr const char* kHistogramFileDoc = R"(Histograms of an image file: imghist.read(path) counted by imghist.histogram().

The keywords are those of imghist.histogram() (mode, bins, range, ev, clamp, weights, alpha,
roi, tiles, mask, alpha_threshold, extremes, backend, device) and of imghist.read() (max_pixels,
untrusted_readers): a mask must be the file's size. The pixels are read
into host memory and counted there (a GPU backend copies them); no numpy array is made.
Returns an imghist.Histogram whose notes begin with the reader's; raises imghist.ReadError for
a file that cannot be read.

A camera raw file (DNG, CR2, NEF, ARW...) is counted as the imghist command counts it: per
colour filter position over the 2 x 2 blocks of the sensor's mosaic, in raw units, giving an
imghist.CameraRawHistogram (channels R, G1, B, G2, and camera_raw: the levels and clipping).
subtract_black=True counts each value less its channel's black level; ev_from_white=N counts
on an EV axis from the white level, N bins per stop (1 to 256) over the 16 stops below it
(then bins, range and ev must be left out). Both leave other files as they are.)";

// A path as the reader opens it: its bytes as the file system has them (os.fsencode), so a
// name that is not UTF-8 keeps its own. The C library ends a name at a NUL byte, so
// "x\0evil.png" would open "x": such a path is refused, as Python's own open() refuses it.
std::string path_bytes(nb::handle path) {
    nb::module_ os = nb::module_::import_("os");
    const nb::bytes encoded = nb::cast<nb::bytes>(os.attr("fsencode")(path));
    std::string bytes(encoded.c_str(), encoded.size());
    if (bytes.find('\0') != std::string::npos)
        throw InvalidArgument("the path " + nb::cast<std::string>(nb::repr(os.attr("fsdecode")(path))) +
                              " holds a NUL byte: no file has such a name");
    return bytes;
}

// A path as Python shows it (os.fsdecode: bytes that are not UTF-8 as surrogate escapes).
nb::object path_object(const std::string& bytes) {
    return nb::module_::import_("os").attr("fsdecode")(nb::bytes(bytes.data(), bytes.size()));
}

#if defined(IMGHIST_PYTHON_IO)
// The read keywords as io::ReadOptions. OpenImageIO's untrusted readers can corrupt the memory
// of the process that runs them, and Python decodes in its own: only the command line runs
// them, in decoder processes of their own. Camera raw files are read per 2 x 2 block.
io::ReadOptions read_options(const FileReadArgs& read) {
    if (read.untrusted_readers)
        throw InvalidArgument("untrusted_readers=True is refused in Python: those readers (OpenImageIO's IFF, "
                              "TGA and the like) can crash or corrupt the process that decodes, and Python decodes "
                              "in its own; the command line runs them in decoder processes of their own "
                              "(imghist --untrusted-readers FILE...), where a crash costs one file");
    if (read.ev_from_white && (*read.ev_from_white < 1 || *read.ev_from_white > io::kMaxEvFromWhitePerStop))
        throw InvalidArgument("ev_from_white must be None or a number of bins per stop from 1 to " +
                              std::to_string(io::kMaxEvFromWhitePerStop) + ", not " +
                              std::to_string(*read.ev_from_white));
    io::ReadOptions options;
    options.max_pixels = read.max_pixels.value_or(0);  // 0: no limit
    options.subtract_black = read.subtract_black;
    options.ev_from_white = read.ev_from_white.value_or(0);
    options.camera_raw = true;
    return options;
}

ImageFile load(nb::handle path, const FileReadArgs& read) {
    const std::string file = path_bytes(path);
    const io::ReadOptions options = read_options(read);
    nb::gil_scoped_release unlocked;  // decoding takes a while
    return std::make_shared<const io::LoadedImage>(io::read_image(file, options));
}

nb::dlpack::dtype dtype_of(SampleType s) {
    switch (s) {
        case SampleType::u8: return nb::dtype<std::uint8_t>();
        case SampleType::u16: return nb::dtype<std::uint16_t>();
        case SampleType::f16: return {std::uint8_t(nb::dlpack::dtype_code::Float), 16, 1};
        case SampleType::f32: return nb::dtype<float>();
    }
    throw InvalidArgument("internal error: a sample type without a dtype");
}

// The pixels of `image` as a numpy array that keeps the image alive.
nb::object array_of_image(ImageFile image) {
    const ImageView& v = image->view;
    const FormatInfo& fi = v.info();
    const std::size_t shape[3] = {v.height, v.width, std::size_t(fi.channels)};
    const std::size_t ndim = fi.channels == 1 ? 2 : 3;
    void* data = const_cast<std::byte*>(image->pixels.get());
    auto* owned = new ImageFile(std::move(image));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<ImageFile*>(p); });
    return nb::cast(nb::ndarray<nb::numpy>(data, ndim, shape, owner, nullptr, dtype_of(fi.sample)),
                    nb::rv_policy::take_ownership);
}

nb::object read(nb::handle path, std::optional<std::uint64_t> max_pixels, bool untrusted_readers, bool raw,
                bool subtract_black) {
    if (subtract_black && !raw) throw InvalidArgument("subtract_black=True reads camera raw files: give raw=True too");
    ImageFile image = load(path, FileReadArgs{max_pixels, untrusted_readers, subtract_black, std::nullopt});
    if (raw && !image->sensor)
        throw io::ReadError("raw=True reads camera raw files (DNG, CR2, NEF...), and this file is not one: read it "
                            "with raw=False");
    if (!raw && image->sensor)
        throw io::ReadError("camera raw file (" + std::string(image->sensor->pattern) +
                            " Bayer mosaic): read(path, raw=True) gives its sensor values, one pixel per 2 x 2 "
                            "block (R, G1, B, G2), and histogram_file(path) counts them per channel");
    if (!raw) return array_of_image(std::move(image));
    nb::dict camera_raw = sensor_dict(*image->sensor);
    return nb::make_tuple(array_of_image(std::move(image)), camera_raw);
}
// The engine of imghist.histogram_files (python/imghist/_files.py): the pipeline of
// dataset.hpp, without the GIL; on_file(index, path, Histogram or None, error or None, bytes)
// is called with it, in input order. Returns (sums, files, counted, failed, bytes).
nb::tuple histogram_files(nb::handle py_engine, nb::handle py_paths, nb::callable on_file,
                          const RequestArgs& args, unsigned decode_threads, std::size_t max_pending,
                          const FileReadArgs& read, const std::string& decode) {
    check_file_bins(args, read);
    const CheckedRequest checked = request_of(args);  // its mask is read by the pipeline's threads
    std::vector<std::string> paths;
    for (nb::handle path : py_paths) paths.push_back(path_bytes(path));
    io::DatasetOptions options;
    if (decode == "gpu") options.decode = io::Decode::gpu;
    else if (decode != "cpu") throw InvalidArgument("decode must be 'cpu' or 'gpu', not '" + decode + "'");
    options.decode_threads = decode_threads;
    options.max_pending = max_pending;
    options.read = read_options(read);
    std::unique_lock<std::mutex> lock;
    Engine& engine = engine_of(py_engine, lock);
    io::DatasetSummary summary;
    {
        nb::gil_scoped_release unlocked;
        lock.lock();
        summary = io::histogram_files(engine, paths, checked.request, [&](io::FileHistogram& f) {
            nb::gil_scoped_acquire held;
            nb::object result = f.result ? histogram_object(std::move(*f.result), f.sensor.has_value(), f.sensor) : nb::none();
            nb::object error = f.error.empty() ? nb::none() : nb::object(message_str(f.error));
            nb::object fallback = f.gpu_fallback.empty() ? nb::none() : nb::object(message_str(f.gpu_fallback));
            on_file(f.index, path_object(f.path), result, error, f.file_bytes, nb::str(f.decoder.c_str()), fallback);
        }, options);
        lock.unlock();
    }
    nb::list sums;
    for (std::size_t i = 0; i < summary.sums.size(); ++i)
        sums.append(histogram_object(std::move(summary.sums[i]), summary.camera_raw_sums[i], std::nullopt));
    return nb::make_tuple(sums, summary.files, summary.counted, summary.failed, summary.bytes);
}
#else
[[noreturn]] void no_reader() {
    throw Error("this imghist was built without imghist::io, its file reader (OpenImageIO and libtiff were not "
                "found when it was built: apt-get install libopenimageio-dev libtiff-dev, then reinstall)");
}
#endif

}  // namespace

void check_file_bins(const RequestArgs& args, const FileReadArgs& read) {
    if (read.ev_from_white && (!args.bins.is_none() || !args.range.is_none() || !args.ev.is_none()))
        throw InvalidArgument("ev_from_white gives the bins of camera raw files: leave out bins, range and ev");
}

#if defined(IMGHIST_PYTHON_IO)
ImageFile read_file(nb::handle path, const FileReadArgs& read) { return load(path, read); }
Result count_file(Engine& engine, const io::LoadedImage& image, const Request& request) {
    return io::count_loaded_image(engine, image, request);
}
#else
ImageFile read_file(nb::handle, const FileReadArgs&) { no_reader(); }
Result count_file(Engine&, const io::LoadedImage&, const Request&) { no_reader(); }
#endif

void bind_files(nb::module_& m) {
    using namespace nb::literals;
    m.def("_file_path", [](nb::handle path) { return path_object(path_bytes(path)); }, "path"_a,
          "A path (str, bytes or os.PathLike) as a str (os.fsdecode); InvalidArgument where it holds a NUL byte.");
#if defined(IMGHIST_PYTHON_IO)
    m.def("read", &read, "path"_a, nb::kw_only(), "max_pixels"_a = nb::none(), "untrusted_readers"_a = false,
          "raw"_a = false, "subtract_black"_a = false, kReadDoc);
    m.attr("has_file_reader") = true;
    m.def("_histogram_files", [](nb::handle engine, nb::handle paths, nb::callable on_file,
                                 const std::string& mode, nb::object bins, nb::object range, nb::object ev, bool clamp, bool closed_top,
                                 nb::object weights, bool alpha, nb::object roi, nb::object tiles, nb::object mask,
                                 nb::object alpha_threshold, bool extremes, nb::object sample_stats, unsigned decode_threads, std::size_t max_pending,
                                 std::optional<std::uint64_t> max_pixels, bool untrusted_readers, bool subtract_black,
                                 std::optional<std::uint32_t> ev_from_white, const std::string& decode) {
        return histogram_files(engine, paths, on_file,
                               args_of(mode, bins, range, ev, clamp, closed_top, weights, alpha, roi, tiles, mask, alpha_threshold, extremes, sample_stats),
                               decode_threads, max_pending, FileReadArgs{max_pixels, untrusted_readers, subtract_black, ev_from_white},
                               decode);
    }, "engine"_a, "paths"_a, "on_file"_a, nb::kw_only(), "mode"_a, "bins"_a.none(), "range"_a.none(), "ev"_a.none(), "clamp"_a, "closed_top"_a,
       "weights"_a.none(), "alpha"_a, "roi"_a.none(), "tiles"_a.none(), "mask"_a.none(),
       "alpha_threshold"_a.none(), "extremes"_a, "sample_stats"_a, "decode_threads"_a, "max_pending"_a, "max_pixels"_a.none(),
       "untrusted_readers"_a, "subtract_black"_a, "ev_from_white"_a.none(), "decode"_a, "The pipeline behind imghist.histogram_files (python/imghist/_files.py).");
    m.def("gpu_decode_available", [] {
        std::string why;
        const bool ok = io::gpu_decode_available(&why);
        return nb::make_tuple(ok, ok ? nb::none() : nb::object(message_str(why)));
    }, "(available, reason): whether histogram_files(..., decode='gpu') can run here, and why not.");
    m.attr("_reader_version") = io::reader_version();
#else
    m.def("read", [](nb::handle, std::optional<std::uint64_t>, bool, bool, bool) -> nb::object { no_reader(); }, "path"_a,
          nb::kw_only(), "max_pixels"_a = nb::none(), "untrusted_readers"_a = false, "raw"_a = false,
          "subtract_black"_a = false, kReadDoc);
    m.attr("has_file_reader") = false;
    m.def("_histogram_files", [](nb::args, nb::kwargs) -> nb::object { no_reader(); });
    m.def("gpu_decode_available", [] {
        return nb::make_tuple(false, "this imghist was built without imghist::io, its file reader");
    }, "(available, reason): whether histogram_files(..., decode='gpu') can run here, and why not.");
#endif
}

const char* const kHistogramFileDocText = kHistogramFileDoc;

}  // namespace imghist::python
