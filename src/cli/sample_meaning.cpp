#include "sample_meaning.hpp"

namespace imghist::cli {

ClipColumns clip_columns(PixelFormat format, bool camera_raw) {
    // A raw file's 16-bit container is not its sensor's range: the camera clips at its white
    // level, which the camera raw rows report; 0 and 65535 are only the container's ends.
    if (camera_raw)
        return {"at 0", "at 65535",
                "at 0 / 65535 = share of raw values at the 16-bit container's ends, not the camera's "
                "clipping\n  (that is at its white level: see the camera raw rows)"};
    switch (format_info(format).sample) {
        case SampleType::u8: return {"clip low", "clip high", "clip = share of samples at value 0 / 255"};
        case SampleType::u16: return {"clip low", "clip high", "clip = share of samples at value 0 / 65535"};
        case SampleType::f16:
        case SampleType::f32: break;
    }
    // 1.0 is display white, not a limit of the data: an HDR render or a linear EXR holds light
    // above it that nothing clipped.
    return {"<= 0", ">= 1",
            "<= 0, >= 1 = share of samples at or past 0 and 1,\n  display black and white: "
            "clipped in display-referred data, but scene-referred (HDR) data goes past 1 unclipped"};
}

std::string clip_caption(PixelFormat format, int end, bool camera_raw) {
    if (camera_raw) return end == 0 ? "raw value 0" : "raw value 65535";
    const FormatInfo& fi = format_info(format);
    if (fi.is_float()) {  // not clipping (see clip_columns): the table's words
        const ClipColumns words = clip_columns(format);
        return end == 0 ? words.low : words.high;
    }
    if (end == 0) return "clipped low (0)";
    return fi.sample == SampleType::u8 ? "clipped high (255)" : "clipped high (65535)";
}

std::optional<std::string> exposure_caveat(PixelFormat format) {
    const FormatInfo& fi = format_info(format);
    if (fi.is_float()) return std::nullopt;
    return std::string("--exposure reads sample values as linear light, but ") +
           (fi.sample == SampleType::u8 ? "8-bit" : "16-bit") +
           " files usually hold display-encoded (sRGB or gamma) values, so this EV is not the scene's: "
           "linearise first, e.g. oiiotool in.jpg --colorconvert sRGB linear -d float -o in.exr";
}

}  // namespace imghist::cli
