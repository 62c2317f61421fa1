// The fast CPU backend: row bands spread over threads, each thread counting into its own
// slots. (First cut: plain per-sample classify; the fast paths come next.)
#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "core/backend_list.hpp"
#include "core/plan.hpp"

namespace imghist {
namespace {

unsigned resolve_threads(unsigned requested) {
    if (requested != 0) return requested;
    return std::max(1u, std::thread::hardware_concurrency());
}

template <typename T>
T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

std::uint32_t classify_pixel(const HistogramPlan& plan, const std::byte* pixel, int source) {
    const FormatInfo& fi = plan.info;
    if (fi.is_float()) {
        auto sample = [&](int i) -> float {
            const std::byte* p = pixel + std::size_t(i) * fi.bytes_per_sample;
            return fi.sample == SampleType::f32 ? load<float>(p) : half_to_float(load<std::uint16_t>(p));
        };
        if (source != kLumaSource) return plan.classify_float(sample(source));
        return plan.classify_float(ih_luma_float(sample(fi.red), sample(fi.green), sample(fi.blue),
                                                 plan.weight_float[0], plan.weight_float[1],
                                                 plan.weight_float[2]));
    }
    auto sample = [&](int i) -> std::uint32_t {
        const std::byte* p = pixel + std::size_t(i) * fi.bytes_per_sample;
        return fi.sample == SampleType::u8 ? std::uint32_t(load<std::uint8_t>(p))
                                           : std::uint32_t(load<std::uint16_t>(p));
    };
    if (source != kLumaSource) return plan.classify_int(sample(source));
    return plan.classify_int(ih_luma_int(sample(fi.red), sample(fi.green), sample(fi.blue),
                                         plan.weight_int[0], plan.weight_int[1], plan.weight_int[2]));
}

void count_rows(const ImageView& image, const HistogramPlan& plan, std::uint64_t* slots) {
    for (std::uint32_t y = 0; y < image.height; ++y) {
        const std::byte* row = image.row(y);
        for (std::uint32_t x = 0; x < image.width; ++x) {
            const std::byte* pixel = row + std::size_t(x) * plan.info.pixel_bytes();
            for (std::size_t c = 0; c < plan.channels.size(); ++c)
                count_code(slots + c * plan.slots_per_channel(), plan.bins(),
                           classify_pixel(plan, pixel, plan.sources[c]));
        }
    }
}

class CpuEngine final : public Engine {
public:
    explicit CpuEngine(unsigned threads) : threads_(resolve_threads(threads)) {}
    std::string_view backend_name() const override { return "cpu"; }
    std::string device_name() const override {
        return "host (" + std::to_string(threads_) + " threads)";
    }

    void accumulate(const ImageView& image, const HistogramPlan& plan,
                    std::span<std::uint64_t> slots) override {
        const unsigned workers = std::min<std::uint64_t>(threads_, image.height);
        std::vector<std::vector<std::uint64_t>> partial(workers, std::vector<std::uint64_t>(slots.size()));
        std::vector<std::thread> pool;
        const std::uint32_t band = (image.height + workers - 1) / workers;
        for (unsigned t = 0; t < workers; ++t) {
            const std::uint32_t first = t * band;
            if (first >= image.height) break;
            const std::uint32_t count = std::min(band, image.height - first);
            pool.emplace_back([&, first, count, t] { count_rows(image.rows(first, count), plan, partial[t].data()); });
        }
        for (auto& th : pool) th.join();
        for (const auto& p : partial)
            for (std::size_t i = 0; i < slots.size(); ++i) slots[i] += p[i];
    }

private:
    unsigned threads_;
};

class CpuBackend final : public Backend {
public:
    std::string_view name() const override { return "cpu"; }
    std::string_view summary() const override { return "multi-threaded host code (the default without a GPU)"; }
    std::vector<DeviceInfo> devices() const override {
        return {{"0", "host (" + std::to_string(resolve_threads(0)) + " threads)", false, true, ""}};
    }
    std::unique_ptr<Engine> create_engine(const EngineOptions& options) const override {
        return std::make_unique<CpuEngine>(options.threads);
    }
};

}  // namespace

const Backend& cpu_backend() {
    static const CpuBackend backend;
    return backend;
}

}  // namespace imghist
