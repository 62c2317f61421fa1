// Statistics in value units beside the bin units (issue 11, item 10), and empty channels with
// no statistic at all (item 17). Expected values are computed here from the pixels: each sample
// replaced by the centre of the bin the contract gives it (docs/semantics.md), then plain
// mean, population standard deviation and sorted-order quantiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "imghist/imghist.hpp"

namespace imghist {
namespace {

struct Expected {
    double mean = 0, stddev = 0, median = 0, p1 = 0, p99 = 0, min = 0, max = 0;
};

// Statistics of a list of numbers; quantile q is the smallest x whose cumulative count reaches
// q * n (the rule the library states), i.e. sorted[ceil(q n) - 1].
Expected describe(std::vector<double> xs) {
    std::sort(xs.begin(), xs.end());
    Expected e;
    long double sum = 0;
    for (double x : xs) sum += x;
    const long double mean = sum / xs.size();
    long double sq = 0;
    for (double x : xs) sq += (x - mean) * (x - mean);
    e.mean = double(mean);
    e.stddev = double(std::sqrt(sq / xs.size()));
    const auto q = [&](double share) {
        const double rank = std::ceil(share * double(xs.size()));
        return xs[std::size_t(std::max(1.0, rank)) - 1];
    };
    e.median = q(0.5);
    e.p1 = q(0.01);
    e.p99 = q(0.99);
    e.min = xs.front();
    e.max = xs.back();
    return e;
}

void expect_values(const ChannelStats& s, const Expected& want, const std::string& what) {
    SCOPED_TRACE(what);
    ASSERT_TRUE(s.mean_value && s.stddev_value && s.median_value && s.p1_value && s.p99_value && s.min_value &&
                s.max_value);
    const double tolerance = 1e-9 * std::max(1.0, std::fabs(want.mean));
    EXPECT_NEAR(*s.mean_value, want.mean, tolerance);
    EXPECT_NEAR(*s.stddev_value, want.stddev, tolerance);
    EXPECT_EQ(*s.median_value, want.median);
    EXPECT_EQ(*s.p1_value, want.p1);
    EXPECT_EQ(*s.p99_value, want.p99);
    EXPECT_EQ(*s.min_value, want.min);
    EXPECT_EQ(*s.max_value, want.max);
}

ChannelStats gray_stats(const void* px, std::uint32_t n, PixelFormat f, const Request& r = {}) {
    return create_engine("reference")->compute(ImageView::packed(px, n, 1, f), r).channels[0].stats();
}

TEST(Statistics, EightBitValuesAreTheBins) {
    std::mt19937 rng(3);
    std::vector<std::uint8_t> px(1000);
    std::vector<double> values;
    for (auto& v : px) values.push_back(v = std::uint8_t(rng() % 200 + 20));
    const ChannelStats s = gray_stats(px.data(), 1000, PixelFormat::gray8);
    const Expected want = describe(values);
    expect_values(s, want, "8-bit");
    // And the bin-unit ones are the same numbers.
    EXPECT_NEAR(*s.mean, want.mean, 1e-9);
    EXPECT_EQ(double(*s.median), want.median);
    EXPECT_EQ(double(*s.min_bin), want.min);
}

TEST(Statistics, SixteenBitBinCentresAre256kPlus127Point5) {
    std::mt19937 rng(4);
    std::vector<std::uint16_t> px(1000);
    std::vector<double> centres, values, bins;
    for (auto& v : px) {
        v = std::uint16_t(rng());
        values.push_back(v);
        centres.push_back(double(v & 0xFF00) + 127.5);  // the 256 values of bin v >> 8
        bins.push_back(v >> 8);
    }
    const ChannelStats s = gray_stats(px.data(), 1000, PixelFormat::gray16);
    expect_values(s, describe(centres), "16-bit default bins");
    EXPECT_NEAR(*s.mean, describe(bins).mean, 1e-9) << "bin units stay";
    // The review's complaint: the bin mean is half a bin low; the value mean is within the
    // quantisation of the true mean (each sample is at most 127.5 from its bin's centre).
    EXPECT_LT(std::fabs(*s.mean_value - describe(values).mean), 128.0);
    // With 65536 bins, every bin is one value: the value statistics are the samples'.
    Request full;
    full.bins.bins = 65536;
    expect_values(gray_stats(px.data(), 1000, PixelFormat::gray16, full), describe(values), "16-bit 65536 bins");
}

TEST(Statistics, IntegerBinsOfSeveralValuesStandForTheirCentre) {
    // 3 bins over [0, 256): bin 0 holds 0..85 (centre 42.5), bin 1 86..170 (128), bin 2 171..255 (213).
    const std::uint8_t px[6] = {0, 85, 86, 170, 171, 255};
    Request r;
    r.bins.bins = 3;
    expect_values(gray_stats(px, 6, PixelFormat::gray8, r), describe({42.5, 42.5, 128, 128, 213, 213}), "3 bins");
    // 7 bins over [17, 253) of 236 values: bin k holds ceil(236k/7) .. ceil(236(k+1)/7) - 1 above 17.
    const std::uint8_t edge[3] = {17, 50, 252};  // 50 - 17 = 33 < 236/7 = 33.71: bin 0 holds 17..50
    r.bins.bins = 7;
    r.bins.range = {{17, 253}};
    expect_values(gray_stats(edge, 3, PixelFormat::gray8, r), describe({33.5, 33.5, 236.0}), "7 bins");
}

TEST(Statistics, FloatBinCentresAndTheClosedTopBin) {
    const float inf = std::numeric_limits<float>::infinity();
    const float px[] = {0.707f, 0.707f, 1.0f, 5.0f, inf, -2.0f, 0.0f, 0.25f, std::numeric_limits<float>::quiet_NaN()};
    std::vector<double> centres;
    for (float v : px) {
        if (std::isnan(v)) continue;
        if (v >= 1) centres.push_back(1.0);  // bin 256 is 1.0 and above
        else if (v <= 0) centres.push_back(0.5 / 256);
        else centres.push_back((std::floor(double(v) * 256) + 0.5) / 256);
    }
    const ChannelStats s = gray_stats(px, std::uint32_t(std::size(px)), PixelFormat::gray_f32);
    expect_values(s, describe(centres), "float default");
    EXPECT_EQ(*s.max_bin, 256u) << "bin units stay";
    // A custom float range: centre lo + (k + 0.5) (hi - lo) / N.
    Request r;
    r.bins.bins = 4;
    r.bins.range = {{-0.5, 2.0}};
    const float custom[] = {-0.5f, 0.2f, 1.9f};  // bins 0, 1, 3
    expect_values(gray_stats(custom, 3, PixelFormat::gray_f32, r),
                  describe({-0.5 + 0.5 * 0.625, -0.5 + 1.5 * 0.625, -0.5 + 3.5 * 0.625}), "4 bins over [-0.5, 2)");
}

void expect_empty(const ChannelStats& s, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(s.count, 0u);
    EXPECT_FALSE(s.min_bin || s.max_bin || s.median || s.p1 || s.p99);
    EXPECT_FALSE(s.mean || s.stddev) << "an empty channel has no mean (it used to report 0)";
    EXPECT_FALSE(s.min_value || s.max_value || s.mean_value || s.stddev_value || s.median_value || s.p1_value ||
                 s.p99_value);
}

TEST(Statistics, EmptyChannelsHaveNone) {
    const float nan[3] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::quiet_NaN()};
    const ChannelStats all_nan = gray_stats(nan, 3, PixelFormat::gray_f32);
    expect_empty(all_nan, "all NaN");
    EXPECT_EQ(all_nan.samples, 0u);
    EXPECT_FALSE(all_nan.clipped_low || all_nan.clipped_high) << "no sample to take a share of";
    // Nothing binned, but the samples exist: they are all at value 0, so 100% clipped low.
    const std::uint8_t zeros[4] = {0, 0, 0, 0};
    Request r;
    r.bins.range = {{10, 20}};
    r.bins.bins = 10;
    const ChannelStats none_binned = gray_stats(zeros, 4, PixelFormat::gray8, r);
    expect_empty(none_binned, "all below the range");
    EXPECT_EQ(none_binned.samples, 4u);
    EXPECT_EQ(none_binned.clipped_low, std::optional<double>(1.0));
    EXPECT_EQ(none_binned.clipped_high, std::optional<double>(0.0));
}

TEST(Statistics, BinCentreOfEveryDefaultLayout) {
    EXPECT_EQ(bin_centre(resolve_layout(SampleType::u8, {}), 17), 17.0);
    EXPECT_EQ(bin_centre(resolve_layout(SampleType::u16, {}), 0), 127.5);
    EXPECT_EQ(bin_centre(resolve_layout(SampleType::u16, {}), 255), 65407.5);
    EXPECT_EQ(bin_centre(resolve_layout(SampleType::f32, {}), 180), 180.5 / 256);
    EXPECT_EQ(bin_centre(resolve_layout(SampleType::f16, {}), 256), 1.0);
}

}  // namespace
}  // namespace imghist
