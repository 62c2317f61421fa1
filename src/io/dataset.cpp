// histogram_files (include/imghist/dataset.hpp): decoder threads fill a window of slots ahead
// of the calling thread, which counts the files in input order (with the cpu backend the
// decoders count them, and the calling thread takes their results in that order). A decoder
// takes file i only while i < next + window (next: the file the caller waits for), so at most
// `window` decoded images exist at once, whatever the number of files.
#include "imghist/dataset.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <cstdio>
#include <cstring>
#include <new>
#include <span>
#include <utility>
#include <thread>

#include "imghist/error.hpp"
#include "io/ev_from_white.hpp"
#include "io/pixel_pool.hpp"
#ifdef IMGHIST_IO_GPU_DECODE
#include "imghist/cuda_decode.hpp"
#endif

namespace imghist::io {

namespace {

// A decoded file, or why it could not be.
struct Decoded {
    std::optional<LoadedImage> image;
    std::vector<std::byte> encoded;  // Decode::gpu: a JPEG's bytes, for the GPU to decode
    std::string error;
    std::uint64_t file_bytes = 0;
    std::optional<Result> counted;  // counted by the decoder thread (count_decoded)
    std::optional<SensorChannels> sensor;
};

// Why a file failed, in a catch block: the reader's or the engine's one-line message; any other
// exception is a bug somewhere, said as such.
std::string failure_text() {
    try {
        throw;
    } catch (const ReadError& e) {
        return e.what();
    } catch (const imghist::Error& e) {
        return e.what();
    } catch (const std::bad_alloc&) {
        return "out of memory";
    } catch (const std::exception& e) {
        return std::string("unexpected error: ") + e.what();
    } catch (...) {
        return "unexpected error";
    }
}

void read_into(Decoded& d, const std::string& path, const FileReader& read) {
    try {
        d.image = read(path);
    } catch (...) {
        d.error = failure_text();
    }
}

Decoded decode(const std::string& path, const FileReader& read) {
    Decoded d;
    d.file_bytes = file_bytes(path);
    read_into(d, path, read);
    return d;
}

// Readers: the caller's, or read_image into the pool's buffers.
std::vector<FileReader> make_readers(std::size_t count, const DatasetOptions& options, PixelPool& buffers) {
    std::vector<FileReader> readers;
    for (std::size_t t = 0; t < count; ++t) {
        if (options.make_reader) readers.push_back(options.make_reader());
        else
            readers.push_back([&options, &buffers](const std::string& path) {
                return read_image(path, options.read, [&](std::size_t bytes) { return buffers.allocate(bytes); });
            });
    }
    return readers;
}

// Decode::gpu: a JPEG's bytes (the GPU decodes it), anything else decoded here. A file that
// cannot be read whole goes to the CPU reader, whose error names the problem.
Decoded read_for_gpu(const std::string& path, const FileReader& read) {
    Decoded d;
    d.file_bytes = file_bytes(path);
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        unsigned char magic[3] = {};
        const bool jpeg = std::fread(magic, 1, 3, f) == 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF;
        if (jpeg && d.file_bytes > 3) {
            try {
                d.encoded.resize(d.file_bytes);
                std::memcpy(d.encoded.data(), magic, 3);
                if (std::fread(d.encoded.data() + 3, 1, d.encoded.size() - 3, f) != d.encoded.size() - 3) d.encoded.clear();
            } catch (const std::bad_alloc&) {
                d.encoded.clear();
            }
        }
        std::fclose(f);
        if (!d.encoded.empty()) return d;
    }
    read_into(d, path, read);
    return d;
}

// Adds one counted file to the first sum of its kind that Result::can_merge accepts, or starts
// a sum. Camera raw files are a kind of their own: their R, G1, B, G2 are held as R, G, B, A, and
// an RGBA image's histograms must not be added to them.
void add_to_sums(DatasetSummary& summary, const FileHistogram& file) {
    const bool camera_raw = file.sensor.has_value();
    for (std::size_t i = 0; i < summary.sums.size(); ++i)
        if (summary.camera_raw_sums[i] == camera_raw && summary.sums[i].can_merge(*file.result)) {
            summary.sums[i].merge(*file.result);
            return;
        }
    Result first = *file.result;
    first.width = first.height = 0;  // a sum has no size
    summary.sums.push_back(std::move(first));
    summary.camera_raw_sums.push_back(camera_raw);
}

// The window of decoded files between the decoders and the caller.
class Window {
public:
    Window(std::size_t files, std::size_t size) : files_(files), slots_(size) {}

    // A decoder's next file, or nullopt when there is none left (or the run stopped).
    std::optional<std::size_t> take() {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return stopped_ || taken_ >= files_ || taken_ < next_ + slots_.size(); });
        if (stopped_ || taken_ >= files_) return std::nullopt;
        return taken_++;
    }
    void put(std::size_t i, Decoded d) {
        std::lock_guard lock(mutex_);
        slots_[i % slots_.size()] = std::move(d);
        ready_.notify_all();
    }
    // Waits for file i (the caller's next) and frees its slot for the decoders.
    Decoded get(std::size_t i) {
        std::unique_lock lock(mutex_);
        std::optional<Decoded>& slot = slots_[i % slots_.size()];
        ready_.wait(lock, [&] { return slot.has_value(); });
        Decoded d = std::move(*slot);
        slot.reset();
        next_ = i + 1;
        room_.notify_all();
        return d;
    }
    void stop() {
        std::lock_guard lock(mutex_);
        stopped_ = true;
        room_.notify_all();
    }

