// imghist Vulkan sample statistics (docs/semantics.md, "Sample statistics"): the contract's
// device counters (contract/exact_sum.h) of the pixels histogram.comp counts (the same mask and
// alpha selection), for vk_sample_stats.cpp. Two passes by the LOWS constant:
//   0  per channel, IH_STATS_SLOTS counters: the count of each code (8/16-bit values, integer
//      luminance, half bits) or, for float samples and float luminance, the top-16 key counts,
//      Σm+, Σm-, Σ square_high(m), Σ square_low(m) per exponent bucket, +Inf and -Inf;
//   1  per channel, the count of the low 16 key bits of each finite float sample whose top 16
//      bits are one of the channel's targets (a short sorted list in binding 2).
//
// The pixel layout is specialization constants (every pixel read sample by sample, as 32-bit
// words); built twice: plain, and with fp32 denormals kept (IH_DENORM_PRESERVE), as histogram.comp.
//
// 64-bit counters without 64-bit atomics (a caller's device need not enable them): each is two
// 32-bit words, low then high (a little-endian uint64 on the host), added to by one atomicAdd
// on the low word and, where that wrapped, one carry into the high word. Exact in any order.
// Per work-group partials live in shared memory: 8-bit codes in 32-bit words (a work-group
// counts fewer than 2^32 pixels, so they cannot wrap), the bucket sums as 64-bit word pairs with
// the same carry (2^31 samples of m < 2^24 cannot wrap 64 bits); 16-bit, half and top-16 key
// counts (65,536 a channel) go straight to the global counters.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "contract/contract.h"

#if IH_DENORM_PRESERVE
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32);
#endif

layout(local_size_x = 256, local_size_x_id = 0) in;
#define WG gl_WorkGroupSize.x
layout(constant_id = 1) const uint BPS = 1;   // bytes per sample: 1, 2 or 4
layout(constant_id = 2) const uint HALF = 0;  // 2-byte samples are IEEE half
layout(constant_id = 3) const uint SPP = 1;   // samples per pixel
layout(constant_id = 4) const uint NCH = 1;   // channels of this dispatch (1..5)
layout(constant_id = 5) const uint SRC0 = 0;  // per channel: sample index, or IH_SRC_LUMA
layout(constant_id = 6) const uint SRC1 = 0;
layout(constant_id = 7) const uint SRC2 = 0;
layout(constant_id = 8) const uint SRC3 = 0;
layout(constant_id = 9) const uint SRC4 = 0;
layout(constant_id = 10) const uint RED = 0;
layout(constant_id = 11) const uint GREEN = 1;
layout(constant_id = 12) const uint BLUE = 2;
layout(constant_id = 13) const uint SELECT_MASK = 0;  // a mask byte per pixel in binding 3
layout(constant_id = 14) const uint ALPHA_KIND = 0;   // ih_alpha_passes's kind (IH_ALPHA_ALL: none)
layout(constant_id = 15) const uint ALPHA_SAMPLE = 0;
layout(constant_id = 16) const uint LOWS = 0;         // 0: first pass; 1: low key bits of the targets
const uint PIXELS_PER_INVOCATION = 16u;

const bool FLOAT_IMAGE = BPS == 4u || HALF != 0u;
const uint CODE_MASK = BPS == 1u ? 0xFFu : 0xFFFFu;
// Shared words of one channel: 8-bit codes, or the float sums (4 x 256 word pairs, then the
// +Inf and -Inf counts).
const uint SUM_WORDS = 4u * IH_SUM_BUCKETS * 2u;
const uint CHANNEL_WORDS = uint(BPS == 1u) * 256u + uint(FLOAT_IMAGE) * (SUM_WORDS + 2u);
const uint PART_WORDS = (1u - LOWS) * NCH * CHANNEL_WORDS + 1u;  // one unused word, never none
shared uint part[PART_WORDS];

layout(std430, binding = 0) readonly buffer PixelWords { uint words[]; };
layout(std430, binding = 1) buffer Counters { uint counters[]; };  // 64-bit: low word, high word
layout(std430, binding = 2) readonly buffer Targets { uint targets[]; };
layout(std430, binding = 3) readonly buffer MaskWords { uint mask_words[]; };

