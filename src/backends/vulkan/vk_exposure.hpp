// What ExposureStep and ExposureRecorder (vulkan.hpp) share.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

namespace imghist::vulkan {

// Throws InvalidArgument unless `seconds` is finite and >= 0, the counters' offset a multiple of
// 8 and the state's of 4, both within what exposure.comp indexes (`slots`: bins + 3).
void check_exposure_frame(float seconds, VkDeviceSize counters_offset, std::uint32_t slots, VkDeviceSize state_offset);

}  // namespace imghist::vulkan
