#include "cuda_test_support.hpp"

#include <cstdlib>
#include <sstream>

namespace imghist::cuda_test {

bool cuda_required() {
    const char* env = std::getenv("IMGHIST_REQUIRE_BACKENDS");
    if (env == nullptr) return false;
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ','))
        if (item == "cuda") return true;
    return false;
}

std::string device_notes() {
    std::string notes;
    const Backend* b = find_backend("cuda");
    if (b == nullptr) return "cuda backend not compiled in";
    for (const auto& d : b->devices()) notes += d.name + ": " + d.note + "; ";
    return notes;
}

DeviceCopy upload(const ImageView& host, std::size_t pitch, std::size_t offset) {
    DeviceCopy d;
    const std::size_t row = host.row_bytes();
    if (pitch == 0) pitch = row;
    d.mem = DeviceMemory(offset + pitch * host.height + 64);
    if (d.mem.ptr == nullptr) return d;
    cudaMemset(d.mem.ptr, 0xA5, offset + pitch * host.height + 64);
    auto* base = static_cast<unsigned char*>(d.mem.ptr) + offset;
    cudaMemcpy2D(base, pitch, host.data, host.stride_bytes, row, host.height, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
    d.view = cuda::device_image(base, host.width, host.height, pitch, host.format);
    return d;
}

NamedRequests requests(const FormatInfo& fi) {
    NamedRequests out;
    out.push_back({"default", Request{}});
    Request r;
    r.mode = Mode::rgb;
    out.push_back({"rgb", r});
    r = Request{};
    r.mode = Mode::luma;
    r.weights = LumaWeights::rec601();
    out.push_back({"luma rec601", r});
    r = Request{};
    r.count_alpha = true;
    r.bins.bins = 4096;
    r.bins.clamp = true;
    r.bins.range = fi.is_float() ? std::pair<double, double>{-0.25, 1.5}
                                 : std::pair<double, double>{-3, fi.sample == SampleType::u8 ? 200 : 60000};
    out.push_back({"4096 bins clamp", r});
    r.bins.clamp = false;
    r.bins.bins = 100;
    out.push_back({"100 bins", r});
    return out;
}

}  // namespace imghist::cuda_test
