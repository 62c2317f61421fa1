// Sample statistics (docs/semantics.md, "Sample statistics"): exact numbers and their once-rounded
// quotients and roots against IEEE arithmetic (itself correctly rounded) and hand-derived values;
// the pass against this test's own evaluation (every sample added one by one, sorted, indexed)
// over generated images of every format, with regions, tiles and masks, on every backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "contract/half.h"
#include "contract/luminance.h"
#include "core/plan.hpp"
#include "core/sample_stats_pass.hpp"
#include "core/sample_stats_sums.hpp"
#include "imghist/imghist.hpp"
#include "histogram_asserts.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using testing::make_image;
using testing::Pattern;

TEST(ExactNumber, DecimalsAreExactAndReadBack) {
    EXPECT_EQ(ExactNumber().to_string(), "0");
    EXPECT_EQ(ExactNumber::from_double(-12.375).to_string(), "-12.375");
    EXPECT_EQ(ExactNumber::from_double(0x1p-3).to_string(), "0.125");
    EXPECT_EQ(ExactNumber::from_double(0x1p100).to_string(), "1267650600228229401496703205376");
    // The smallest denormal float, 2^-149, has 149 digits after the point, ending in 5.
    const std::string tiny = ExactNumber::from_double(double(std::numeric_limits<float>::denorm_min())).to_string();
    EXPECT_EQ(tiny.size(), 151u);
    EXPECT_EQ(tiny.substr(0, 2), "0.");
    EXPECT_EQ(tiny.back(), '5');
    for (const double v : {0.0, 1.0, -0.5, 3.0e38, 1e-300, 123456789.0625, -0x1.fffffep127})
        EXPECT_EQ(ExactNumber::parse(ExactNumber::from_double(v).to_string()), ExactNumber::from_double(v)) << v;
    EXPECT_FALSE(ExactNumber::parse("0.1"));  // not a dyadic rational
    EXPECT_FALSE(ExactNumber::parse("1e3"));
    EXPECT_FALSE(ExactNumber::parse(""));
    EXPECT_FALSE(ExactNumber::parse("1."));
    EXPECT_FALSE(ExactNumber::parse("--1"));
}

TEST(ExactNumber, SumsPastSixtyFourBitsStayExact) {
    ExactNumber sum;
    const ExactNumber big = ExactNumber::from_parts(false, std::numeric_limits<std::uint64_t>::max(), 0);
    for (int i = 0; i < 4; ++i) sum += big;
    EXPECT_EQ(sum.to_string(), "73786976294838206460");  // 4 * (2^64 - 1)
    sum += ExactNumber::from_double(0.5);
    sum += -ExactNumber::from_double(0.5);
    EXPECT_EQ(sum.to_string(), "73786976294838206460");
    EXPECT_EQ((ExactNumber::from_double(1e300) + ExactNumber::from_double(1e-300) + -ExactNumber::from_double(1e300)),
              ExactNumber::from_double(1e-300));
}

// IEEE division and square root are correctly rounded: for operands that are doubles, the once-
// rounded quotient of the exact numbers must equal them.
TEST(ExactNumber, QuotientsAndRootsAreRoundedOnceToNearest) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 20000; ++i) {
        const double a = std::ldexp(double(rng() >> 11), int(rng() % 200) - 100) * ((rng() & 1) ? -1 : 1);
        const double b = std::ldexp(double((rng() >> 11) | 1), int(rng() % 200) - 100);
        ASSERT_EQ(round_quotient(ExactNumber::from_double(a), ExactNumber::from_double(b)), a / b) << a << " / " << b;
        ASSERT_EQ(round_sqrt_quotient(ExactNumber::from_double(std::fabs(a)), ExactNumber::from_double(1.0)),
                  std::sqrt(std::fabs(a)))
            << a;
        ASSERT_EQ(round_sqrt_quotient(ExactNumber::from_double(std::fabs(a)), ExactNumber::from_double(4.0)),
                  std::sqrt(std::fabs(a)) / 2)
            << a;
    }
    EXPECT_EQ(round_quotient(ExactNumber::from_integer(1), ExactNumber::from_integer(3)), 1.0 / 3.0);
    EXPECT_EQ(round_sqrt_quotient(ExactNumber::from_integer(2), ExactNumber::from_integer(1)), std::sqrt(2.0));
    EXPECT_EQ(round_sqrt_quotient(ExactNumber::from_integer(9), ExactNumber::from_integer(4)), 1.5);
}

