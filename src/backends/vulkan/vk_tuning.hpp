// The vulkan backend's tuning (Tuning, vk_launch.hpp) as data (src/gpu/tuning.hpp): the table of
// its keys and its device families is in vk_tuning.cpp. IMGHIST_VULKAN_TUNE="key=value,..."
// overrides them, as benchmarks and tests do and as a caller with adversarial images may
// (layout=pairs holds its speed on every distribution). Plain C++, no Vulkan headers.
#pragma once

#include "backends/vulkan/vk_launch.hpp"
#include "gpu/tuning.hpp"

namespace imghist::vk {

const gpu::TuningTable<Tuning>& tuning_table();
// The defaults, `device`'s family and IMGHIST_VULKAN_TUNE; throws InvalidArgument.
Tuning tuning_for(const gpu::DeviceIdentity& device);

}  // namespace imghist::vk
