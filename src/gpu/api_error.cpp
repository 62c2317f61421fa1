#include "gpu/api_error.hpp"

#include "imghist/error.hpp"

namespace imghist::gpu {

std::string api_error_message(std::string_view api, std::string_view call, std::string_view code_name,
                              std::int64_t code, std::string_view detail) {
    std::string msg;
    msg.append(api).append(" ").append(call).append(" failed: ").append(code_name);
    msg.append(" (").append(std::to_string(code)).append(")");
    if (!detail.empty()) msg.append(": ").append(detail);
    return msg;
}

void throw_api_error(std::string_view api, std::string_view call, std::string_view code_name, std::int64_t code,
                     std::string_view detail) {
    throw DeviceError(api_error_message(api, call, code_name, code, detail));
}

}  // namespace imghist::gpu
