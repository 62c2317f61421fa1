// The cpu backend's SIMD luminance of 8-bit pixels of three and four bytes, and of half and fp32
// pixels (src/backends/cpu/cpu_luma.hpp), at every instruction set of cpu_isa.hpp this CPU has
// (the others are skipped, saying so): its quotient lanes against ih_luma8_quotient for every
// sum, its loops against ih_luma_int (ih_luma_float) for every colour (the float specials) and at
// every row-end remainder, and the engine against the reference backend. Pixels end at an inaccessible page, so a read past them faults.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_isa.hpp"
#include "backends/cpu/cpu_luma.hpp"
#include "core/plan.hpp"
#include "histogram_asserts.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using cpu::Isa;

// `size` bytes that end where an inaccessible page begins.
class GuardedBytes {
public:
    explicit GuardedBytes(std::size_t size) {
        const auto page = std::size_t(sysconf(_SC_PAGESIZE));
        map_bytes_ = (size + page - 1) / page * page + page;
        void* m = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) throw std::bad_alloc();
        base_ = static_cast<std::byte*>(m);
        if (mprotect(base_ + map_bytes_ - page, page, PROT_NONE) != 0) throw std::bad_alloc();
        data_ = base_ + map_bytes_ - page - size;
    }
    ~GuardedBytes() { munmap(base_, map_bytes_); }
    GuardedBytes(const GuardedBytes&) = delete;
    GuardedBytes& operator=(const GuardedBytes&) = delete;
    std::byte* data() const { return data_; }

private:
    std::byte *base_, *data_;
    std::size_t map_bytes_;
};

// A copy of an image with rows `padding` bytes longer than their pixels (filled with 0xA5) and
// the last row's pixels ending at the inaccessible page.
class GuardedImage {
public:
    GuardedImage(const ImageView& src, std::size_t padding)
        : stride_(src.row_bytes() + padding), bytes_(stride_ * (src.height - 1) + src.row_bytes()) {
        for (std::uint32_t y = 0; y < src.height; ++y) {
            std::byte* row = bytes_.data() + y * stride_;
            std::memcpy(row, src.row(y), src.row_bytes());
            if (y + 1 < src.height) std::memset(row + src.row_bytes(), 0xA5, padding);
        }
        view = {bytes_.data(), src.width, src.height, stride_, src.format};
    }
    ImageView view;

private:
    std::size_t stride_;
    GuardedBytes bytes_;
};

constexpr LumaWeights kWeights[] = {LumaWeights::rec709(), LumaWeights::rec601(), LumaWeights::rec2020(),
                                    {3333, 3333, 3334},    {10000, 0, 0},         {0, 10000, 0},
                                    {0, 0, 10000},         {1, 9998, 1}};

std::vector<PixelFormat> eight_bit_colour_formats() {  // rgb8, bgr8, rgba8, bgra8
    std::vector<PixelFormat> out;
    for (const PixelFormat f : all_pixel_formats)
        if (format_info(f).sample == SampleType::u8 && !format_info(f).is_gray()) out.push_back(f);
    return out;
}

std::uint32_t expected_luma(const std::byte* px, const FormatInfo& fi, const LumaWeights& w) {
    const auto at = [&](int i) { return std::uint32_t(px[i]); };
    return ih_luma_int(at(fi.red), at(fi.green), at(fi.blue), w.r, w.g, w.b);
}

cpu::Luma8Weights weights_for(const FormatInfo& fi, const LumaWeights& w) {
    const std::uint32_t ints[3] = {w.r, w.g, w.b};
    return cpu::luma8_weights(fi, ints);
}

// The pixels a level's loops may leave to the scalar code at the end of n: fewer than the
// narrowest loop's reach (cpu_luma.cpp: SSE2 16 pixels of 4 bytes, SSSE3 18 of 3), or all of
// them where the level has no loop for that pixel size.
std::uint32_t most_left(Isa isa, std::size_t cpp, std::uint32_t n) {
    if (isa < (cpp == 3 ? Isa::ssse3 : Isa::sse2)) return n;
    return std::min<std::uint32_t>(n, cpp == 3 ? 17 : 15);
}

TEST(CpuLuma8Simd, QuotientLanesEqualTheContractForEverySum) {
    std::uint32_t wrong = 0;
    for (std::uint32_t s = 0; s <= IH_LUMA8_MAX_SUM; s += 4) {
        const auto i = std::int32_t(s);
        cpu::I32x4 q;
        cpu::luma8_quotient_lanes<cpu::F32x4>(cpu::I32x4{i, i + 1, i + 2, i + 3}, q);
        for (std::uint32_t k = 0; k < 4; ++k)
            if (s + k <= IH_LUMA8_MAX_SUM && std::uint32_t(q[k]) != ih_luma8_quotient(s + k)) ++wrong;
    }
    EXPECT_EQ(wrong, 0u);
}

