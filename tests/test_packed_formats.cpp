// The packed and sRGB pixel formats (docs/semantics.md, "Images"): the contract's decoding of
// B10G11R11_UFLOAT against a decoder of this file's own (every code of each field), the counts
// of a packed image against those of the rgb_f32 image this file decodes it to, sRGB formats
// against their UNORM twins on every backend, and the calls that refuse packed pixels.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "contract/contract.h"
#include "core/plan.hpp"
#include "histogram_asserts.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::packed_sample_by_hand;

void expect_same_value(std::uint32_t got_bits, float want, const std::string& what) {
    if (std::isnan(want)) EXPECT_TRUE(ih_is_nan_bits(got_bits)) << what;
    else EXPECT_EQ(got_bits, std::bit_cast<std::uint32_t>(want)) << what << ": want " << want;
}

TEST(PackedDecode, EveryCodeOfEveryFieldWidensExactly) {
    for (int field = 0; field < 3; ++field) {
        const int bits = field == 2 ? 10 : 11;
        const int shift = 11 * field;
        // The other fields all ones: none of their bits may leak into this one.
        const std::uint32_t others = ~(((1u << bits) - 1) << shift);
        for (std::uint32_t code = 0; code < (1u << bits); ++code) {
            const std::uint32_t word = others | (code << shift);
            expect_same_value(ih_b10g11r11_sample_bits(word, std::uint32_t(field)), packed_sample_by_hand(word, field),
                              "field " + std::to_string(field) + " code " + std::to_string(code));
        }
    }
}

TEST(PackedDecode, TheFormatTableDescribesTheDecodedSamples) {
    const FormatInfo& fi = format_info(PixelFormat::b10g11r11_ufloat);
    EXPECT_TRUE(fi.packed);
    EXPECT_EQ(fi.pixel_bytes(), 4u);
    EXPECT_EQ(fi.channels, 3);
    EXPECT_TRUE(fi.is_float());
    EXPECT_EQ(counted_as(PixelFormat::b10g11r11_ufloat), PixelFormat::rgb_f32);
    EXPECT_EQ(parse_pixel_format("b10g11r11_ufloat"), PixelFormat::b10g11r11_ufloat);
    for (const auto& [srgb, unorm] : {std::pair{PixelFormat::rgba8_srgb, PixelFormat::rgba8},
                                      std::pair{PixelFormat::bgra8_srgb, PixelFormat::bgra8}}) {
        FormatInfo twin = format_info(unorm);
        twin.name = format_info(srgb).name;
        EXPECT_EQ(format_info(srgb), twin) << twin.name;
        EXPECT_EQ(counted_as(srgb), unorm);
    }
}

// Every 11-bit code in R and G and every 10-bit code in B, with the other fields varied.
std::vector<std::uint32_t> every_code_words() {
    std::vector<std::uint32_t> words;
    for (std::uint32_t i = 0; i < 2048; ++i) words.push_back(i | ((i * 1237u) % 2048u) << 11 | (i % 1024u) << 22);
    return words;
}

std::vector<Request> packed_requests() {
    std::vector<Request> out;
    for (const auto& [name, request] : testing::parity_requests(format_info(PixelFormat::rgb_f32))) {
        Request r = request;
        r.count_alpha = false;  // no alpha in the format
        out.push_back(r);
    }
    Request extremes;
    extremes.value_extremes = true;
    out.push_back(extremes);
    return out;
}

TEST(PackedCounts, AreTheCountsOfTheDecodedFloats) {
    const std::vector<std::uint32_t> words = every_code_words();
    std::vector<float> decoded;
    for (std::uint32_t w : words)
        for (int field = 0; field < 3; ++field) decoded.push_back(packed_sample_by_hand(w, field));
    const auto width = std::uint32_t(words.size() / 16);
    const ImageView packed = ImageView::packed(words.data(), width, 16, PixelFormat::b10g11r11_ufloat);
    const ImageView floats = ImageView::packed(decoded.data(), width, 16, PixelFormat::rgb_f32);
    auto reference = create_engine("reference");
    for (const Request& request : packed_requests()) {
        const Result got = reference->compute(packed, request);
        EXPECT_EQ(got.format, PixelFormat::b10g11r11_ufloat);
        testing::expect_same_histograms(got, reference->compute(floats, request), "reference");
        for (const std::string& name : testing::available_backend_names()) {
            auto engine = create_engine(name);
            testing::expect_same_histograms(engine->compute(packed, request), got, name);
        }
    }
}

TEST(PackedCounts, TilesAndAMaskCountTheDecodedPixels) {
    const std::vector<std::uint32_t> words = every_code_words();
    const auto width = std::uint32_t(words.size() / 16);
    std::vector<std::uint8_t> mask(words.size());
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = std::uint8_t(i % 3 != 0);
    Request request;
    request.tiles = {3, 2};
    request.mask = ImageView::packed(mask.data(), width, 16, PixelFormat::gray8);
    const ImageView packed = ImageView::packed(words.data(), width, 16, PixelFormat::b10g11r11_ufloat);
    const Result want = create_engine("reference")->compute(packed, request);
    ASSERT_EQ(want.tiles.size(), 6u);
    for (const std::string& name : testing::available_backend_names())
        testing::expect_same_histograms(create_engine(name)->compute(packed, request), want, name);
}

TEST(SrgbFormats, CountTheirStoredCodesAsTheirUnormTwins) {
    for (const auto& [srgb, unorm] : {std::pair{PixelFormat::rgba8_srgb, PixelFormat::rgba8},
                                      std::pair{PixelFormat::bgra8_srgb, PixelFormat::bgra8}}) {
        const testing::TestImage img = testing::make_image(unorm, 97, 13, testing::Pattern::random, 5, 8);
        ImageView as_srgb = img.view;
        as_srgb.format = srgb;
        Request request;
        request.count_alpha = true;
        const Result want = create_engine("reference")->compute(img.view, request);
        for (const std::string& name : testing::available_backend_names()) {
            const Result got = create_engine(name)->compute(as_srgb, request);
            EXPECT_EQ(got.format, srgb);
            testing::expect_same_histograms(got, want, name + " " + std::string(format_info(srgb).name));
        }
    }
}

TEST(PackedRefusals, DeviceImagesAndWholeImageCallsSayWhy) {
    const DeviceImage device{1, 0, 4, 4, 0, PixelFormat::b10g11r11_ufloat};
    try {
        device.validate();
        ADD_FAILURE() << "a packed device image was accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("b10g11r11_ufloat"), std::string::npos) << e.what();
    }
    EXPECT_THROW(HistogramPlan(PixelFormat::b10g11r11_ufloat, Request{}), InvalidArgument);
    EXPECT_NO_THROW((DeviceImage{1, 0, 4, 4, 0, PixelFormat::rgba8_srgb}.validate()));
}

}  // namespace
}  // namespace imghist
