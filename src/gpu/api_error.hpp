// The one shape of a failed GPU runtime call, for every backend:
//   "<api> <call> failed: <code name> (<code>)[: <detail>]"
// e.g. "OpenCL clCreateBuffer failed: CL_OUT_OF_RESOURCES (-5): 1048576 bytes". The backends'
// check(status, call) helpers name the code and route every failure through here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace imghist::gpu {

// api: "OpenCL", "Vulkan" or "CUDA"; call: the runtime function (or the expression) that failed.
std::string api_error_message(std::string_view api, std::string_view call, std::string_view code_name,
                              std::int64_t code, std::string_view detail = {});

// Throws imghist::DeviceError with api_error_message(...).
[[noreturn]] void throw_api_error(std::string_view api, std::string_view call, std::string_view code_name,
                                  std::int64_t code, std::string_view detail = {});

}  // namespace imghist::gpu