// Forces one instruction set for the test; skips it where the CPU lacks that set.
class CpuLumaIsa : public ::testing::TestWithParam<Isa> {
protected:
    void SetUp() override {
        if (GetParam() > cpu::best_isa())
            GTEST_SKIP() << "this CPU has no " << cpu::isa_name(GetParam()) << " (its best is "
                         << cpu::isa_name(cpu::best_isa()) << ")";
        cpu::force_isa(GetParam());
        ASSERT_EQ(cpu::isa(), GetParam());
    }
    void TearDown() override { cpu::force_isa(std::nullopt); }
};

TEST_P(CpuLumaIsa, LoopsEqualIhLumaIntForEveryColour) {
    constexpr std::uint32_t kColours = 1u << 24;
    std::vector<std::uint8_t> out(kColours);
    for (const PixelFormat f : eight_bit_colour_formats()) {
        const FormatInfo& fi = format_info(f);
        const std::size_t cpp = fi.pixel_bytes();
        GuardedBytes px(kColours * cpp);
        for (std::uint32_t c = 0; c < kColours; ++c) {
            std::byte* p = px.data() + c * cpp;
            p[fi.red] = std::byte(c);
            p[fi.green] = std::byte(c >> 8);
            p[fi.blue] = std::byte(c >> 16);
            if (fi.alpha >= 0) p[fi.alpha] = std::byte(c * 7);  // alpha weighs nothing
        }
        for (const LumaWeights& w : {kWeights[0], kWeights[3], kWeights[4]}) {
            const std::uint32_t done = cpu::luma8_simd(GetParam(), int(cpp), px.data(), kColours, out.data(),
                                                       weights_for(fi, w));
            EXPECT_LE(kColours - most_left(GetParam(), cpp, kColours), done) << fi.name;
            std::uint32_t wrong = 0;
            for (std::uint32_t c = 0; c < done; ++c) wrong += out[c] != expected_luma(px.data() + c * cpp, fi, w);
            EXPECT_EQ(wrong, 0u) << fi.name << ", weights " << w.r << "," << w.g << "," << w.b;
        }
    }
}

TEST_P(CpuLumaIsa, LoopsStopWithinTheirPixelsAtEveryRemainder) {
    constexpr std::uint32_t kMaxPixels = 300;
    std::uint32_t state = 12345;
    for (const PixelFormat f : eight_bit_colour_formats()) {
        const FormatInfo& fi = format_info(f);
        const std::size_t cpp = fi.pixel_bytes();
        GuardedBytes px(kMaxPixels * cpp);
        for (std::size_t i = 0; i < kMaxPixels * cpp; ++i) {
            state = state * 1103515245u + 12345u;
            px.data()[i] = std::byte(state >> 23);
        }
        for (std::uint32_t n = 0; n <= kMaxPixels; ++n) {
            const std::byte* p = px.data() + (kMaxPixels - n) * cpp;  // the last pixel ends at the guard page
            const LumaWeights& w = kWeights[n % std::size(kWeights)];
            std::vector<std::uint8_t> out(n + 64, 0xEE);
            const std::uint32_t done = cpu::luma8_simd(GetParam(), int(cpp), p, n, out.data(), weights_for(fi, w));
            ASSERT_LE(done, n) << fi.name;
            EXPECT_LE(n - most_left(GetParam(), cpp, n), done) << fi.name << ", " << n << " pixels";
            for (std::uint32_t c = 0; c < done; ++c)
                ASSERT_EQ(out[c], expected_luma(p + c * cpp, fi, w)) << fi.name << ", pixel " << c << " of " << n;
            for (std::uint32_t c = done; c < out.size(); ++c) ASSERT_EQ(out[c], 0xEE) << "wrote past pixel " << done;
        }
    }
}

// An image of pattern p, or (nullopt) whose bytes run through every value, row by row.
testing::TestImage test_image(PixelFormat f, std::uint32_t width, std::uint32_t height,
                              std::optional<testing::Pattern> p) {
    auto img = testing::make_image(f, width, height, p.value_or(testing::Pattern::random), width * 31 + height);
    if (!p)
        for (std::uint32_t y = 0; y < height; ++y) {
            auto* row = const_cast<std::byte*>(img.view.row(y));
            for (std::size_t k = 0; k < img.view.row_bytes(); ++k) row[k] = std::byte(k * 7 + y * 3);
        }
    return img;
}

