// histogram_files (include/imghist/dataset.hpp): decoder threads fill a window of slots ahead
// of the calling thread, which counts the files in input order. A decoder takes file i only
// while i < next + window (next: the file the caller waits for), so at most `window` decoded
// images exist at once, whatever the number of files.
#include "imghist/dataset.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

#include "imghist/error.hpp"
#include "io/pixel_pool.hpp"

namespace imghist::io {

namespace {

// A decoded file, or why it could not be.
struct Decoded {
    std::optional<LoadedImage> image;
    std::string error;
    std::uint64_t file_bytes = 0;
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

Decoded decode(const std::string& path, const FileReader& read) {
    Decoded d;
    d.file_bytes = file_bytes(path);
    try {
        d.image = read(path);
    } catch (...) {
        d.error = failure_text();
    }
    return d;
}

// One reader per decode thread: the caller's, or read_image into the pool's buffers.
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

// Adds one file's result to the first sum Result::can_merge accepts, or starts a sum.
void add_to_sums(std::vector<Result>& sums, const Result& r) {
    for (Result& sum : sums)
        if (sum.can_merge(r)) {
            sum.merge(r);
            return;
        }
    Result first = r;
    first.width = first.height = 0;  // a sum has no size
    sums.push_back(std::move(first));
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

}  // namespace

DatasetSummary histogram_files(Engine& engine, const std::vector<std::string>& paths, const Request& request,
                               const std::function<void(FileHistogram&)>& on_file, const DatasetOptions& options) {
    request.weights.validate();  // bins and range depend on each file's format: checked per file
    DatasetSummary summary;
    summary.files = paths.size();
    if (paths.empty()) return summary;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t decoders =
        std::min<std::size_t>(options.decode_threads ? options.decode_threads : cores, paths.size());
    const std::size_t window = std::max<std::size_t>(1, options.max_pending ? options.max_pending : 2 * decoders);

    // Before the window: the readers and their buffers outlive every image.
    PixelPool buffers;
    const std::vector<FileReader> readers = make_readers(decoders, options, buffers);
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
            while (const auto i = slots.take()) slots.put(*i, decode(paths[*i], readers[t]));
        });

    for (std::size_t i = 0; i < paths.size(); ++i) {
        Decoded d = slots.get(i);
        FileHistogram file;
        file.index = i;
        file.path = paths[i];
        file.file_bytes = d.file_bytes;
        file.error = std::move(d.error);
        if (d.image) {
            try {
                Result r = engine.compute(d.image->view, request);
                r.notes.insert(r.notes.begin(), d.image->notes.begin(), d.image->notes.end());
                file.result = std::move(r);
            } catch (...) {  // e.g. a device error: this file, not the run
                file.error = failure_text();
            }
            d.image.reset();  // the pixels go before on_file runs
        }
        summary.bytes += file.file_bytes;
        if (file.result) {
            ++summary.counted;
            add_to_sums(summary.sums, *file.result);
        } else {
            ++summary.failed;
        }
        on_file(file);
    }
    return summary;
}

}  // namespace imghist::io