// Hand-derived: a count past 2^32 with sums past 64 bits.
TEST(SampleStats, HandMadeMomentsOfMoreThanTwoToThe32Samples) {
    SampleMoments m;
    m.count = (std::uint64_t(1) << 33) + 2;  // 2^33 samples of 65535 and two of 0
    m.sum = ExactNumber::from_parts(false, (std::uint64_t(1) << 33) * 65535u, 0);
    m.sum_of_squares = ExactNumber::from_parts(false, (unsigned __int128)(std::uint64_t(1) << 33) * 65535u * 65535u, 0);
    m.min = 0;
    m.max = 65535;
    const SampleStats s = sample_stats(m);
    // mean = 65535 · 2^33 / (2^33 + 2), rounded once; IEEE division of the exact double operands.
    EXPECT_EQ(*s.mean, (65535.0 * 0x1p33) / (0x1p33 + 2));
    EXPECT_EQ(s.count, m.count);
    ASSERT_TRUE(s.variance && s.stddev && s.sample_variance && s.sample_stddev);
    EXPECT_GT(*s.variance, 0);
    EXPECT_NEAR(*s.stddev, std::sqrt(*s.variance), *s.stddev * 1e-15);
}

TEST(SampleStats, OneSampleHasNoSampleVariance) {
    SampleMoments m;
    m.count = 1;
    m.sum = ExactNumber::from_double(0.25);
    m.sum_of_squares = ExactNumber::from_double(0.0625);
    const SampleStats s = sample_stats(m);
    EXPECT_EQ(*s.mean, 0.25);
    EXPECT_EQ(*s.variance, 0);
    EXPECT_EQ(*s.stddev, 0);
    EXPECT_FALSE(s.sample_variance);
    EXPECT_FALSE(s.sample_stddev);
    EXPECT_FALSE(sample_stats(SampleMoments{}).mean);
}

TEST(SampleStats, PercentilesOutsideTheRangeAreRefused) {
    for (const double p : {-1.0, 100.5, std::nan("")}) EXPECT_THROW(validate_percentiles({p}), InvalidArgument) << p;
    EXPECT_THROW(validate_percentiles(std::vector<double>(kMaxPercentiles + 1, 50)), InvalidArgument);
}

// This test's own evaluation of one channel: each sample's value (the contract's luminance for
// Y), the finite ones added one by one and sorted.
struct Expected {
    std::vector<double> values;  // finite, sorted
    ExactNumber sum, squares;
    std::uint64_t positive_infinities = 0, negative_infinities = 0;
};

double sample_value(const FormatInfo& fi, const std::byte* pixel, int index) {
    if (fi.packed) {
        std::uint32_t word;
        std::memcpy(&word, pixel, 4);
        return testing::packed_sample_by_hand(word, index);
    }
    const std::byte* at = pixel + std::size_t(index) * std::size_t(fi.bytes_per_sample);
    std::uint16_t u16 = 0;
    float f = 0;
    switch (fi.sample) {
    case SampleType::u8: return double(std::to_integer<unsigned>(*at));
    case SampleType::u16: std::memcpy(&u16, at, 2); return u16;
    case SampleType::f16: std::memcpy(&u16, at, 2); return std::bit_cast<float>(ih_half_to_float_bits(u16));
    default: std::memcpy(&f, at, 4); return f;
    }
}