private:
    const std::size_t files_;
    std::vector<std::optional<Decoded>> slots_;
    std::size_t taken_ = 0, next_ = 0;
    bool stopped_ = false;
    std::mutex mutex_;
    std::condition_variable room_, ready_;
};

// Counts a decoded image: the engine's result with the reader's notes, or why not; the pixels
// are freed either way.
void count_decoded(Engine& engine, const Request& request, Decoded& d) {
    if (!d.image) return;
    try {
        d.sensor = d.image->sensor;
        d.counted = count_loaded_image(engine, *d.image, request);
    } catch (...) {  // e.g. a device error: this file, not the run
        d.error = failure_text();
    }
    d.image.reset();
}

// One decoded file on the CPU path, counted by the engine unless its decoder thread did.
void count_on_engine(Engine& engine, const Request& request, Decoded& d, FileHistogram& file) {
    count_decoded(engine, request, d);
    file.error = std::move(d.error);
    file.result = std::move(d.counted);
    if (file.result) file.sensor = d.sensor;
}

// With the cpu backend, each decoder thread counts the files it decodes, on an engine of its
// own with one worker: the pixels are still in its cache, and no counting thread competes with
// the decoders for the cores (the calling thread then only orders the results and sums them).
// Other backends count on the caller's engine, on the calling thread.
std::vector<std::unique_ptr<Engine>> decoder_engines(const Engine& engine, std::size_t decoders, bool gpu) {
    std::vector<std::unique_ptr<Engine>> engines;
    if (gpu || engine.backend_name() != "cpu") return engines;
    EngineOptions one_worker;
    one_worker.threads = 1;
    for (std::size_t t = 0; t < decoders; ++t) engines.push_back(create_engine("cpu", one_worker));
    return engines;
}

// Decode::gpu's decoder, or nothing; throws what make_jpeg_decoder throws.
struct GpuDecoder {
#ifdef IMGHIST_IO_GPU_DECODE
    cuda::JpegDecoder* decoder = nullptr;  // the engine's own: kept from call to call
#endif
    GpuDecoder(Engine& engine, const DatasetOptions& options) {
        if (options.decode != Decode::gpu) return;
#ifdef IMGHIST_IO_GPU_DECODE
        decoder = &cuda::jpeg_decoder(engine);
#else
        (void)engine;
        std::string why;
        gpu_decode_available(&why);
        throw BackendUnavailable(why);
#endif
    }

    // Decodes and counts files [first, first + batch.size()) whose bytes the readers kept; those
    // the GPU does not take are read by the CPU reader here.
    void count(Engine& engine, const Request& request, const std::vector<std::string>& paths, std::size_t first,
               std::vector<Decoded>& batch, std::vector<FileHistogram>& files, const ReadOptions& options,
               const FileReader& read) {
#ifdef IMGHIST_IO_GPU_DECODE
        std::vector<std::span<const std::byte>> bytes;
        for (const Decoded& d : batch) bytes.emplace_back(d.encoded);
        std::vector<cuda::GpuDecoded> out;
        try {
            out = decoder->histograms(bytes, request, options.max_pixels);
        } catch (...) {  // a device error fails this batch, not the run
            const std::string why = failure_text();
            for (std::size_t k = 0; k < batch.size(); ++k) files[k].error = why;
            return;
        }
        for (std::size_t k = 0; k < batch.size(); ++k) {
            FileHistogram& file = files[k];
            batch[k].encoded = {};
            if (out[k].result) {
                file.result = std::move(out[k].result);
                file.decoder = "gpu";
                continue;
            }
            file.gpu_fallback = std::move(out[k].not_decoded);
            read_into(batch[k], paths[first + k], read);
            count_on_engine(engine, request, batch[k], file);
        }
#else
        (void)engine, (void)request, (void)paths, (void)first, (void)batch, (void)files, (void)options, (void)read;
#endif
    }
};

// One decoder thread: decodes (or, for the GPU, reads) the files the window hands out and, with
// an engine of its own (`counter`), counts them too.
void decode_files(Window& slots, const std::vector<std::string>& paths, const FileReader& read, Engine* counter,
                  const Request& request, const std::string& device, bool gpu) {
    while (const auto i = slots.take()) {
        Decoded d = gpu ? read_for_gpu(paths[*i], read) : decode(paths[*i], read);
        if (counter) {
            count_decoded(*counter, request, d);
            if (d.counted) d.counted->device = device;
        }
        slots.put(*i, std::move(d));
    }
}

// File `i` as its decoder left it, in input order.
FileHistogram take_in_order(Window& slots, const std::vector<std::string>& paths, std::size_t i, Decoded& d) {
    d = slots.get(i);
    FileHistogram file;
    file.index = i;
    file.path = paths[i];
    file.file_bytes = d.file_bytes;
    return file;
}

