// The range and luminance scalars every kernel takes (the arguments of binning.h's classify and
// luma functions beyond the sample), derived once by HistogramPlan. Kernel argument structs
// embed this struct, so a backend copies them in one assignment. Its order is that of the
// Vulkan shader's push constants (histogram.comp, Params), which begin with it. Plain data
// only: CUDA device code includes this header.
#pragma once

#include <cstdint>

namespace imghist {

struct KernelScalars {
    std::int64_t lo_int = 0, hi_int = 0;  // integer samples: ih_classify_int
    float lo_float = 0, scale_float = 0;  // float samples: ih_classify_float
    std::uint32_t lo_key = 0, hi_key = 0;
    float weight_float[3] = {0, 0, 0};        // luminance weights as fp32 fractions
    std::uint32_t weight_int[3] = {0, 0, 0};  // and as integers over IH_LUMA_WEIGHT_SUM
#if __cplusplus >= 202002L  // the CUDA kernels are C++17
    bool operator==(const KernelScalars&) const = default;
#endif
};

}  // namespace imghist