// Widths that leave every remainder at a row's end (1..80 and around the blocks of 256 and
// the fused loop's 65536), on images big enough for the table kernels (over 1024 pixels).
std::vector<std::uint32_t> widths() {
    std::vector<std::uint32_t> w;
    for (std::uint32_t x = 1; x <= 80; ++x) w.push_back(x);
    for (std::uint32_t x : {95u, 96u, 97u, 127u, 128u, 129u, 255u, 256u, 257u, 1000u, 4099u, 65536u + 71u})
        w.push_back(x);
    return w;
}

constexpr std::size_t kPaddings[] = {0, 7, 64};  // bytes beyond each row's pixels

std::string describe(const ImageView& v, std::optional<testing::Pattern> p, const Request& r) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %ux%u stride %zu, %s, %s, weights %u,%u,%u",
                  std::string(v.info().name).c_str(), v.width, v.height, v.stride_bytes, p ? testing::pattern_name(*p) : "every byte",
                  std::string(mode_name(r.mode)).c_str(), r.weights.r, r.weights.g, r.weights.b);
    return buf;
}

TEST_P(CpuLumaIsa, EngineEqualsTheReference) {
    auto cpu = create_engine("cpu");
    auto reference = create_engine("reference");
    std::vector<std::optional<testing::Pattern>> patterns(std::begin(testing::all_patterns),
                                                          std::end(testing::all_patterns));
    patterns.push_back(std::nullopt);
    for (const std::uint32_t width : widths()) {
        const std::uint32_t height = std::max(2u, (1100 + width - 1) / width);
        for (std::size_t pi = 0; pi < patterns.size(); ++pi) {
            const std::size_t padding = kPaddings[(width + pi) % std::size(kPaddings)];
            Request r;
            r.weights = kWeights[(width * 7 + pi) % std::size(kWeights)];  // every weight meets every width class
            for (const PixelFormat f : eight_bit_colour_formats()) {
                const GuardedImage img(test_image(f, width, height, patterns[pi]).view, padding);
                for (const Mode mode : {Mode::luma, Mode::all}) {
                    r.mode = mode;
                    testing::expect_same_histograms(cpu->compute(img.view, r), reference->compute(img.view, r),
                                                    describe(img.view, patterns[pi], r));
                    if (HasFailure()) return;  // one image's report is enough
                }
            }
        }
    }
}

std::vector<PixelFormat> float_colour_formats() {  // rgb_f16, rgba_f16, rgb_f32, rgba_f32
    std::vector<PixelFormat> out;
    for (const PixelFormat f : all_pixel_formats)  // packed pixels reach the loops decoded, as rgb_f32
        if (format_info(f).is_float() && !format_info(f).is_gray() && !format_info(f).packed) out.push_back(f);
    return out;
}

float sample_value(const std::byte* px, const FormatInfo& fi, int index) {
    if (fi.sample == SampleType::f16) {
        std::uint16_t h;
        std::memcpy(&h, px + index * 2, 2);
        return half_to_float(h);
    }
    float v;
    std::memcpy(&v, px + index * 4, 4);
    return v;
}

