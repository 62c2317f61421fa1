// imghist CUDA kernels: dispatch and the host-callable wrappers declared in kernel_params.hpp.
// The kernels themselves are templates in histogram_kernels.cuh, instantiated per sample type in
// histogram_u8.cu, histogram_u16.cu, histogram_f16.cu and histogram_f32.cu (compiled in parallel).
#include <algorithm>
#include <cstring>

#include "histogram_kernels.cuh"

namespace imghist::cuda_detail {

using kernels::KernelFn;

namespace {
int format_channels(KernelFormat f) { return (f % 3 == 0) ? 1 : (f % 3 == 1) ? 3 : 4; }

KernelFn kernel_for(KernelFormat f, int layout, int nch = 0, bool luma = false, bool select = false) {
    if (f < 0 || f >= kKernelFormats) return nullptr;
    const int channels = format_channels(f);
    if (layout == kSelected) {
        switch (f / 3) {
            case 0: return kernels::selected_u8(channels);
            case 1: return kernels::selected_u16(channels);
            case 2: return kernels::selected_f16(channels);
            default: return kernels::selected_f32(channels);
        }
    }
    if (layout == kPacked) {
        if (!has_packed(f)) return nullptr;
        switch (f / 3) {
            case 0: return kernels::packed_u8(channels, nch, luma, select);
            case 2: return kernels::packed_f16(channels, nch, luma, select);
            case 3: return kernels::packed_f32(channels, nch, luma, select);
            default: return nullptr;
        }
    }
    switch (f / 3) {
        case 0: return kernels::kernels_u8(channels, layout);
        case 1: return kernels::kernels_u16(channels);
        case 2: return kernels::kernels_f16(channels);
        default: return kernels::kernels_f32(channels);
    }
}
}  // namespace

bool has_packed_kernel(KernelFormat format, int nch, bool luma) { return kernel_for(format, kPacked, nch, luma) != nullptr; }

void LaunchGraph::reset() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
    exec = nullptr;
    graph = nullptr;
    node = nullptr;
    fn = nullptr;
}

namespace {
cudaError_t launch_graph(LaunchGraph& g, KernelFn fn, const KernelParams& params, unsigned grid, unsigned block,
                         std::size_t smem_bytes, cudaStream_t stream) {
    KernelParams copy = params;
    void* args[] = {&copy};
    cudaKernelNodeParams node{};
    node.func = reinterpret_cast<void*>(fn);
    node.gridDim = dim3(grid);
    node.blockDim = dim3(block);
    node.sharedMemBytes = unsigned(smem_bytes);
    node.kernelParams = args;
    const void* f = reinterpret_cast<const void*>(fn);
    if (g.exec == nullptr || g.fn != f) {
        g.reset();
        cudaError_t err = cudaGraphCreate(&g.graph, 0);
        if (err == cudaSuccess) err = cudaGraphAddKernelNode(&g.node, g.graph, nullptr, 0, &node);
        if (err == cudaSuccess) err = cudaGraphInstantiate(&g.exec, g.graph, 0);
        if (err != cudaSuccess) {
            g.reset();
            return err;
        }
    } else if (g.grid != grid || g.block != block || g.smem != smem_bytes ||
               std::memcmp(&g.params, &params, sizeof params) != 0) {
        // Parameters are copied into the node: later launches of the exec see the new ones,
        // launches already queued keep theirs.
        const cudaError_t err = cudaGraphExecKernelNodeSetParams(g.exec, g.node, &node);
        if (err != cudaSuccess) {
            g.reset();
            return err;
        }
    }
    g.fn = f;
    g.grid = grid;
    g.block = block;
    g.smem = smem_bytes;
    g.params = params;
    return cudaGraphLaunch(g.exec, stream);
}
}  // namespace

cudaError_t launch_histogram(KernelFormat format, const KernelParams& params, unsigned grid,
                             unsigned block, std::size_t smem_bytes, cudaStream_t stream, LaunchGraph* graph) {
    KernelFn fn = params.packed   ? kernel_for(format, kPacked, int(params.bin.channels), params.has_luma != 0,
                                               params.select != 0)
                  : params.select ? kernel_for(format, kSelected)
                                  : kernel_for(format, int(params.layout));
    if (fn == nullptr) return cudaErrorInvalidValue;
    if (graph != nullptr) {
        cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
        const cudaError_t err = cudaStreamIsCapturing(stream, &capture);
        if (err != cudaSuccess) return err;
        if (capture == cudaStreamCaptureStatusNone) return launch_graph(*graph, fn, params, grid, block, smem_bytes, stream);
    }
    fn<<<grid, block, smem_bytes, stream>>>(params);
    return cudaGetLastError();
}

namespace {
cudaError_t allow(KernelFn fn, int block_limit, int* dynamic_limit) {
    cudaFuncAttributes attr{};
    cudaError_t err = cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(fn));
    if (err != cudaSuccess) return err;
    // The block's limit covers the kernel's static shared memory too.
    const int bytes = block_limit - int(attr.sharedSizeBytes);
    err = cudaFuncSetAttribute(reinterpret_cast<const void*>(fn), cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err != cudaSuccess) return err;
    *dynamic_limit = std::min(*dynamic_limit, bytes);
    return cudaSuccess;
}
}  // namespace

cudaError_t allow_shared_memory(KernelFormat format, int block_limit, int* dynamic_limit) {
    for (int layout : {int(kLanes32), int(kLanes16), int(kCopies), int(kSelected)}) {
        KernelFn fn = kernel_for(format, layout);
        if (fn == nullptr) return cudaErrorInvalidValue;
        const cudaError_t err = allow(fn, block_limit, dynamic_limit);
        if (err != cudaSuccess) return err;
    }
    if (!has_packed(format)) return cudaSuccess;
    for (int nch = 1; nch <= kMaxChannels; ++nch)
        for (bool luma : {false, true})
            for (bool select : {false, true})
                if (KernelFn fn = kernel_for(format, kPacked, nch, luma, select)) {
                    const cudaError_t err = allow(fn, block_limit, dynamic_limit);
                    if (err != cudaSuccess) return err;
                }
    return cudaSuccess;
}

cudaError_t blocks_per_sm(KernelFormat format, int layout, int block, std::size_t smem_bytes, int* blocks,
                          int nch, bool luma) {
    KernelFn fn = kernel_for(format, layout, nch, luma);
    if (fn == nullptr) return cudaErrorInvalidValue;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, reinterpret_cast<const void*>(fn), block,
                                                         smem_bytes);
}

cudaError_t kernel_registers(KernelFormat format, int layout, int* registers, int nch, bool luma) {
    KernelFn fn = kernel_for(format, layout, nch, luma);
    if (fn == nullptr) return cudaErrorInvalidValue;
    cudaFuncAttributes attr{};
    const cudaError_t err = cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(fn));
    *registers = attr.numRegs;
    return err;
}

}  // namespace imghist::cuda_detail