// A run of JPEGs for the GPU from file `i` on, up to batch_size, ended early by a file the CPU
// decoded: that one is returned, to be counted after the batch.
std::optional<std::pair<Decoded, FileHistogram>> fill_gpu_batch(Window& slots, const std::vector<std::string>& paths,
                                                                 std::size_t batch_size, std::size_t& i,
                                                                 std::vector<Decoded>& batch,
                                                                 std::vector<FileHistogram>& batch_files) {
    while (batch.size() < batch_size && i < paths.size()) {
        Decoded next;
        FileHistogram next_file = take_in_order(slots, paths, i++, next);
        if (next.encoded.empty()) return std::pair{std::move(next), std::move(next_file)};
        batch.push_back(std::move(next));
        batch_files.push_back(std::move(next_file));
    }
    return std::nullopt;
}

}  // namespace

// Here rather than with the readers: the pipeline needs nothing of OpenImageIO, so the GPU
// dataset benchmark builds it where OpenImageIO is missing (bench/cuda/jpeg_dataset_bench.cpp).
std::uint64_t file_bytes(const std::string& path) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    return ec ? 0 : size;
}

bool gpu_decode_available(std::string* why) {
#ifdef IMGHIST_IO_GPU_DECODE
    return cuda::jpeg_decode_available(why);
#else
    if (why) *why = "this imghist::io was built without the cuda backend, so it has no GPU decoding";
    return false;
#endif
}

DatasetSummary histogram_files(Engine& engine, const std::vector<std::string>& paths, const Request& request,
                               const std::function<void(FileHistogram&)>& on_file, const DatasetOptions& options) {
    request.weights.validate();  // bins and range depend on each file's format: checked per file
    const bool gpu = options.decode == Decode::gpu;
    if (gpu && engine.backend_name() != "cuda")
        throw InvalidArgument("decoding on the GPU needs the cuda backend, not '" + std::string(engine.backend_name()) + "'");
    DatasetSummary summary;
    summary.files = paths.size();
    if (paths.empty()) return summary;
    GpuDecoder gpu_decoder(engine, options);
    const std::size_t batch_size = gpu ? (options.gpu_batch ? options.gpu_batch : 128) : 1;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t decoders =
        std::min<std::size_t>(options.decode_threads ? options.decode_threads : cores, paths.size());
    // The GPU takes a batch while the readers fill the next one.
    const std::size_t window = std::max<std::size_t>(
        gpu ? 2 * batch_size : 1, options.max_pending ? options.max_pending : 2 * decoders);

    // Before the window: the readers and their buffers outlive every image. One more reader,
    // the calling thread's, for the files the GPU leaves to the CPU.
    PixelPool buffers;
    const std::vector<FileReader> readers = make_readers(decoders + (gpu ? 1 : 0), options, buffers);
    const std::vector<std::unique_ptr<Engine>> counters = decoder_engines(engine, decoders, gpu);
    // Results name the caller's engine ("host (2 threads)"), as every other path's do: the
    // decoders' engines are its stand-ins, and together use as many threads.
    const std::string device = engine.device_name();
    Window slots(paths.size(), window);
    std::vector<std::thread> pool;
    // Stops and joins the decoders however the caller's loop ends (an exception from on_file).
    struct Joiner {
        Window& slots;
        std::vector<std::thread>& pool;
        ~Joiner() {
            slots.stop();
            for (auto& t : pool) t.join();
        }
    } joiner{slots, pool};
    for (std::size_t t = 0; t < decoders; ++t)
        pool.emplace_back([&, t] {
            decode_files(slots, paths, readers[t], counters.empty() ? nullptr : counters[t].get(), request, device, gpu);
        });

    const auto finish = [&](FileHistogram& file) {
        summary.bytes += file.file_bytes;
        if (file.result) {
            ++summary.counted;
            add_to_sums(summary, file);
        } else {
            ++summary.failed;
        }
        on_file(file);
    };
    std::vector<Decoded> batch;
    std::vector<FileHistogram> batch_files;
    for (std::size_t i = 0; i < paths.size();) {
        Decoded d;
        FileHistogram file = take_in_order(slots, paths, i++, d);
        if (d.encoded.empty()) {  // decoded by the CPU reader (or failed there)
            count_on_engine(engine, request, d, file);
            finish(file);
            continue;
        }
        const std::size_t first = file.index;
        batch.clear();
        batch_files.clear();
        batch.push_back(std::move(d));
        batch_files.push_back(std::move(file));
        std::optional<std::pair<Decoded, FileHistogram>> cpu_file =
            fill_gpu_batch(slots, paths, batch_size, i, batch, batch_files);
        gpu_decoder.count(engine, request, paths, first, batch, batch_files, options.read, readers.back());
        for (FileHistogram& f : batch_files) finish(f);
        if (cpu_file) {
            count_on_engine(engine, request, cpu_file->first, cpu_file->second);
            finish(cpu_file->second);
        }
    }
    return summary;
}

}  // namespace imghist::io
