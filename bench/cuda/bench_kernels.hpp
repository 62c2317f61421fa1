// Device helpers of imghist_cuda_bench, implemented in bench_kernels.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace imghist_bench {

enum Dist { kRandom, kNatural, kConstant, kBank };

// Test images generated on the device (RGBA; alpha is 255 / 1.0).
cudaError_t generate_rgba8(void* out, uint32_t w, uint32_t h, int dist, cudaStream_t s);
cudaError_t generate_rgba_f32(void* out, uint32_t w, uint32_t h, int dist, cudaStream_t s);
cudaError_t generate_rgba_f16(void* out, uint32_t w, uint32_t h, int dist, cudaStream_t s);
// The floor: reads every byte once (16-byte loads, four in flight per thread).
cudaError_t read_floor(const void* p, size_t bytes, uint32_t* sink, int grid, cudaStream_t s);
// cub::DeviceHistogram::MultiHistogramEven<4,3> into hist[3][256] (8-bit: levels 0..256;
// f32: 256 even bins over [0, 1]). temp == nullptr asks for temp_bytes.
cudaError_t cub_rgba8(void* temp, size_t& temp_bytes, const void* p, unsigned* hist, int64_t pixels, cudaStream_t s);
cudaError_t cub_rgba_f32(void* temp, size_t& temp_bytes, const void* p, unsigned* hist, int64_t pixels, cudaStream_t s);

// An empty kernel with `param_bytes` (16 or 2048) bytes of parameters: what a launch costs.
cudaError_t launch_empty(int param_bytes, cudaStream_t s);

}  // namespace imghist_bench
