// A device selection case (selection_checks.hpp) counted through cuda::compute on the caller's
// stream, the way the CUDA selection and sample statistics tests both count one.
#pragma once

#include "cuda_test_support.hpp"
#include "selection_checks.hpp"

namespace imghist::cuda_test {

// A non-blocking stream, destroyed with its owner.
struct OwnedStream {
    cudaStream_t stream = nullptr;
    OwnedStream() { EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess); }
    ~OwnedStream() { cudaStreamDestroy(stream); }
    OwnedStream(const OwnedStream&) = delete;
    OwnedStream& operator=(const OwnedStream&) = delete;
};

// c's image pitched and one pixel into its allocation, its mask packed.
inline Result compute_pitched_on_stream(Engine& engine, const testing::SelectionCase& c, cudaStream_t stream) {
    const ImageView& v = c.image.view;
    const FormatInfo& fi = v.info();
    DeviceCopy image = upload(v, v.row_bytes() + fi.bytes_per_sample, fi.pixel_bytes());
    DeviceCopy mask = upload(c.mask.view());
    Request r = c.request;
    if (c.use_mask) r.device_mask = mask.view;
    return cuda::compute(engine, image.view, r, stream);
}

}  // namespace imghist::cuda_test
