// imghist_cuda_runtime_probe: the host-clock cost of the CUDA runtime steps a device-image call
// takes around its kernel (a memset before it, a plain launch or a graph, a stream sync, a
// pointer check), with a read kernel over an 8K RGBA8 image standing in for the histogram.
// docs/performance.md, "CUDA selections: no memset before the launch", has its H200 figures.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                                 \
    do {                                                                                         \
        const cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                     \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

namespace {
__global__ void read_kernel(const uint4* p, size_t n, unsigned long long* out) {
    unsigned s = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        const uint4 v = p[i];
        s += v.x ^ v.y ^ v.z ^ v.w;
    }
    if (s == 0x12345678u) atomicAdd(out, 1ull);  // keeps the loads
}

// Median host time of f() in microseconds, after 20 warm-up calls.
template <class F>
double median_us(F f, int reps = 200) {
    for (int i = 0; i < 20; ++i) f();
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        const auto a = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}
}  // namespace

int main() {
    cudaDeviceProp props{};
    CK(cudaGetDeviceProperties(&props, 0));
    std::printf("%s\n", props.name);
    const size_t bytes = size_t(7680) * 4320 * 4, vectors = bytes / 16;
    uint4* image = nullptr;
    unsigned long long *out = nullptr, *host = nullptr;
    CK(cudaMalloc(&image, bytes));
    CK(cudaMemset(image, 1, bytes));
    CK(cudaMalloc(&out, 8192 * 8));
    CK(cudaMallocHost(&host, 8192 * 8));
    cudaStream_t s = nullptr;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int grid = props.multiProcessorCount * 4;
    const auto kernel = [&](cudaStream_t st) { read_kernel<<<grid, 512, 0, st>>>(image, vectors, out); };
    // The counts' copy back and the wait, as every synchronous call ends.
    const auto copy_back = [&](cudaStream_t st) {
        CK(cudaMemcpyAsync(host, out, 1025 * 8, cudaMemcpyDeviceToHost, st));
        CK(cudaStreamSynchronize(st));
    };
    const auto row = [](const char* what, double us) { std::printf("%-44s %9.2f us\n", what, us); };
    row("kernel + copy + sync, own stream", median_us([&] { kernel(s); copy_back(s); }));
    row("kernel + copy + sync, legacy stream", median_us([&] { kernel(nullptr); copy_back(nullptr); }));
    row("8-byte memset first, legacy stream", median_us([&] {
            CK(cudaMemsetAsync(out + 1024, 0, 8, nullptr));
            kernel(nullptr);
            copy_back(nullptr);
        }));
    row("8-byte memset first, own stream", median_us([&] {
            CK(cudaMemsetAsync(out + 1024, 0, 8, s));
            kernel(s);
            copy_back(s);
        }));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    kernel(s);
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    row("the kernel through a graph, own stream", median_us([&] { CK(cudaGraphLaunch(exec, s)); copy_back(s); }));
    row("sync of an idle stream first, legacy", median_us([&] { CK(cudaStreamSynchronize(s)); kernel(nullptr); copy_back(nullptr); }));
    row("cudaStreamSynchronize (idle stream)", median_us([&] { CK(cudaStreamSynchronize(s)); }, 2000));
    cudaPointerAttributes attr{};
    row("cudaPointerGetAttributes", median_us([&] { CK(cudaPointerGetAttributes(&attr, image)); }, 2000));
    row("cudaMemsetAsync of 8 bytes (enqueue only)", median_us([&] { CK(cudaMemsetAsync(out, 0, 8, s)); }, 2000));
    CK(cudaDeviceSynchronize());
    row("a kernel launch (enqueue only)", median_us([&] { read_kernel<<<1, 32, 0, s>>>(image, 0, out); }, 2000));
    CK(cudaDeviceSynchronize());
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(host));
    CK(cudaFree(out));
    CK(cudaFree(image));
    return 0;
}