// SampleStatsPushConstants on the host.
layout(push_constant) uniform Params {
    uint pixels;     // in this dispatch (< 2^31)
    uint base_byte;  // where its first pixel starts in binding 0
    uint width;      // pixels per row
    uint stride;     // bytes per row
    uint mask_base;  // where its first mask byte starts in binding 3
    uint mask_pitch; // mask bytes per row
    uint alpha_least;
    uint first_channel;  // plan channel of this dispatch's channel 0
    uint weight_int[3];
    float weight_float[3];
} pc;

void add_counter(uint i, uint v) {
    const uint old = atomicAdd(counters[2u * i], v);
    if (old + v < old) atomicAdd(counters[2u * i + 1u], 1u);
}
void add_counter64(uint i, uint low, uint high) {
    const uint old = atomicAdd(counters[2u * i], low);
    const uint carried = high + (old + low < old ? 1u : 0u);
    if (carried != 0u) atomicAdd(counters[2u * i + 1u], carried);
}
void add_part64(uint w, uint v) {
    const uint old = atomicAdd(part[w], v);
    if (old + v < old) atomicAdd(part[w + 1u], 1u);
}

uint word_sample(uint at, uint i) {
    const uint b = at + i * BPS;
    const uint w = words[b >> 2];
    return BPS == 4u ? w : (w >> ((b & 3u) * 8u)) & CODE_MASK;
}

float sample_float(uint raw) { return uintBitsToFloat(HALF != 0u ? ih_half_to_float_bits(raw) : raw); }

bool selected(uint mask_at, uint s[4]) {
    if (SELECT_MASK != 0u && ((mask_words[mask_at >> 2] >> ((mask_at & 3u) * 8u)) & 0xFFu) == 0u) return false;
    if (ALPHA_KIND == IH_ALPHA_ALL) return true;
    const uint alpha = HALF != 0u ? ih_half_to_float_bits(s[ALPHA_SAMPLE]) : s[ALPHA_SAMPLE];
    return ih_alpha_passes(ALPHA_KIND, pc.alpha_least, alpha) != 0u;
}

// A channel's value: its code (integer sample, integer luminance, half bits) or fp32 bits.
uint channel_value(uint src, uint s[4]) {
    if (src != IH_SRC_LUMA) return s[min(src, 3u)];
    if (!FLOAT_IMAGE) return ih_luma_int(s[RED], s[GREEN], s[BLUE], pc.weight_int[0], pc.weight_int[1], pc.weight_int[2]);
    precise float y = ih_luma_float(sample_float(s[RED]), sample_float(s[GREEN]), sample_float(s[BLUE]),
                                    pc.weight_float[0], pc.weight_float[1], pc.weight_float[2]);
    return floatBitsToUint(y);
}

// Float values are fp32 bits: float samples, and the luminance of half and float images.
bool is_float_value(uint src) { return BPS == 4u || (HALF != 0u && src == IH_SRC_LUMA); }

void add_float_sums(uint c, uint bits) {
    const uint base = c * CHANNEL_WORDS;
    if (ih_is_finite_bits(bits) == 0u) {  // NaN adds nothing (the histogram counts it)
        if (bits == IH_POS_INF_BITS) atomicAdd(part[base + SUM_WORDS], 1u);
        if (bits == IH_NEG_INF_BITS) atomicAdd(part[base + SUM_WORDS + 1u], 1u);
        return;
    }
    const uint bucket = ih_sum_bucket(bits), m = ih_sum_mantissa(bits);
    // Word pairs in the contract's order: Σm+, Σm-, Σ square_high, Σ square_low.
    add_part64(((ih_sum_negative(bits) != 0u ? IH_SUM_BUCKETS : 0u) + bucket) * 2u + base, m);
    add_part64((2u * IH_SUM_BUCKETS + bucket) * 2u + base, ih_sum_square_high(m));
    add_part64((3u * IH_SUM_BUCKETS + bucket) * 2u + base, ih_sum_square_low(m));
    add_counter((pc.first_channel + c) * IH_STATS_SLOTS + (ih_float_key(bits) >> 16), 1u);
}

