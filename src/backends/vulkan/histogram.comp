// imghist Vulkan histogram shader: the seed's design (256 invocations, a shared histogram
// cleared behind a barrier, shared atomicAdd per sample, a barrier, then one global atomicAdd
// per non-zero bin), extended to the whole contract. The bin math comes from binning.h.
//
// Compiled at build time once per pixel layout (glslc -D):
//   IH_BPS  bytes per sample: 1 (u8), 2 (u16 or f16), 4 (f32)
//   IH_HALF 1 when 2-byte samples are IEEE half
//   IH_SPP  samples per pixel: 1, 3 or 4
// Everything else is a specialization constant (structure, taken from the pass's ih_bin_args)
// or a push constant (the pass's ih_bin_args, kernel_args.h, and the tile's launch fields).
//
// Pixels are read as 32-bit words (never 8/16-bit storage). The packed path reads one "unit"
// of 16 bytes (48 for 3-, 6- and 12-byte pixels) with uvec4 loads; a pixel never straddles a
// unit and a sample never straddles a word. The strided path (caller buffers with a row pitch)
// reads each sample's word on its own.
//
// Counters: shared counters per work-group, merged with one global 32-bit atomicAdd per
// non-zero slot. The host keeps every dispatch below 2^32 pixels and flushes the 32-bit
// counters into 64-bit totals (flush.comp) after each one. Three shared layouts (LAYOUT):
//   copies  COPIES interleaved copies of every slot, invocation lid counting into lid % COPIES;
//   lanes   one 32-bit counter per slot and lane (lid % 32): a warp's lanes never share a bank;
//   pairs   lanes 2k and 2k+1 share a word, as its low and high 16 bits, so three 8-bit
//           channels fit NVIDIA's 48 KiB; at most two lanes meet on a bank, and the increment
//           is a per-invocation constant (no per-sample shift). A half is bumped only by the
//           WG/32 invocations of one lane; the host bounds their samples below 2^16.
// VALUE_MODE (8-bit samples): count the raw value 0..255 of each channel (and the integer
// luminance, also 0..255) and classify each value once in the merge, so every request runs
// the same hot loop and the shared counters need no nan/below/above slots.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Edge bins (EDGES): the plan's edge keys, which the contract's edge search reads through
// IH_EDGE_KEY (lang.h), then for float samples the code table of their blocks and its window
// (classify_float); one unread word for uniform bins.
layout(std430, binding = 2) readonly buffer EdgeKeys { uint edge_keys[]; };
layout(constant_id = 6) const uint BINS = 256;
// 1: each work-group copies the BINS + 1 edge keys into shared memory, behind its counters
// (hist), and the search reads them there. Declared here, defined once hist is.
layout(constant_id = 27) const uint SHARED_KEYS = 0;
uint edge_key(uint i);
#define IH_EDGE_KEY(i) edge_key(i)
#include "contract/contract.h"

// fp32 luminance of denormal inputs must not be flushed to zero (the contract rounds every
// operation in IEEE fp32). Variants built with IH_DENORM_PRESERVE ask for it explicitly
// (VK_KHR_shader_float_controls, shaderDenormPreserveFloat32); NVIDIA flushes otherwise.
#if IH_DENORM_PRESERVE
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32);
#endif

#ifndef IH_BPS
#error "IH_BPS must be defined"
#endif
#define IH_FLOAT_SAMPLES (IH_BPS == 4 || IH_HALF == 1)
#define PIXEL_BYTES (IH_BPS * IH_SPP)
#if (PIXEL_BYTES % 3) == 0
#define UNIT_VEC4 3
#else
#define UNIT_VEC4 1
#endif
#define UNIT_PIXELS ((16 * UNIT_VEC4) / PIXEL_BYTES)
#define BATCH 4  // units loaded before any of them is counted
// Invocations per work-group: a specialization constant (Tuning::group_size).
layout(local_size_x = 256, local_size_x_id = 21) in;
#define WG gl_WorkGroupSize.x