double channel_value(const FormatInfo& fi, const Request& r, Channel channel, const std::byte* pixel) {
    if (channel == Channel::Y) {
        if (!fi.is_float()) {
            return ih_luma_int(std::uint32_t(sample_value(fi, pixel, fi.red)), std::uint32_t(sample_value(fi, pixel, fi.green)),
                               std::uint32_t(sample_value(fi, pixel, fi.blue)), r.weights.r, r.weights.g, r.weights.b);
        }
        const auto w = [](std::uint32_t x) { return float(double(x) / 10000.0); };
        return ih_luma_float(float(sample_value(fi, pixel, fi.red)), float(sample_value(fi, pixel, fi.green)),
                             float(sample_value(fi, pixel, fi.blue)), w(r.weights.r), w(r.weights.g), w(r.weights.b));
    }
    const int index = channel == Channel::gray ? 0 : channel == Channel::R ? fi.red : channel == Channel::G ? fi.green
                                                   : channel == Channel::B ? fi.blue : fi.alpha;
    return sample_value(fi, pixel, index);
}

Expected expected_of(const ImageView& image, const Request& r, Channel channel, const Region& area,
                     const ImageView* mask) {
    const FormatInfo& fi = image.info();
    Expected e;
    for (std::uint32_t y = area.y; y < area.y + area.height; ++y)
        for (std::uint32_t x = area.x; x < area.x + area.width; ++x) {
            if (mask && std::to_integer<unsigned>(mask->row(y)[x]) == 0) continue;
            const double v = channel_value(fi, r, channel, image.row(y) + std::size_t(x) * fi.pixel_bytes());
            if (std::isnan(v)) continue;
            if (std::isinf(v)) {
                ++(v > 0 ? e.positive_infinities : e.negative_infinities);
                continue;
            }
            e.values.push_back(v == 0 ? 0.0 : v);
            e.sum += ExactNumber::from_double(v);
            e.squares += ExactNumber::from_double(v) * ExactNumber::from_double(v);
        }
    std::sort(e.values.begin(), e.values.end());
    return e;
}

// Percentiles whose ranks this test works out with integers: p = a / 8 percent.
void expect_percentiles(const Expected& e, const std::vector<SamplePercentile>& got, const std::vector<double>& percents) {
    const auto n = std::uint64_t(e.values.size());
    ASSERT_EQ(got.size(), n == 0 ? 0 : percents.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        const auto eighths = std::uint64_t(percents[i] * 8);  // p·n/100 = eighths·n/800
        const std::uint64_t k = std::max<std::uint64_t>((eighths * n + 799) / 800, 1);
        EXPECT_EQ(got[i].nearest_rank, e.values[k - 1]) << "p" << percents[i];
        const std::uint64_t at = eighths * (n - 1) / 800, rest = eighths * (n - 1) % 800;
        const double linear =
            rest == 0 ? e.values[at]
                      : round_quotient(ExactNumber::from_double(e.values[at]) * ExactNumber::from_integer(800) +
                                           ExactNumber::from_integer(std::int64_t(rest)) *
                                               (ExactNumber::from_double(e.values[at + 1]) + -ExactNumber::from_double(e.values[at])),
                                       ExactNumber::from_integer(800));
        EXPECT_EQ(got[i].linear, linear) << "p" << percents[i];
    }
}

void expect_channel(const Expected& e, const ChannelHistogram& h, const std::vector<double>& percents) {
    ASSERT_TRUE(h.sample_moments);
    const SampleMoments& m = *h.sample_moments;
    EXPECT_EQ(m.count, e.values.size());
    EXPECT_EQ(m.sum, e.sum) << m.sum.to_string() << " vs " << e.sum.to_string();
    EXPECT_EQ(m.sum_of_squares, e.squares);
    if (e.values.empty()) {
        EXPECT_FALSE(m.min);
    } else {
        EXPECT_EQ(m.min, e.values.front());
        EXPECT_EQ(m.max, e.values.back());
    }
    expect_percentiles(e, h.sample_percentiles, percents);
}

