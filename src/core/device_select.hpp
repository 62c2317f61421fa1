// The device-selection rule every GPU backend shares (--device, IMGHIST_<NAME>_DEVICE).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "imghist/engine.hpp"

namespace imghist {

// Picks one of `devices` (a backend's devices(), in its listing order):
// - the selector is EngineOptions::device, or else the environment variable `env_variable`;
// - empty or "auto": the available device with the lowest `preference` (by default GPUs
//   before others), the first listed on a tie;
// - "N": the Nth listed device; otherwise an exact DeviceInfo::id (e.g. "1:0"); otherwise a
//   case-insensitive substring of DeviceInfo::name (an available match wins).
// Throws BackendUnavailable naming every device when nothing usable matches.
std::size_t select_device(std::string_view backend, const std::vector<DeviceInfo>& devices,
                          std::string selector, const char* env_variable,
                          const std::vector<int>& preference = {});

}  // namespace imghist
