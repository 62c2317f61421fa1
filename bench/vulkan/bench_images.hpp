// The benchmarks' generated images (imghist_vulkan_bench, imghist_vulkan_stats_bench), made on
// every core: the test generators are single-threaded and too slow for 16384^2.
#pragma once

#include <cstdint>
#include <string>

#include "bench_device.hpp"

namespace imghist::vkbench {

// Same kinds as tests/support: uniform random, natural (gradients + noise), constant,
// bank-adversarial (8-bit values only from {b, b+32, ..., b+224}); samples in [0, 1) scaled to
// the format's integers, or as floats.
HostImage generate(const std::string& label, PixelFormat format, std::uint32_t w, std::uint32_t h, Pattern p);

}  // namespace imghist::vkbench