// The structural fields of the pass's ih_bin_args, as constants the compiler folds.
layout(constant_id = 0) const uint NCH = 1;  // channels counted by this pass (1..5)
layout(constant_id = 1) const uint SRC0 = 0;  // per channel: ih_args_source (IH_SRC_LUMA: luminance)
layout(constant_id = 2) const uint SRC1 = 0;
layout(constant_id = 3) const uint SRC2 = 0;
layout(constant_id = 4) const uint SRC3 = 0;
layout(constant_id = 5) const uint SRC4 = 0;
layout(constant_id = 7) const uint INT_MODE = 0;
layout(constant_id = 8) const uint SHIFT = 0;
layout(constant_id = 9) const uint CLAMP = 0;
layout(constant_id = 10) const uint CLOSED_TOP = 0;
layout(constant_id = 11) const uint COPIES = 1;   // shared copies of every slot (power of two <= 32)
layout(constant_id = 12) const uint SWIZZLE = 0;  // spread bins over banks when COPIES < 32
layout(constant_id = 13) const uint ROUNDS = 1;   // BATCH units per round per invocation
layout(constant_id = 14) const uint STRIDED = 0;  // 1: rows `stride` bytes apart, word loads
layout(constant_id = 15) const uint RED = 0;  // ih_args_red, ih_args_green, ih_args_blue
layout(constant_id = 16) const uint GREEN = 1;
layout(constant_id = 17) const uint BLUE = 2;
layout(constant_id = 18) const uint HAS_LUMA = 0;
layout(constant_id = 19) const uint LAYOUT = 0;      // 0 copies, 1 lanes, 2 pairs (see above)
layout(constant_id = 20) const uint VALUE_MODE = 0;  // 1: 8-bit raw values, classified in the merge
layout(constant_id = 22) const uint EDGES = 0;       // 1: edge bins (ih_classify_edge_key)
// 1: the dispatch is the rows of one row of tiles of a tile grid (strided rows of the grid's
// area): tile column t is counted by GROUPS_PER_PIECE work-groups into the counters from
// out_slot + t * tile_slots (push constants tiles_x, tile_slots, groups_per_piece).
layout(constant_id = 23) const uint TILES = 0;
// Float edge bins: the code window (core/plan.hpp, FloatCodeWindow), WINDOW_WORDS words of two
// 16-bit entries for the blocks of floats bits >> WINDOW_SHIFT = WINDOW_FIRST on, copied by each
// work-group from after the whole table into hist, behind the keys. 0 words: none.
layout(constant_id = 24) const uint WINDOW_SHIFT = 16;
layout(constant_id = 25) const uint WINDOW_FIRST = 0;
layout(constant_id = 26) const uint WINDOW_WORDS = 0;
const uint TABLE_WORDS = 32768u;  // the whole table: 65536 entries by the top 16 bits
// A device selection (never with TILES): a pixel is counted only where its mask byte (binding 3,
// one byte a pixel, SELECT_MASK) is non-zero and its sample ALPHA_SAMPLE passes the contract's
// alpha test ALPHA_KIND (ih_alpha_passes; IH_ALPHA_ALL: no test); a dropped pixel counts nowhere.
// COUNT_SELECTED (the first pass): the work-group's selected pixels go to counter 0 (the plan's
// counters follow it), with one atomic.
layout(constant_id = 28) const uint SELECT_MASK = 0;
layout(constant_id = 29) const uint ALPHA_KIND = 0;
layout(constant_id = 30) const uint ALPHA_SAMPLE = 0;
layout(constant_id = 31) const uint COUNT_SELECTED = 0;
const bool SELECTS = SELECT_MASK != 0u || ALPHA_KIND != IH_ALPHA_ALL;
const uint SELECTED_SLOT = 0u;

const uint SLOTS = BINS + IH_EXTRA_SLOTS;  // per channel, in the global counters
const uint LAYOUT_LANES = 1u, LAYOUT_PAIRS = 2u;
const uint CHANNEL_SLOTS = VALUE_MODE * IH_VALUE_SLOTS + (1u - VALUE_MODE) * SLOTS;  // per channel, shared
const uint COUNTED = NCH * CHANNEL_SLOTS;
// Words per shared slot: COPIES, 32 lanes or 16 lane pairs.
const uint SLOT_WORDS = uint(LAYOUT == 0u) * COPIES + uint(LAYOUT == LAYOUT_LANES) * 32u +
                        uint(LAYOUT == LAYOUT_PAIRS) * 16u;