Request stats_request() {
    Request r;
    r.count_alpha = true;
    r.sample_stats = true;
    r.percentiles = {0, 0.125, 1, 12.5, 50, 99, 99.875, 100};
    return r;
}

// Default bins (for 8-bit images, the counts are the values: no pass) and 16 bins (a pass).
TEST(SampleStats, EveryFormatAndPatternOnEveryBackend) {
    Request coarse = stats_request();
    coarse.bins.bins = 16;
    for (const Request& r : {stats_request(), coarse})
        for (const std::string& backend : testing::available_backend_names()) {
            auto engine = create_engine(backend);
            for (const PixelFormat format : all_pixel_formats)
                for (const Pattern pattern : testing::all_patterns) {
                    const auto img = make_image(format, 67, 45, pattern, 11, 12);
                    const Result result = engine->compute(img.view, r);
                    for (const ChannelHistogram& h : result.channels) {
                        SCOPED_TRACE(backend + " " + std::string(format_info(format).name) + " " +
                                     testing::pattern_name(pattern) + " " + std::string(channel_name(h.channel)) +
                                     " bins " + std::to_string(h.layout.bins));
                        expect_channel(expected_of(img.view, r, h.channel, result.region, nullptr), h, r.percentiles);
                    }
                }
        }
}

TEST(SampleStats, RegionsTilesAndMasksDescribeTheCountedSamples) {
    Request r = stats_request();
    r.roi = Region{3, 2, 50, 31};
    r.tiles = {3, 2};
    const auto img = make_image(PixelFormat::rgba_f32, 64, 40, Pattern::specials, 5);
    const auto mask_img = make_image(PixelFormat::gray8, 64, 40, Pattern::random, 9);
    for (const bool masked : {false, true}) {
        if (masked) r.mask = mask_img.view;
        for (const std::string& backend : testing::available_backend_names()) {
            const Result result = create_engine(backend)->compute(img.view, r);
            SCOPED_TRACE(backend + (masked ? " masked" : ""));
            for (const ChannelHistogram& h : result.channels)
                expect_channel(expected_of(img.view, r, h.channel, *r.roi, masked ? &mask_img.view : nullptr), h, r.percentiles);
            ASSERT_EQ(result.tiles.size(), 6u);
            for (const TileHistogram& t : result.tiles)
                for (const ChannelHistogram& h : t.channels)
                    expect_channel(expected_of(img.view, r, h.channel, t.region, masked ? &mask_img.view : nullptr), h,
                                   r.percentiles);
        }
    }
}

TEST(SampleStats, SpecialFloatsByHand) {
    // ±0, the smallest denormal, the largest finite float, NaN and both infinities.
    const float big = std::numeric_limits<float>::max(), tiny = std::numeric_limits<float>::denorm_min();
    const std::vector<float> samples{-0.0f, 0.0f, tiny, -tiny, big, big, std::nanf(""), INFINITY, -INFINITY};
    const ImageView view = ImageView::packed(samples.data(), std::uint32_t(samples.size()), 1, PixelFormat::gray_f32);
    Request r;
    r.sample_stats = true;
    r.percentiles = {0, 50, 100};
    const Result result = create_engine("reference")->compute(view, r);
    const ChannelHistogram& h = result.channels[0];
    ASSERT_TRUE(h.sample_moments);
    EXPECT_EQ(h.sample_moments->count, 6u);
    EXPECT_EQ(h.sample_moments->sum, ExactNumber::from_double(double(big)) + ExactNumber::from_double(double(big)));
    EXPECT_EQ(*h.sample_moments->min, -double(tiny));
    EXPECT_EQ(*h.sample_moments->max, double(big));
    const SampleStats s = *h.sample_stats();
    EXPECT_EQ(*s.mean, double(big) / 3);  // exact in double: 2·max / 6
    // Sorted: -tiny, 0, 0, tiny, max, max; the median's linear position is 2.5.
    EXPECT_EQ(s.percentiles[1].nearest_rank, 0.0);
    EXPECT_EQ(s.percentiles[1].linear, double(tiny) / 2);
    EXPECT_EQ(s.percentiles[0].linear, -double(tiny));
    EXPECT_EQ(s.percentiles[2].linear, double(big));
}

