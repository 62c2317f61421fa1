// How many of the 2^24 8-bit colours does the seed shader's fp32 luminance put in a different
// bin than the contract's exact integer luminance? (Cited in docs/semantics.md.)
// The seed computes dot(rgb / 255, weights) in fp32 and truncates luma * 255. We evaluate the
// dot product both without FMA ((r*wr + g*wg) + b*wb) and with FMAs, as a GPU may.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "contract/contract.h"

int main() {
    const float wr = 0.2126f, wg = 0.7152f, wb = 0.0722f;
    std::uint64_t low_plain = 0, high_plain = 0, low_fma = 0, high_fma = 0;
    std::uint32_t worst = 0;
    for (std::uint32_t r = 0; r < 256; ++r)
        for (std::uint32_t g = 0; g < 256; ++g)
            for (std::uint32_t b = 0; b < 256; ++b) {
                const std::uint32_t exact = ih_luma_int(r, g, b, 2126, 7152, 722);
                const float fr = r / 255.0f, fg = g / 255.0f, fb = b / 255.0f;
                const float plain = (fr * wr + fg * wg) + fb * wb;
                const float fused = std::fma(fb, wb, std::fma(fg, wg, fr * wr));
                for (int pass = 0; pass < 2; ++pass) {
                    const float luma = pass == 0 ? plain : fused;
                    const float scaled = std::fmin(std::fmax(luma * 255.0f, 0.0f), 255.0f);
                    const auto bin = static_cast<std::uint32_t>(scaled);
                    std::uint64_t& low = pass == 0 ? low_plain : low_fma;
                    std::uint64_t& high = pass == 0 ? high_plain : high_fma;
                    if (bin < exact) ++low, worst = std::max(worst, exact - bin);
                    if (bin > exact) ++high;
                }
            }
    std::printf("seed fp32 luminance vs exact integer luminance, 16777216 colours (Rec. 709)\n");
    std::printf("  without FMA: %llu colours land low, %llu high\n", (unsigned long long)low_plain,
                (unsigned long long)high_plain);
    std::printf("  with FMA:    %llu colours land low, %llu high\n", (unsigned long long)low_fma,
                (unsigned long long)high_fma);
    std::printf("  largest miss: %u bin(s)\n", worst);
    return 0;
}
