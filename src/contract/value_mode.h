/*
 * Value mode: an 8-bit sample, and the integer luminance of 8-bit samples, takes one of
 * IH_VALUE_SLOTS values. A kernel may count each channel's raw values and classify every value
 * once when it merges its counts (ih_classify_int of the value: the same code the sample would
 * have had), so every 8-bit request runs the same hot loop. Part of the contract (contract.h).
 */
#ifndef IMGHIST_CONTRACT_VALUE_MODE_H
#define IMGHIST_CONTRACT_VALUE_MODE_H

#include "contract/formats.h"
#include "contract/lang.h"

#define IH_VALUE_SLOTS IH_U(256)

IH_FN IH_U32 ih_value_mode_fits(IH_U32 sample_type) { return sample_type == IH_T_U8 ? IH_U(1) : IH_U(0); }

/*
 * The bank swizzle of value slots: the low three bits of a value XOR its top three, so values
 * 32 apart (b, b + 32, ..., b + 224, which would put every lane of a warp on one bank of one
 * copy) land on 8 banks. It is its own inverse: a merge maps a slot back to its value the same
 * way. ih_value_swizzle takes a value (< IH_VALUE_SLOTS): its top bits need no mask, which saves
 * an instruction per sample in the hot loop (OpenCL on the H200: 8K RGBA8 R,G,B,Y on
 * bank-adversarial data ran 12% slower with the mask). ih_value_slot_swizzle takes
 * channel * IH_VALUE_SLOTS + value and leaves the channel bits alone: the same permutation.
 */
IH_FN IH_U32 ih_value_swizzle(IH_U32 v) { return v ^ (v >> 5); }
IH_FN IH_U32 ih_value_slot_swizzle(IH_U32 s) { return s ^ ((s >> 5) & IH_U(7)); }

#endif /* IMGHIST_CONTRACT_VALUE_MODE_H */