TEST(SampleStats, MergedMomentsAddUpAndPercentilesDoNot) {
    Request r = stats_request();
    const auto a = make_image(PixelFormat::rgb16, 40, 30, Pattern::random, 1);
    const auto b = make_image(PixelFormat::rgb16, 40, 30, Pattern::natural, 2);
    auto engine = create_engine("reference");
    Result ab = engine->compute(a.view, r), ba = engine->compute(b.view, r);
    const Result b_alone = ba;
    ab.merge(engine->compute(b.view, r));
    ba.merge(engine->compute(a.view, r));
    for (std::size_t c = 0; c < ab.channels.size(); ++c) {
        EXPECT_EQ(ab.channels[c].sample_moments, ba.channels[c].sample_moments);
        EXPECT_TRUE(ab.channels[c].sample_percentiles.empty());
        EXPECT_EQ(ab.channels[c].sample_moments->count, 2u * 40 * 30);
    }
    Result without = engine->compute(a.view, Request{});
    without.merge(b_alone);
    EXPECT_FALSE(without.channels[0].sample_moments);  // unknown on one side: unknown in the sum
}

// Counted by value, the sums are n·v per value: past 64 bits for counts near 2^62, checked
// against products of exact numbers.
TEST(SampleStats, SumsOfCountedValuesPastSixtyFourBits) {
    const std::uint64_t many = std::uint64_t(1) << 62;
    std::vector<std::uint64_t> integers(65536, 0);
    integers[65535] = many;
    integers[3] = 5;
    const ChannelSampleStats by_value = stats_of_codes(SampleKind::integer_codes, integers, {50});
    const ExactNumber n = ExactNumber::from_parts(false, many, 0), top = ExactNumber::from_integer(65535),
                      three = ExactNumber::from_integer(3), five = ExactNumber::from_integer(5);
    EXPECT_EQ(by_value.moments.count, many + 5);
    EXPECT_EQ(by_value.moments.sum, n * top + five * three);
    EXPECT_EQ(by_value.moments.sum_of_squares, n * top * top + five * three * three);
    EXPECT_EQ(by_value.moments.min, 3.0);
    EXPECT_EQ(by_value.moments.max, 65535.0);
    // Halves: the largest finite (0x7BFF, 65504), the smallest denormal (0x0001) negated, ±Inf.
    std::vector<std::uint64_t> halves(65536, 0);
    halves[0x7BFF] = many;
    halves[0x8001] = 7;
    halves[0x7C00] = 2;
    halves[0xFC00] = many;
    const ChannelSampleStats half = stats_of_codes(SampleKind::half_codes, halves, {50});
    const ExactNumber big = ExactNumber::from_double(65504.0), tiny = ExactNumber::from_double(-0x1p-24),
                      seven = ExactNumber::from_integer(7);
    EXPECT_EQ(half.moments.count, many + 7);
    EXPECT_EQ(half.moments.sum, n * big + seven * tiny);
    EXPECT_EQ(half.moments.sum_of_squares, n * big * big + seven * tiny * tiny);
    EXPECT_EQ(half.moments.min, -0x1p-24);
    EXPECT_EQ(half.moments.max, 65504.0);
    EXPECT_EQ(half.positive_infinities, 2u);
    EXPECT_EQ(half.negative_infinities, many);
}

// Float samples whose m² are all near 2^48: 64-bit sums of them overflow after 2^16 samples,
// which this image holds more than four times over (the host pass spreads neighbours over four
// partial sums).
TEST(SampleStats, FloatSumsOfManyLargeMantissasStayExact) {
    std::vector<float> samples(600 * 600);
    for (std::size_t i = 0; i < samples.size(); ++i)
        samples[i] = std::bit_cast<float>(std::uint32_t(i % 3 == 0 ? 0xBFFFFFFF : 0x3FFFFFFF));  // ∓(2 - 2^-23)
    const ImageView view = ImageView::packed(samples.data(), 600, 600, PixelFormat::gray_f32);
    for (const std::vector<double>& percents : {std::vector<double>{}, std::vector<double>{50}}) {
        Request r;
        r.sample_stats = true;
        r.percentiles = percents;
        const Result result = create_engine("cpu")->compute(view, r);
        expect_channel(expected_of(view, r, Channel::gray, result.region, nullptr), result.channels[0], percents);
    }
}