// The second pass: the target index of the key's top 16 bits among the channel's (binary
// search of targets[first .. end), which binding 2 lists after the channels' starts).
void add_key_low(uint c, uint bits) {
    if (ih_is_finite_bits(bits) == 0u) return;
    const uint key = ih_float_key(bits), top = key >> 16;
    const uint g = pc.first_channel + c;
    uint lo = targets[g], hi = targets[g + 1u];
    while (lo < hi) {
        const uint mid = (lo + hi) >> 1;
        if (targets[6u + mid] < top) lo = mid + 1u;
        else hi = mid;
    }
    if (lo < targets[g + 1u] && targets[6u + lo] == top) add_counter(lo * 65536u + (key & 0xFFFFu), 1u);
}

void count_pixel(uint at, uint mask_at) {
    uint s[4];
    [[unroll]] for (uint i = 0u; i < 4u; ++i) s[i] = i < SPP ? word_sample(at, i) : 0u;
    if (!selected(mask_at, s)) return;
    const uint src[5] = uint[5](SRC0, SRC1, SRC2, SRC3, SRC4);
    [[unroll]] for (uint c = 0u; c < 5u; ++c) {
        if (c >= NCH) continue;
        const uint v = channel_value(src[c], s);
        if (LOWS != 0u) {
            if (is_float_value(src[c])) add_key_low(c, v);
        } else if (is_float_value(src[c])) {
            add_float_sums(c, v);
        } else if (BPS == 1u) {
            atomicAdd(part[c * CHANNEL_WORDS + v], 1u);
        } else {
            add_counter((pc.first_channel + c) * IH_STATS_SLOTS + v, 1u);
        }
    }
}

// The work-group's shared partials into the global counters.
void merge_parts(uint lid) {
    for (uint w = lid; w < NCH * CHANNEL_WORDS; w += WG) {
        const uint c = w / CHANNEL_WORDS, i = w - c * CHANNEL_WORDS;
        const uint slots = (pc.first_channel + c) * IH_STATS_SLOTS;
        if (BPS == 1u) {
            if (part[w] != 0u) add_counter(slots + i, part[w]);
        } else if (i < SUM_WORDS) {
            if ((i & 1u) == 0u && (part[w] | part[w + 1u]) != 0u) add_counter64(slots + IH_STATS_POSITIVE + i / 2u, part[w], part[w + 1u]);
        } else if (part[w] != 0u) {
            add_counter(slots + IH_STATS_POS_INF + (i - SUM_WORDS), part[w]);
        }
    }
}

void main() {
    const uint lid = gl_LocalInvocationIndex;
    const uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    const uint per_group = WG * PIXELS_PER_INVOCATION;
    if (group >= (pc.pixels + per_group - 1u) / per_group) return;  // uniform
    const bool shared_parts = LOWS == 0u && CHANNEL_WORDS != 0u;
    if (shared_parts) {
        for (uint i = lid; i < PART_WORDS; i += WG) part[i] = 0u;
        barrier();
    }
    // Pixel p of the dispatch is row p / width, column p % width (a packed run of pixels has
    // stride = width pixels, so it may start mid-row); WG pixels a step.
    uint p = group * per_group + lid;
    uint y = p / pc.width, x = p - y * pc.width;
    const uint dy = WG / pc.width, dx = WG % pc.width;
    for (uint k = 0u; k < PIXELS_PER_INVOCATION && p < pc.pixels; ++k) {
        count_pixel(pc.base_byte + y * pc.stride + x * BPS * SPP, pc.mask_base + y * pc.mask_pitch + x);
        p += WG;
        x += dx;
        y += dy;
        if (x >= pc.width) {
            x -= pc.width;
            y += 1u;
        }
    }
    if (shared_parts) {
        barrier();
        merge_parts(lid);
    }
}