// Rounded up to 32 slots so the bank swizzle stays inside the array.
const uint SHARED_SLOTS = ((COUNTED + 31u) / 32u) * 32u;
const uint GROUP = 32u / COPIES;  // slots that share one row of 32 banks
// The counters, then (edge bins) the keys and the code window: one array, so that a plan without
// them declares no shared memory beyond its counters (a layout may fill the device's limit).
const uint HIST_WORDS = SHARED_SLOTS * SLOT_WORDS;
const uint KEYS_AT = HIST_WORDS, KEY_WORDS = SHARED_KEYS * (BINS + 1u);
const uint WINDOW_AT = KEYS_AT + KEY_WORDS;
shared uint hist[WINDOW_AT + WINDOW_WORDS];

uint edge_key(uint i) { return SHARED_KEYS != 0u ? hist[KEYS_AT + i] : edge_keys[i]; }

layout(std430, binding = 0) readonly buffer PixelUnits { uvec4 units[]; };
layout(std430, binding = 0) readonly buffer PixelWords { uint words[]; };
layout(std430, binding = 1) buffer Counts { uint counts[]; };
layout(std430, binding = 3) readonly buffer MaskUnits { uvec4 mask_units[]; };
layout(std430, binding = 3) readonly buffer MaskWords { uint mask_words[]; };

// 128 bytes: the most that every Vulkan device offers (HistPushConstants on the host).
layout(push_constant) uniform Params {
    ih_bin_args bin;  // the pass's bin math (its structural fields are also constants above)
    uint pixels;     // pixels in this tile (< 2^31)
    uint base_byte;  // where the tile's first pixel starts in the bound range
    uint width;      // strided path: pixels per row
    uint stride;     // strided path: bytes per row
    uint out_slot;   // first global counter of this pass's channels
    // TILES and a selection never meet: the last three words serve one or the other.
    uint tiles_x;           // TILES: tiles in the row of tiles;          selection: mask_base
    uint tile_slots;        // TILES: counters from one tile to the next; selection: mask_pitch
    uint groups_per_piece;  // TILES: work-groups per tile;               selection: alpha_least
} pc;
uint mask_base() { return pc.tiles_x; }          // where the tile's first mask byte lies in binding 3
uint mask_pitch() { return pc.tile_slots; }      // strided path: mask bytes per row
uint alpha_least() { return pc.groups_per_piece; }  // ih_alpha_passes's least

// Index of the first copy of a slot; the swizzle permutes slots inside each row of banks.
uint slot_index(uint s) {
    if (SWIZZLE != 0u && VALUE_MODE != 0u) {
        // Value slots: the contract's two-instruction swizzle (value_mode.h); the general
        // swizzle below, for bin slots, is this backend's own bank layout.
        s = ih_value_slot_swizzle(s);
    } else if (SWIZZLE != 0u && GROUP > 1u) {
        uint h = (s / GROUP) ^ (s / (GROUP * GROUP)) ^ (s / (GROUP * GROUP * GROUP));
        s ^= h % GROUP;
    }
    return s * COPIES;
}

// This invocation's counter of a shared slot: word slot * SLOT_WORDS + g_word, add g_inc.
uint g_word;  // copy (copies), lane (lanes) or lane pair (pairs)
uint g_inc;   // 1, or 1 << 16 for the odd lane of a pair

void count_slot(uint slot) {
    if (LAYOUT == 0u) atomicAdd(hist[slot_index(slot) + g_word], 1u);
    else atomicAdd(hist[slot * SLOT_WORDS + g_word], g_inc);
}

// The contract's code -> count rule (binning.h) on this invocation's shared counters.
void add_code(uint channel, uint code) {
    uint base = channel * SLOTS;
    count_slot(base + ih_code_slot(code));
    if (ih_code_has_extra(code) != 0u) count_slot(base + ih_code_extra_slot(code, BINS));
}

