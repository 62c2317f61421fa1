/*
 * The imghist contract in code: which slot every value of every pixel goes to.
 *
 * Every formula and constant of docs/semantics.md lives in this folder and nowhere else
 * (scripts/check-contract.sh fails the build when one appears outside it). The files are
 * written in the subset of C that C++, CUDA, OpenCL C and GLSL all compile (lang.h):
 *   binning.h      slot layout, classify (integer and float), the code -> count rule
 *   luminance.h    integer and fp32 luminance, the exact 8-bit quotient
 *   half.h         half -> float widening
 *   formats.h      pixel formats: sample type, samples per pixel, colour positions
 *   packed.h       packed pixels (one 32-bit word of bit fields) decoded into samples
 *   value_mode.h   raw 8-bit values counted and classified at the merge; the bank swizzle
 *   kernel_args.h  ih_bin_args, the one struct every kernel takes
 *   regions.h      tiles: where each tile starts and how many pixels it holds
 *   selection.h    masks and alpha thresholds: whether a pixel is counted
 */
#ifndef IMGHIST_CONTRACT_H
#define IMGHIST_CONTRACT_H

#include "contract/binning.h"
#include "contract/exact_sum.h"
#include "contract/formats.h"
#include "contract/half.h"
#include "contract/kernel_args.h"
#include "contract/lang.h"
#include "contract/luminance.h"
#include "contract/packed.h"
#include "contract/regions.h"
#include "contract/selection.h"
#include "contract/value_mode.h"

#endif /* IMGHIST_CONTRACT_H */
