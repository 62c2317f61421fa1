// The vulkan backend's tuning table and device families (vk_tuning.hpp). Plain C++: built on
// every configuration, so tests/gpu/test_tuning.cpp prints it.
#include "backends/vulkan/vk_tuning.hpp"

namespace imghist::vk {
namespace {

using gpu::Range;

gpu::TuningTable<Tuning> make_table() {
    return {"IMGHIST_VULKAN_TUNE",
            {
                gpu::choice("layout", &Tuning::layout,
                            {{"copies", SharedLayout::copies}, {"lanes", SharedLayout::lanes}, {"pairs", SharedLayout::pairs}},
                            "shared layout: copies, lanes (a counter per lane), pairs (two lanes per word)"),
                gpu::flag("value", &Tuning::value_mode, "8-bit samples: count raw values, bin them in the merge"),
                gpu::number("copies", &Tuning::max_copies, "copies layout: shared copies of every slot",
                            Range{.min = 1, .max = 32, .power_of_two = true}),
                gpu::number("rounds", &Tuning::rounds, "rounds of 4 units (16 or 48 bytes each) per invocation",
                            Range{.min = 1, .max = 64}),
                gpu::tristate("swizzle", &Tuning::swizzle,
                              "copies layout: slots spread over the banks (auto: value-mode passes that count a raw sample)"),
                gpu::number("wg", &Tuning::group_size, "invocations per work-group (at most the device's)",
                            Range{.min = 32, .max = 1024, .multiple = 32}),
                gpu::number("tile_pixels", &Tuning::max_tile_pixels, "pixels per dispatch, 4096 to 2^31"),
                gpu::number("chunk_mb", &Tuning::chunk_mb, "host images: MiB of rows per staging chunk, 1 to 1024",
                            Range{.min = 1, .max = 1024}),
                gpu::number("copy_threads", &Tuning::copy_threads,
                            "host images: threads filling the staging buffers (auto: every core, up to 16)",
                            Range{.max = 256, .automatic = 0}),
                gpu::tristate("device_copy", &Tuning::device_copy,
                              "host images: copy each staged chunk into device-local memory before counting it "
                              "(auto: where the staging memory is not device-local)"),
                gpu::number("code_window", &Tuning::code_window,
                            "float edge bins: code table entries kept in shared memory (0: none)",
                            Range{.max = 32768}),
            },
            {},  // no family: every device takes the defaults
            nullptr};
}

}  // namespace

const gpu::TuningTable<Tuning>& tuning_table() {
    static const gpu::TuningTable<Tuning> table = make_table();
    return table;
}

Tuning tuning_for(const gpu::DeviceIdentity& device) { return gpu::resolve(tuning_table(), device); }

}  // namespace imghist::vk