// luma_float_simd against ih_luma_float, bit for bit (NaN: any NaN), on samples that run
// through the specials (the specials pattern: NaN, +-Inf, -0, denormals, values near bin edges)
// at every count up to 300 pixels, the last pixel ending at an inaccessible page.
TEST_P(CpuLumaIsa, FloatLoopsEqualIhLumaFloatAndStopWithinTheirPixels) {
    constexpr std::uint32_t kMaxPixels = 300;
    for (const PixelFormat f : float_colour_formats()) {
        const FormatInfo& fi = format_info(f);
        const std::size_t cpp = fi.pixel_bytes();
        const auto src = testing::make_image(f, kMaxPixels, 1, testing::Pattern::specials, 5);
        GuardedBytes px(kMaxPixels * cpp);
        std::memcpy(px.data(), src.view.row(0), kMaxPixels * cpp);
        const int rgb[3] = {fi.red, fi.green, fi.blue};
        for (std::uint32_t n = 0; n <= kMaxPixels; ++n) {
            const std::byte* p = px.data() + (kMaxPixels - n) * cpp;
            const LumaWeights& lw = kWeights[n % std::size(kWeights)];
            const float w[3] = {float(double(lw.r) / IH_LUMA_WEIGHT_SUM), float(double(lw.g) / IH_LUMA_WEIGHT_SUM),
                                float(double(lw.b) / IH_LUMA_WEIGHT_SUM)};
            std::vector<float> out(n + 16, -7.0f);
            const std::uint32_t done = cpu::luma_float_simd(GetParam(), fi.sample == SampleType::f16, fi.channels,
                                                            rgb, p, n, out.data(), w);
            ASSERT_LE(done, n) << fi.name;
            if (GetParam() >= Isa::avx512 || (GetParam() >= Isa::avx2 && fi.channels == 4))
                EXPECT_LE(n, done + 15) << fi.name << ", " << n << " pixels";
            for (std::uint32_t c = 0; c < done; ++c) {
                const std::byte* q = p + c * cpp;
                const float want = ih_luma_float(sample_value(q, fi, fi.red), sample_value(q, fi, fi.green),
                                                 sample_value(q, fi, fi.blue), w[0], w[1], w[2]);
                const bool same = std::memcmp(&want, &out[c], 4) == 0 || (std::isnan(want) && std::isnan(out[c]));
                ASSERT_TRUE(same) << fi.name << ", pixel " << c << " of " << n << ": " << out[c] << " != " << want;
            }
            for (std::uint32_t c = done; c < out.size(); ++c) ASSERT_EQ(out[c], -7.0f) << "wrote past pixel " << done;
        }
    }
}

TEST_P(CpuLumaIsa, EngineEqualsTheReferenceOnFloats) {
    auto cpu = create_engine("cpu");
    auto reference = create_engine("reference");
    for (const std::uint32_t width : {1u, 2u, 15u, 16u, 17u, 31u, 33u, 255u, 256u, 257u, 1000u, 4099u}) {
        const std::uint32_t height = std::max(2u, (20000 + width - 1) / width);  // big tables from 16384 samples
        for (std::size_t pi = 0; pi < std::size(testing::all_patterns); ++pi) {
            const testing::Pattern pattern = testing::all_patterns[pi];
            constexpr std::size_t kFloatPaddings[] = {0, 8, 64};  // strides of whole samples
            const std::size_t padding = kFloatPaddings[(width + pi) % std::size(kFloatPaddings)];
            Request r;
            r.weights = kWeights[(width * 7 + pi) % std::size(kWeights)];
            for (const PixelFormat f : float_colour_formats()) {
                const GuardedImage img(test_image(f, width, height, pattern).view, padding);
                for (const Mode mode : {Mode::luma, Mode::all}) {
                    r.mode = mode;
                    testing::expect_same_histograms(cpu->compute(img.view, r), reference->compute(img.view, r),
                                                    describe(img.view, pattern, r));
                    if (HasFailure()) return;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryIsa, CpuLumaIsa, ::testing::ValuesIn(cpu::kAllIsas),
                         [](const auto& info) { return std::string(cpu::isa_name(info.param)); });

TEST(CpuIsa, NamesParseBack) {
    for (const Isa isa : cpu::kAllIsas) EXPECT_EQ(cpu::parse_isa(cpu::isa_name(isa)), isa);
    EXPECT_EQ(cpu::parse_isa("AVX2"), std::nullopt);
    EXPECT_EQ(cpu::parse_isa(""), std::nullopt);
}

TEST(CpuIsa, ForcingIsCappedAtWhatTheCpuHas) {
    cpu::force_isa(Isa::avx512);
    EXPECT_EQ(cpu::isa(), cpu::best_isa());
    cpu::force_isa(Isa::scalar);
    EXPECT_EQ(cpu::isa(), Isa::scalar);
    cpu::force_isa(std::nullopt);
}

// ctest runs this with IMGHIST_CPU_ISA set (tests/CMakeLists.txt) as well as without.
TEST(CpuIsa, KnobFromTheEnvironment) {
    const char* env = std::getenv("IMGHIST_CPU_ISA");
    const std::optional<Isa> want = env != nullptr && *env != '\0' ? cpu::parse_isa(env) : cpu::best_isa();
    if (want) {
        EXPECT_EQ(cpu::isa(), std::min(*want, cpu::best_isa()));
        EXPECT_EQ(cpu::isa_knob_error(), "");
        EXPECT_NO_THROW(create_engine("cpu"));
    } else {
        EXPECT_NE(cpu::isa_knob_error().find("IMGHIST_CPU_ISA"), std::string::npos);
        EXPECT_THROW(create_engine("cpu"), InvalidArgument);
    }
}

}  // namespace
}  // namespace imghist