// ih_args_classify_* with the structural fields as constants. The 64-bit range ends are joined
// once per invocation (main), not per sample.
int64_t g_lo_int, g_hi_int;
uint classify_int(uint v) {
    if (EDGES != 0u) return ih_classify_edge_key(v, BINS, CLAMP);
    return ih_classify_int(v, INT_MODE, SHIFT, BINS, g_lo_int, g_hi_int, CLAMP);
}
#if IH_FLOAT_SAMPLES
uint classify_float(float v) {
    if (EDGES != 0u) {
        // The code table after the keys (HistogramCore::edge_keys): the block's code, or where its
        // floats hold more than one, the edge to walk from (IH_CODE16_EDGE_HINT) or none.
        const uint bits = floatBitsToUint(v);
        const uint w = (bits >> WINDOW_SHIFT) - WINDOW_FIRST;  // negative floats wrap past the window
        const uint e = WINDOW_WORDS != 0u && w < 2u * WINDOW_WORDS
                           ? (hist[WINDOW_AT + (w >> 1)] >> ((w & 1u) << 4)) & 0xFFFFu
                           : ih_code16_table_entry(edge_keys[BINS + 1u + (bits >> 17)], bits);
        return ih_classify_float_code16(v, e, BINS, CLAMP);
    }
    return ih_classify_float(v, BINS, pc.bin.lo_float, pc.bin.scale_float, pc.bin.lo_key, pc.bin.hi_key,
                             CLOSED_TOP, CLAMP);
}
// A sample as float: ih_sample_float_bits of the variant's sample type. The fp32 variant takes
// its samples as they are without the call, whose half branch (a loop until it is folded away)
// would keep glslc from unrolling the pixel loops.
#if IH_HALF
float sample_float(uint raw) { return uintBitsToFloat(ih_sample_float_bits(raw, IH_T_F16)); }
#else
float sample_float(uint raw) { return uintBitsToFloat(raw); }
#endif
#endif

uint classify_sample(uint raw) {
#if IH_FLOAT_SAMPLES
    return classify_float(sample_float(raw));
#else
    return classify_int(raw);
#endif
}

// A selection: whether the pixel of mask byte `mask_byte` and raw samples s is counted; counts it
// among the work-group's selected pixels.
uint g_selected = 0u;
bool selected(uint mask_byte, uint s[4]) {
    if (!SELECTS) return true;
    if (SELECT_MASK != 0u && mask_byte == 0u) return false;
    if (ALPHA_KIND != IH_ALPHA_ALL) {
#if IH_HALF
        const uint alpha = ih_half_to_float_bits(s[ALPHA_SAMPLE]);
#else
        const uint alpha = s[ALPHA_SAMPLE];
#endif
        if (ih_alpha_passes(ALPHA_KIND, alpha_least(), alpha) == 0u) return false;
    }
    g_selected += 1u;
    return true;
}

// Counts one pixel given its raw samples (integers, half bits or float bits) and, with a mask,
// its mask byte.
void count_pixel(uint s0, uint s1, uint s2, uint s3, uint mask_byte) {
    uint s[4] = uint[4](s0, s1, s2, s3);
    if (!selected(mask_byte, s)) return;
    const uint src[5] = uint[5](SRC0, SRC1, SRC2, SRC3, SRC4);
#if IH_BPS == 1
    if (VALUE_MODE != 0u) {
        uint y = HAS_LUMA != 0u ? ih_args_luma_int(s[RED], s[GREEN], s[BLUE], pc.bin) : 0u;
        [[unroll]] for (uint c = 0u; c < 5u; ++c) {
            if (c < NCH) count_slot(c * IH_VALUE_SLOTS + (src[c] == IH_SRC_LUMA ? y : s[min(src[c], 3u)]));
        }
        return;
    }
#endif
    uint luma_code = 0u;
    if (HAS_LUMA != 0u) {
#if IH_FLOAT_SAMPLES
        precise float y = ih_args_luma_float(sample_float(s[RED]), sample_float(s[GREEN]), sample_float(s[BLUE]), pc.bin);
        luma_code = classify_float(y);
#else
        luma_code = classify_int(ih_args_luma_int(s[RED], s[GREEN], s[BLUE], pc.bin));
#endif
    }
    [[unroll]] for (uint c = 0u; c < 5u; ++c) {
        if (c < NCH) add_code(c, src[c] == IH_SRC_LUMA ? luma_code : classify_sample(s[min(src[c], 3u)]));
    }
}

// Sample `i` of a pixel starting at byte `at`, from one 32-bit word.
uint word_sample(uint at, uint i) {
    uint b = at + i * uint(IH_BPS);
    uint w = words[b >> 2];
#if IH_BPS == 4
    return w;
#else
    return (w >> ((b & 3u) * 8u)) & ((1u << (8u * uint(IH_BPS))) - 1u);
#endif
}

// Mask byte `at` of binding 3 (0 without a mask, never read then).
uint mask_byte_at(uint at) {
    return SELECT_MASK != 0u ? (mask_words[at >> 2] >> ((at & 3u) * 8u)) & 0xFFu : 0u;
}