// Without percentiles the float channels' extremes come from the sums' pass alone.
TEST(SampleStats, MomentsWithoutPercentilesOfEveryFloatFormat) {
    Request r = stats_request();
    r.percentiles.clear();
    for (const PixelFormat format : {PixelFormat::rgba_f32, PixelFormat::rgba_f16, PixelFormat::rgb_f32})
        for (const Pattern pattern : testing::all_patterns) {
            const auto img = make_image(format, 61, 37, pattern, 5, 8);
            r.mode = Mode::all;
            const Result result = create_engine("cpu")->compute(img.view, r);
            for (const ChannelHistogram& h : result.channels) {
                SCOPED_TRACE(std::string(format_info(format).name) + " " + testing::pattern_name(pattern) + " " +
                             std::string(channel_name(h.channel)));
                expect_channel(expected_of(img.view, r, h.channel, result.region, nullptr), h, r.percentiles);
            }
        }
}

// Normalize(mean, std) in units: the quotients by n·unit of the exact sums, rounded once.
TEST(SampleStats, NormalizationInUnitsIsRoundedOnce) {
    SampleMoments m;
    m.count = 3;  // samples 0, 51 and 255
    m.sum = ExactNumber::from_integer(306);
    m.sum_of_squares = ExactNumber::from_integer(51 * 51 + 255 * 255);
    const SampleNormalization in_units = *sample_stats_normalization(m, 255);
    EXPECT_EQ(in_units.mean, 306.0 / (3 * 255.0));  // IEEE division of exact operands
    // n²·variance = 3·67626 - 306² = 109242; stddev = √109242 / (3·255).
    EXPECT_EQ(in_units.stddev, round_sqrt_quotient(ExactNumber::from_integer(109242), ExactNumber::from_integer(765 * 765)));
    EXPECT_EQ(sample_stats_normalization(m, 1)->mean, *sample_stats(m).mean);
    EXPECT_EQ(sample_stats_normalization(m, 1)->stddev, *sample_stats(m).stddev);
    EXPECT_FALSE(sample_stats_normalization(SampleMoments{}, 255));
}

// 8-bit default bins hold one value each: a sum's percentiles are those of the pixels together.
TEST(SampleStats, EightBitSumsKeepExactPercentiles) {
    const Request r = stats_request();
    const auto a = make_image(PixelFormat::rgba8, 33, 20, Pattern::random, 3);
    const auto b = make_image(PixelFormat::rgba8, 33, 14, Pattern::natural, 4);
    std::vector<std::byte> both;  // a's rows, then b's, packed
    for (const auto* img : {&a, &b})
        for (std::uint32_t y = 0; y < img->view.height; ++y)
            both.insert(both.end(), img->view.row(y), img->view.row(y) + img->view.row_bytes());
    const ImageView together = ImageView::packed(both.data(), 33, 34, PixelFormat::rgba8);
    auto engine = create_engine("reference");
    Result sum = engine->compute(a.view, r);
    sum.merge(engine->compute(b.view, r));
    const Result whole = engine->compute(together, r);
    for (std::size_t c = 0; c < sum.channels.size(); ++c) {
        EXPECT_FALSE(sum.channels[c].sample_percentiles.empty());
        EXPECT_EQ(sum.channels[c].sample_stats(), whole.channels[c].sample_stats()) << channel_name(sum.channels[c].channel);
    }
}

