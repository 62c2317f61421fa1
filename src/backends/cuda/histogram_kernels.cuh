// imghist CUDA kernels (the templates; histogram_*.cu instantiate them, histogram.cu dispatches):
// one launch computes finished 64-bit histograms.
//
// Each block keeps private 32-bit (or packed 16-bit) counters in shared memory, laid out
// `slot * 32 + lane` so that every lane of a warp increments its own bank (no bank conflicts on
// random or bank-adversarial data; identical values of one warp never collide either). Threads
// read 16-byte vectors, several in flight per thread, over a persistent grid in which each
// block walks a contiguous range of tiles. A block flushes its counters into the 64-bit global
// accumulator (reduction adds) when it leaves an image, before a counter could overflow, and
// at the end; the last block of each image then moves the accumulator into the output and
// zeroes it, so no zeroing or summing kernel is needed. (packed_kernel merges per slot instead:
// see merge_slot.)
//
// 8-bit images count raw sample values (0..255, and the integer luminance, also 0..255) and
// classify each of the 256 values once per flush; every other format classifies each sample.
// The bin math is binning.h's, never repeated here.
#pragma once

#include "packed_kernel.cuh"

namespace imghist::cuda_detail {
namespace kernels {

using KernelFn = void (*)(KernelParams);

// One per histogram_<sample>.cu: the kernel for `channels` samples per pixel and `layout`.
KernelFn kernels_u8(int channels, int layout);
KernelFn kernels_u16(int channels);
KernelFn kernels_f16(int channels);
KernelFn kernels_f32(int channels);
// The packed fast path (packed_kernel): channels 1 or 4; nch 1..kMaxChannels; luma 0/1; nullptr
// where there is none. 8-bit in histogram_u8.cu, half and float from packed_float<Sample>.
// `select`: the kSelect variant (KernelParams::select).
KernelFn packed_u8(int channels, int nch, bool luma, bool select);
KernelFn packed_f16(int channels, int nch, bool luma, bool select);
KernelFn packed_f32(int channels, int nch, bool luma, bool select);

// The float kernels exist for the plans a gray or RGBA image can have (packed_float_source):
// gray; R,G,B; R,G,B,A; Y; A,Y; R,G,B,Y; R,G,B,A,Y.
template <int Sample, bool kSelect = false>
KernelFn packed_float(int channels, int nch, bool luma) {
    if (channels == 1) return nch == 1 && !luma ? packed_kernel<Sample, 1, 1, 0, kSelect> : nullptr;
    if (channels != 4) return nullptr;
    if (!luma)
        return nch == 3 ? packed_kernel<Sample, 4, 3, 0, kSelect> : nch == 4 ? packed_kernel<Sample, 4, 4, 0, kSelect> : nullptr;
    switch (nch) {
        case 1: return packed_kernel<Sample, 4, 1, 1, kSelect>;
        case 2: return packed_kernel<Sample, 4, 2, 1, kSelect>;
        case 4: return packed_kernel<Sample, 4, 4, 1, kSelect>;
        case 5: return packed_kernel<Sample, 4, 5, 1, kSelect>;
        default: return nullptr;
    }
}

// The kSelect kernels (KernelParams::select), one per sample type in histogram_<sample>.cu.
KernelFn selected_u8(int channels);
KernelFn selected_u16(int channels);
KernelFn selected_f16(int channels);
KernelFn selected_f32(int channels);
template <int Sample>
KernelFn pick_selected(int channels) {
    return channels == 1   ? histogram_kernel<Sample, 1, kAnyLayout, true>
           : channels == 3 ? histogram_kernel<Sample, 3, kAnyLayout, true>
                           : histogram_kernel<Sample, 4, kAnyLayout, true>;
}

template <int Sample, int L>
KernelFn pick(int channels) {
    return channels == 1 ? histogram_kernel<Sample, 1, L> : channels == 3 ? histogram_kernel<Sample, 3, L>
                                                                            : histogram_kernel<Sample, 4, L>;
}

}  // namespace kernels
}  // namespace imghist::cuda_detail
