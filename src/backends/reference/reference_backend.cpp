// The contract in the plainest code: one pixel at a time, one sample at a time. Every other
// backend is tested against this one, bit for bit. (Its ancestor is the seed's Listing 14.1.)
#include <cstring>

#include "core/backend_engine.hpp"
#include "core/backend_list.hpp"
#include "core/device_select.hpp"
#include "core/plan.hpp"

namespace imghist {
namespace {

template <typename T>
T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

class ReferenceEngine final : public BackendEngine<> {
public:
    std::string_view backend_name() const override { return "reference"; }
    std::string device_name() const override { return "host (single thread)"; }

    void accumulate(const ImageView& image, const HistogramPlan& plan,
                    std::span<std::uint64_t> slots) override {
        const FormatInfo& fi = plan.info;
        for (std::uint32_t y = 0; y < image.height; ++y) {
            const std::byte* row = image.row(y);
            for (std::uint32_t x = 0; x < image.width; ++x) {
                const std::byte* pixel = row + std::size_t(x) * fi.pixel_bytes();
                for (std::size_t c = 0; c < plan.channels.size(); ++c) {
                    std::uint64_t* out = slots.data() + c * plan.slots_per_channel();
                    count_code(out, plan.bins(), classify(plan, pixel, plan.sources[c]));
                }
            }
        }
    }

private:
    static std::uint32_t classify(const HistogramPlan& plan, const std::byte* pixel, int source) {
        const FormatInfo& fi = plan.info;
        if (fi.is_float()) {
            auto sample = [&](int i) -> float {
                const std::byte* p = pixel + std::size_t(i) * fi.bytes_per_sample;
                return fi.sample == SampleType::f32 ? load<float>(p) : half_to_float(load<std::uint16_t>(p));
            };
            if (source != kLumaSource) return plan.classify_float(sample(source));
            const float y = ih_luma_float(sample(fi.red), sample(fi.green), sample(fi.blue),
                                          plan.weight_float[0], plan.weight_float[1],
                                          plan.weight_float[2]);
            return plan.classify_float(y);
        }
        auto sample = [&](int i) -> std::uint32_t {
            const std::byte* p = pixel + std::size_t(i) * fi.bytes_per_sample;
            return fi.sample == SampleType::u8 ? std::uint32_t(load<std::uint8_t>(p))
                                               : std::uint32_t(load<std::uint16_t>(p));
        };
        if (source != kLumaSource) return plan.classify_int(sample(source));
        const std::uint32_t y = ih_luma_int(sample(fi.red), sample(fi.green), sample(fi.blue),
                                            plan.weight_int[0], plan.weight_int[1], plan.weight_int[2]);
        return plan.classify_int(y);
    }
};

class ReferenceBackend final : public Backend {
public:
    std::string_view name() const override { return "reference"; }
    std::string_view summary() const override {
        return "the contract in plain single-threaded code; the oracle for every other backend";
    }
    std::vector<DeviceInfo> devices() const override {
        return {{"0", "host (single thread)", false, true, ""}};
    }
    std::unique_ptr<Engine> create_engine(const EngineOptions& options) const override {
        // One device, but a wrong --device is still an error that lists it.
        (void)select_device(name(), devices(), options.device, nullptr);
        return std::make_unique<ReferenceEngine>();
    }
};

}  // namespace

const Backend& reference_backend() {
    static const ReferenceBackend backend;
    return backend;
}

}  // namespace imghist