// cpu takes the statistics' first pass inside its counting pass: on several workers, piece by
// piece, and 16-bit samples by value, their bins folded from those counts. Images large enough
// for that (and one small enough for cpu's direct path), with the bins' clipping counts, a
// range, a mask, an alpha threshold, a roi and tiles, and without percentiles: every count and
// statistic equals the reference backend's.
TEST(SampleStats, CpuCountingPassMatchesTheReference) {
    const auto cpu = create_engine("cpu", EngineOptions{.threads = 3});
    const auto reference = create_engine("reference");
    for (const auto& [width, height] : {std::pair{700u, 400u}, std::pair{9u, 5u}}) {
        const auto mask = make_image(PixelFormat::gray8, width, height, Pattern::random, 3);
        for (const PixelFormat format : {PixelFormat::rgba8, PixelFormat::rgb16, PixelFormat::rgba16, PixelFormat::gray16,
                                         PixelFormat::rgba_f16, PixelFormat::rgba_f32})
            for (const Pattern pattern : testing::all_patterns) {
                const auto img = make_image(format, width, height, pattern, 21, 16);
                const bool is_float = format_info(format).is_float();
                std::vector<Request> requests(7, stats_request());
                requests[1].bins.bins = 16;
                requests[2].bins.bins = 100;
                requests[2].bins.range = is_float ? std::pair{0.25, 0.75} : std::pair{10.0, 200.0};
                requests[3].mask = mask.view;
                requests[4].alpha_threshold = 0.5;
                requests[5].roi = Region{1, 1, width - 3, height - 2};
                requests[5].tiles = {2, 3};
                requests[6].percentiles.clear();  // the moments alone, beside the value extremes
                requests[6].value_extremes = true;
                for (std::size_t i = 0; i < requests.size(); ++i) {
                    if (requests[i].alpha_threshold && format_info(format).alpha < 0) continue;
                    testing::expect_same_histograms(cpu->compute(img.view, requests[i]), reference->compute(img.view, requests[i]),
                                                    std::string(format_info(format).name) + " " +
                                                        testing::pattern_name(pattern) + " request " + std::to_string(i) +
                                                        " width " + std::to_string(width));
                }
            }
    }
}

// The second pass's counters are bounded (kSecondPassBudget): given room for one target a pass,
// 90 percentiles of float samples take a pass per target and find what one pass finds, and
// what this test's own evaluation finds.
TEST(SampleStats, SecondPassInGroupsFindsTheSamePercentiles) {
    Request r = stats_request();
    r.percentiles.clear();
    for (int eighths = 0; eighths < 800; eighths += 9) r.percentiles.push_back(eighths / 8.0);
    r.percentiles.push_back(100);
    for (const PixelFormat format : {PixelFormat::rgba_f32, PixelFormat::gray_f32})
        for (const Pattern pattern : {Pattern::natural, Pattern::specials}) {
            const auto img = make_image(format, 300, 200, pattern, 5);
            const HistogramPlan plan(format, r);
            const std::vector<ChannelSampleStats> grouped = find_sample_stats(img.view, plan, nullptr, r.percentiles, 1);
            const std::vector<ChannelSampleStats> whole = find_sample_stats(img.view, plan, nullptr, r.percentiles);
            for (std::size_t c = 0; c < plan.channels.size(); ++c) {
                SCOPED_TRACE(std::string(format_info(format).name) + " " + testing::pattern_name(pattern) + " " +
                             std::string(channel_name(plan.channels[c])));
                EXPECT_EQ(grouped[c].moments, whole[c].moments);
                EXPECT_EQ(grouped[c].percentiles, whole[c].percentiles);
                const Expected e = expected_of(img.view, r, plan.channels[c], Region{0, 0, 300, 200}, nullptr);
                ASSERT_FALSE(e.values.empty());
                EXPECT_EQ(grouped[c].moments.min, e.values.front());
                EXPECT_EQ(grouped[c].moments.max, e.values.back());
                expect_percentiles(e, grouped[c].percentiles, r.percentiles);
            }
        }
}

}  // namespace
}  // namespace imghist