// The pixel starting at byte `at`, whose mask byte is byte `mask_at` of binding 3.
void count_pixel_at(uint at, uint mask_at) {
    uint s0 = word_sample(at, 0u);
    uint s1 = IH_SPP > 1 ? word_sample(at, 1u) : 0u;
    uint s2 = IH_SPP > 2 ? word_sample(at, 2u) : 0u;
    uint s3 = IH_SPP > 3 ? word_sample(at, 3u) : 0u;
    count_pixel(s0, s1, s2, s3, mask_byte_at(mask_at));
}

// Sample `i` of pixel `j` of a unit held in registers (indices are constants once unrolled).
uint unit_sample(uvec4 q[UNIT_VEC4], uint j, uint i) {
    uint b = j * uint(PIXEL_BYTES) + i * uint(IH_BPS);
    uint w = q[b >> 4][(b >> 2) & 3u];
#if IH_BPS == 4
    return w;
#else
    return (w >> ((b & 3u) * 8u)) & ((1u << (8u * uint(IH_BPS))) - 1u);
#endif
}

// The mask bytes of packed unit `u`'s pixels, loaded at once: byte j of the result is pixel j's.
// The host binds a packed mask from a 16-byte boundary (mask_base % 16 == 0), so 16 pixels' bytes
// are one uvec4, 8 two words, and fewer lie inside one word.
uvec4 unit_mask(uint u) {
    if (SELECT_MASK == 0u) return uvec4(0u);
    const uint at = mask_base() + u * uint(UNIT_PIXELS);
#if UNIT_PIXELS == 16
    return mask_units[at >> 4];
#elif UNIT_PIXELS == 8
    return uvec4(mask_words[at >> 2], mask_words[(at >> 2) + 1u], 0u, 0u);
#else
    return uvec4(mask_words[at >> 2] >> ((at & 3u) * 8u), 0u, 0u, 0u);
#endif
}

void count_unit(uvec4 q[UNIT_VEC4], uvec4 mask) {
    [[unroll]] for (uint j = 0u; j < uint(UNIT_PIXELS); ++j) {
        count_pixel(unit_sample(q, j, 0u), IH_SPP > 1 ? unit_sample(q, j, 1u) : 0u,
                    IH_SPP > 2 ? unit_sample(q, j, 2u) : 0u, IH_SPP > 3 ? unit_sample(q, j, 3u) : 0u,
                    (mask[j >> 2] >> ((j & 3u) * 8u)) & 0xFFu);
    }
}

