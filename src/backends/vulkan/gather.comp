// Masks and alpha thresholds on device images (interop.cpp, Impl::gather_device): packs the
// pixels of `rows` rows that the mask (has_mask) and the alpha test (contract/selection.h) keep
// into `out`, in any order (a histogram does not depend on it); the host then counts them as a
// one-row image. Word 0 of `out` receives how many; the pixels start at byte kPixelsAt. Each
// work-group numbers its kept pixels with a shared atomic and reserves their place with one
// atomic on word 0. GLSL has no byte stores without an extension, so pixels of other sizes than
// whole aligned words are ORed in byte by byte into the zeroed output.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_GOOGLE_include_directive : require
#include "contract/contract.h"

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Image { uint image[]; };
layout(std430, binding = 1) readonly buffer Mask { uint mask[]; };
layout(std430, binding = 2) buffer Out { uint out_words[]; };

const uint kPixelsAt = 256u;  // bytes before the first packed pixel (word 0: the count)

layout(push_constant) uniform Params {
    uint image_base, image_pitch, width, rows, pixel_bytes;  // bytes from the bound offset
    uint mask_base, mask_pitch, has_mask;
    uint alpha_kind, alpha_least, alpha_at, alpha_type;
} pc;

shared uint group_count, group_base;

uint image_byte(uint at) { return (image[at >> 2] >> ((at & 3u) * 8u)) & 0xFFu; }

void main() {
    if (gl_LocalInvocationIndex == 0u) group_count = 0u;
    barrier();
    const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationIndex;
    bool keep = false;
    uint from = 0u;
    if (i < pc.width * pc.rows) {
        const uint y = i / pc.width, x = i - y * pc.width;
        from = pc.image_base + y * pc.image_pitch + x * pc.pixel_bytes;
        keep = true;
        if (pc.has_mask != 0u) {
            const uint m = pc.mask_base + y * pc.mask_pitch + x;
            keep = ((mask[m >> 2] >> ((m & 3u) * 8u)) & 0xFFu) != 0u;
        }
        if (keep && pc.alpha_kind != IH_ALPHA_ALL) {
            const uint a = from + pc.alpha_at;
            uint alpha = image_byte(a);
            if (pc.alpha_type != IH_T_U8) alpha |= image_byte(a + 1u) << 8;
            if (pc.alpha_type == IH_T_F32) alpha |= (image_byte(a + 2u) << 16) | (image_byte(a + 3u) << 24);
            if (pc.alpha_type == IH_T_F16) alpha = ih_half_to_float_bits(alpha);
            keep = ih_alpha_passes(pc.alpha_kind, pc.alpha_least, alpha) != 0u;
        }
    }
    const uint place = keep ? atomicAdd(group_count, 1u) : 0u;
    barrier();
    if (gl_LocalInvocationIndex == 0u) group_base = group_count != 0u ? atomicAdd(out_words[0], group_count) : 0u;
    barrier();
    if (!keep) return;
    const uint to = kPixelsAt + (group_base + place) * pc.pixel_bytes;
    if ((pc.pixel_bytes & 3u) == 0u && (from & 3u) == 0u) {
        for (uint b = 0u; b < pc.pixel_bytes; b += 4u) out_words[(to + b) >> 2] = image[(from + b) >> 2];
    } else {
        for (uint b = 0u; b < pc.pixel_bytes; ++b)
            atomicOr(out_words[(to + b) >> 2], image_byte(from + b) << (((to + b) & 3u) * 8u));
    }
}
