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

Decoded decode(const std::string& path, const ReadOptions& options, PixelPool& pool) {
    Decoded d;
    d.file_bytes = file_bytes(path);
    try {
        d.image = read_image(path, options, [&](std::size_t bytes) { return pool.allocate(bytes); });
    } catch (const ReadError& e) {
        d.error = e.what();
    } catch (const std::bad_alloc&) {
        d.error = "out of memory";
    } catch (const std::exception& e) {
        d.error = e.what();
    }
    return d;
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

    PixelPool buffers;  // before the window: it outlives every image
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
        pool.emplace_back([&] {
            while (const auto i = slots.take()) slots.put(*i, decode(paths[*i], options.read, buffers));
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
                file.result = engine.compute(d.image->view, request);
                for (std::string& note : d.image->notes) file.result->notes.push_back(std::move(note));
            } catch (const std::exception& e) {  // e.g. a device error: this file, not the run
                file.error = e.what();
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
