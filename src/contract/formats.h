/*
 * Pixel formats: how a pixel's bytes become samples, and which sample is which colour.
 * Codes are the values of imghist::PixelFormat (include/imghist/image.hpp; src/core/image.cpp
 * checks that they agree). A new format is one row in each of the functions below plus its
 * enum value: every backend reads its pixels through these. Part of the contract (contract.h).
 */
#ifndef IMGHIST_CONTRACT_FORMATS_H
#define IMGHIST_CONTRACT_FORMATS_H

#include "contract/half.h"
#include "contract/lang.h"
#include "contract/packed.h"

/* Sample types. */
#define IH_T_U8 IH_U(0)
#define IH_T_U16 IH_U(1)
#define IH_T_F16 IH_U(2)
#define IH_T_F32 IH_U(3)

#define IH_FMT_GRAY8 IH_U(0)
#define IH_FMT_RGB8 IH_U(1)
#define IH_FMT_RGBA8 IH_U(2)
#define IH_FMT_BGRA8 IH_U(3)
#define IH_FMT_GRAY16 IH_U(4)
#define IH_FMT_RGB16 IH_U(5)
#define IH_FMT_RGBA16 IH_U(6)
#define IH_FMT_GRAY_F16 IH_U(7)
#define IH_FMT_RGB_F16 IH_U(8)
#define IH_FMT_RGBA_F16 IH_U(9)
#define IH_FMT_GRAY_F32 IH_U(10)
#define IH_FMT_RGB_F32 IH_U(11)
#define IH_FMT_RGBA_F32 IH_U(12)
#define IH_FMT_BGR8 IH_U(13)
#define IH_FMT_RGBA8_SRGB IH_U(14)
#define IH_FMT_BGRA8_SRGB IH_U(15)
#define IH_FMT_B10G11R11_UFLOAT IH_U(16)
#define IH_FORMATS IH_U(17)

/* No such sample in the pixel (ih_format_alpha of a format without alpha). */
#define IH_NO_SAMPLE IH_U(15)

/* The format whose samples a pixel is counted as. sRGB formats count their stored 8-bit codes,
 * as the UNORM format of the same layout (docs/semantics.md, "Images"); a packed format counts
 * as the samples it decodes to (packed.h): B10G11R11_UFLOAT as three fp32 samples. */
IH_FN IH_U32 ih_format_counted_as(IH_U32 f)
{
    if (f == IH_FMT_RGBA8_SRGB) return IH_FMT_RGBA8;
    if (f == IH_FMT_BGRA8_SRGB) return IH_FMT_BGRA8;
    if (f == IH_FMT_B10G11R11_UFLOAT) return IH_FMT_RGB_F32;
    return f;
}

/* Whether a pixel is one 32-bit word of bit fields, decoded (packed.h) before it is counted. */
IH_FN IH_U32 ih_format_packed(IH_U32 f) { return f == IH_FMT_B10G11R11_UFLOAT ? IH_U(1) : IH_U(0); }

IH_FN IH_U32 ih_format_sample_type(IH_U32 f)
{
    f = ih_format_counted_as(f);
    if (f <= IH_FMT_BGRA8 || f == IH_FMT_BGR8) return IH_T_U8;
    if (f <= IH_FMT_RGBA16) return IH_T_U16;
    if (f <= IH_FMT_RGBA_F16) return IH_T_F16;
    return IH_T_F32;
}

IH_FN IH_U32 ih_sample_bytes(IH_U32 t)
{
    return t == IH_T_U8 ? IH_U(1) : t == IH_T_F32 ? IH_U(4) : IH_U(2);
}

/* Samples per pixel. */
IH_FN IH_U32 ih_format_samples(IH_U32 f)
{
    f = ih_format_counted_as(f);
    if (f == IH_FMT_GRAY8 || f == IH_FMT_GRAY16 || f == IH_FMT_GRAY_F16 || f == IH_FMT_GRAY_F32) return IH_U(1);
    if (f == IH_FMT_RGB8 || f == IH_FMT_BGR8 || f == IH_FMT_RGB16 || f == IH_FMT_RGB_F16 || f == IH_FMT_RGB_F32) return IH_U(3);
    return IH_U(4);
}

/* Sample index of each colour within a pixel. Gray formats give sample 0 for red, green and
 * blue (their luminance is the gray value, docs/semantics.md). */
IH_FN IH_U32 ih_format_red(IH_U32 f)
{
    f = ih_format_counted_as(f);
    return (f == IH_FMT_BGRA8 || f == IH_FMT_BGR8) ? IH_U(2) : IH_U(0);
}
IH_FN IH_U32 ih_format_green(IH_U32 f) { return ih_format_samples(f) == IH_U(1) ? IH_U(0) : IH_U(1); }
IH_FN IH_U32 ih_format_blue(IH_U32 f)
{
    f = ih_format_counted_as(f);
    if (ih_format_samples(f) == IH_U(1)) return IH_U(0);
    return (f == IH_FMT_BGRA8 || f == IH_FMT_BGR8) ? IH_U(0) : IH_U(2);
}
/* Bytes of one pixel in memory: a packed pixel is one 32-bit word. */
IH_FN IH_U32 ih_format_pixel_bytes(IH_U32 f)
{
    if (ih_format_packed(f) != IH_U(0)) return IH_U(4);
    return ih_format_samples(f) * ih_sample_bytes(ih_format_sample_type(f));
}

IH_FN IH_U32 ih_format_alpha(IH_U32 f) { return ih_format_samples(f) == IH_U(4) ? IH_U(3) : IH_NO_SAMPLE; }

/* A sample's value as float bits: half samples widened exactly, float samples as they are. */
IH_FN IH_U32 ih_sample_float_bits(IH_U32 raw, IH_U32 t)
{
    return t == IH_T_F16 ? ih_half_to_float_bits(raw) : raw;
}

#endif /* IMGHIST_CONTRACT_FORMATS_H */