void main() {
    const uint lid = gl_LocalInvocationIndex;
    const uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    const uint units_per_group = WG * ROUNDS * uint(BATCH);
    const uint pixels_per_group = units_per_group * uint(UNIT_PIXELS);
    const uint groups = TILES != 0u ? pc.tiles_x * pc.groups_per_piece : (pc.pixels + pixels_per_group - 1u) / pixels_per_group;
    if (group >= groups) return;  // uniform

    g_lo_int = ih_args_lo_int(pc.bin);
    g_hi_int = ih_args_hi_int(pc.bin);
    for (uint i = lid; i < HIST_WORDS; i += WG) hist[i] = 0u;
    for (uint i = lid; i < KEY_WORDS; i += WG) hist[KEYS_AT + i] = edge_keys[i];
    for (uint i = lid; i < WINDOW_WORDS; i += WG) hist[WINDOW_AT + i] = edge_keys[BINS + 1u + TABLE_WORDS + i];
    barrier();

    const uint lane = lid & 31u;
    g_word = LAYOUT == 0u ? lid % COPIES : LAYOUT == LAYOUT_LANES ? lane : lane >> 1;
    g_inc = (LAYOUT == LAYOUT_PAIRS && (lane & 1u) != 0u) ? 0x10000u : 1u;
    // TILES: this work-group's tile column (its piece of the rows) and its part of it.
    const uint piece = TILES != 0u ? group / pc.groups_per_piece : 0u;
    if (TILES != 0u) {
        const uint part = group - piece * pc.groups_per_piece;
        const uint x0 = ih_tile_start(piece, pc.width, pc.tiles_x);
        const uint w = ih_tile_length(piece, pc.width, pc.tiles_x);
        const uint rows = pc.pixels / pc.width;
        // Pixel i of the piece is row i / w, column i % w: stepped without a division.
        const uint step = pc.groups_per_piece * WG, i0 = part * WG + lid;
        const uint dr = step / w, dx = step - dr * w;
        uint r = i0 / w, x = i0 - r * w;
        while (r < rows) {
            count_pixel_at(pc.base_byte + r * pc.stride + (x0 + x) * uint(PIXEL_BYTES), 0u);
            x += dx;
            r += dr;
            if (x >= w) {
                x -= w;
                r += 1u;
            }
        }
    } else if (STRIDED != 0u) {
        // Pixel p of the tile is row p / width, column p % width; step WG pixels at a time.
        uint p = group * pixels_per_group + lid;
        uint y = p / pc.width;
        uint x = p - y * pc.width;
        const uint dy = WG / pc.width, dx = WG % pc.width;
        for (uint k = 0u; k < uint(UNIT_PIXELS) * ROUNDS * uint(BATCH); ++k) {
            if (p >= pc.pixels) break;
            count_pixel_at(pc.base_byte + y * pc.stride + x * uint(PIXEL_BYTES), mask_base() + y * mask_pitch() + x);
            p += WG;
            x += dx;
            y += dy;
            if (x >= pc.width) {
                x -= pc.width;
                y += 1u;
            }
        }
    } else {
        // Packed: units of UNIT_VEC4 uvec4s; the last, partial unit is read word by word.
        const uint full_units = pc.pixels / uint(UNIT_PIXELS);
        const uint first_vec4 = pc.base_byte >> 4;
        uint u = group * units_per_group + lid;
        for (uint r = 0u; r < ROUNDS; ++r) {
            uvec4 q[BATCH][UNIT_VEC4];
            uvec4 m[BATCH];
            [[unroll]] for (uint k = 0u; k < uint(BATCH); ++k) {
                uint uk = u + k * WG;
                [[unroll]] for (uint v = 0u; v < uint(UNIT_VEC4); ++v)
                    q[k][v] = uk < full_units ? units[first_vec4 + uk * uint(UNIT_VEC4) + v] : uvec4(0u);
                m[k] = uk < full_units ? unit_mask(uk) : uvec4(0u);
            }
            [[unroll]] for (uint k = 0u; k < uint(BATCH); ++k) {
                uint uk = u + k * WG;
                if (uk < full_units) {
                    count_unit(q[k], m[k]);
                } else if (uk == full_units) {
                    for (uint p = full_units * uint(UNIT_PIXELS); p < pc.pixels; ++p)
                        count_pixel_at(pc.base_byte + p * uint(PIXEL_BYTES), mask_base() + p);
                }
            }
            u += uint(BATCH) * WG;
        }
    }
    barrier();

    // Merge: one global atomic per non-zero slot. Each invocation starts at a different word
    // of its slot's row, so the reads spread over the banks.
    for (uint s = lid; s < COUNTED; s += WG) {
        uint sum = 0u;
        if (LAYOUT == 0u) {
            uint first = slot_index(s);
            for (uint c = 0u; c < COPIES; ++c) sum += hist[first + ((c + lid) % COPIES)];
        } else {
            for (uint j = 0u; j < SLOT_WORDS; ++j) {
                uint w = hist[s * SLOT_WORDS + ((j + lid) % SLOT_WORDS)];
                sum += LAYOUT == LAYOUT_PAIRS ? (w & 0xFFFFu) + (w >> 16) : w;
            }
        }
        if (sum == 0u) continue;
#if IH_BPS == 1
        if (VALUE_MODE != 0u) {
            // Slot s counted a value of channel s / IH_VALUE_SLOTS: classify it once, here.
            uint code = classify_int(s % IH_VALUE_SLOTS);
            uint base = pc.out_slot + piece * pc.tile_slots + (s / IH_VALUE_SLOTS) * SLOTS;
            atomicAdd(counts[base + ih_code_slot(code)], sum);
            if (ih_code_has_extra(code) != 0u) atomicAdd(counts[base + ih_code_extra_slot(code, BINS)], sum);
            continue;
        }
#endif
        atomicAdd(counts[pc.out_slot + piece * pc.tile_slots + s], sum);
    }
    if (COUNT_SELECTED != 0u) {
        // The work-group's selected pixels, summed in hist[0] once the merge has read it.
        barrier();
        if (lid == 0u) hist[0] = 0u;
        barrier();
        if (g_selected != 0u) atomicAdd(hist[0], g_selected);
        barrier();
        if (lid == 0u && hist[0] != 0u) atomicAdd(counts[SELECTED_SLOT], hist[0]);
    }
}
