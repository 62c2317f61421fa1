// The command's statistics and clipping: the samples' own statistics, value-unit bin statistics
// beside the bin-unit ones, exact clipping counts and shares, empty channels null everywhere,
// and the review's float-range reproducers refused as usage errors. Expected numbers are
// computed here from the pixels the test writes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using Outcome = imghist::cli_test::CommandRun;

// A key of a JSON object; a missing one is a failure (and null, so that get<> throws).
const json& field(const json& object, const char* key) {
    static const json missing;
    if (object.is_object() && object.contains(key)) return object[key];
    ADD_FAILURE() << "no \"" << key << "\" in " << object.dump().substr(0, 300);
    return missing;
}

class CliStats : public imghist::cli_test::ScratchDirTest {};

TEST_F(CliStats, RangeReproducersAreUsageErrors) {
    const fs::path repro = IMGHIST_REPRO_DIR;
    const Outcome tiny = run({"--range", "0:1e-36", "--bins", "1024", (repro / "scale_overflow_tiny_range.pfm").string()});
    EXPECT_EQ(tiny.status, 2) << tiny.out << tiny.err;
    EXPECT_NE(tiny.err.find("range [0, 1e-36)"), std::string::npos) << tiny.err;
    const Outcome wide = run({"--range=-3.4e38:3.4e38", (repro / "offset_overflow_wide_range.pfm").string()});
    EXPECT_EQ(wide.status, 2) << wide.out << wide.err;
    EXPECT_NE(wide.err.find("overflows fp32"), std::string::npos) << wide.err;
}

TEST_F(CliStats, SixteenBitValuesAndExactClipping) {
    const std::vector<std::uint16_t> px = {65300, 65300, 65300, 65535, 0, 255, 30000, 65300};
    const fs::path file = dir_ / "g16.pgm";
    {
        std::ofstream out(file, std::ios::binary);
        out << "P5\n" << px.size() << " 1\n65535\n";
        for (std::uint16_t v : px) out.put(char(v >> 8)).put(char(v & 0xFF));  // PGM is big-endian
    }
    double bin_sum = 0, centre_sum = 0;
    std::uint64_t at_zero = 0, at_max = 0;
    for (std::uint16_t v : px) {
        bin_sum += v >> 8;
        centre_sum += (v >> 8) * 256 + 127.5;
        at_zero += v == 0;
        at_max += v == 65535;
    }
    const Outcome r = run({"--format", "json", file.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const json s = json::parse(r.out)["results"][0]["histograms"]["gray"]["stats"];
    EXPECT_EQ(field(s, "clipped_low_count").get<std::uint64_t>(), at_zero);
    EXPECT_EQ(field(s, "clipped_high_count").get<std::uint64_t>(), at_max) << "65300 is not clipped";
    EXPECT_EQ(field(s, "clipped_high").get<double>(), double(at_max) / px.size());
    EXPECT_EQ(field(s, "samples").get<std::uint64_t>(), px.size());
    EXPECT_DOUBLE_EQ(field(s, "mean").get<double>(), bin_sum / px.size());
    EXPECT_DOUBLE_EQ(field(s, "mean_value").get<double>(), centre_sum / px.size());
    EXPECT_EQ(field(s, "max_value").get<double>(), 255 * 256 + 127.5);
    // The samples' own statistics: the exact mean, not the bin centres' (a sum of integers over 8
    // is exact in a double).
    double sample_sum = 0;
    for (std::uint16_t v : px) sample_sum += v;
    const json ss = json::parse(r.out)["results"][0]["histograms"]["gray"]["sample_stats"];
    EXPECT_EQ(field(ss, "mean").get<double>(), sample_sum / px.size());
    EXPECT_EQ(field(ss, "sum").get<std::string>(), std::to_string(std::uint64_t(sample_sum)));
    EXPECT_EQ(field(ss, "min").get<double>(), 0);
    EXPECT_EQ(field(ss, "max").get<double>(), 65535);
    const Outcome table = run({file.string()});
    ASSERT_EQ(table.status, 0) << table.err;
    EXPECT_NE(table.out.find("clip = share of samples at value 0 / 65535"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("statistics of the samples"), std::string::npos) << table.out;
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.6g", sample_sum / px.size());
    EXPECT_NE(table.out.find(mean), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("12.50%"), std::string::npos) << table.out;
    // Without them, the bins' statistics in bins and in values (bin centres).
    const Outcome bins = run({"--no-sample-stats", file.string()});
    ASSERT_EQ(bins.status, 0) << bins.err;
    EXPECT_NE(bins.out.find(" values "), std::string::npos) << bins.out;
    EXPECT_EQ(bins.out.find("statistics of the samples"), std::string::npos) << bins.out;
}

// 8-bit default bins are the values themselves: one statistics line per channel, whose
// numbers are the values (checked against a mean computed here).
TEST_F(CliStats, EightBitTableHasOneLinePerChannel) {
    const std::vector<unsigned char> px = {0, 10, 10, 255, 200, 7};
    const fs::path file = dir_ / "g8.pgm";
    {
        std::ofstream out(file, std::ios::binary);
        out << "P5\n" << px.size() << " 1\n255\n";
        for (unsigned char v : px) out.put(char(v));
    }
    double sum = 0;
    for (unsigned char v : px) sum += v;
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.2f", sum / px.size());
    const Outcome table = run({"--no-sample-stats", file.string()});
    ASSERT_EQ(table.status, 0) << table.err;
    EXPECT_NE(table.out.find("(bin = value)"), std::string::npos) << table.out;
    EXPECT_EQ(table.out.find(" values "), std::string::npos) << table.out;
    EXPECT_EQ(table.out.find(" bins  "), std::string::npos) << table.out;
    EXPECT_NE(table.out.find(mean), std::string::npos) << table.out;
    // The samples' statistics: one line per channel as well, the mean to six digits.
    std::snprintf(mean, sizeof mean, "%.6g", sum / px.size());
    const Outcome samples = run({file.string()});
    ASSERT_EQ(samples.status, 0) << samples.err;
    EXPECT_EQ(samples.out.find(" values "), std::string::npos) << samples.out;
    EXPECT_NE(samples.out.find(mean), std::string::npos) << samples.out;
}

TEST_F(CliStats, EmptyChannelHasNoStatistic) {
    const fs::path file = dir_ / "nan.pfm";
    {
        std::ofstream out(file, std::ios::binary);
        out << "Pf\n2 1\n-1.0\n";  // gray, little-endian
        const float nan[2] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN()};
        out.write(reinterpret_cast<const char*>(nan), sizeof nan);
    }
    const Outcome r = run({"--format", "json", file.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const json s = json::parse(r.out)["results"][0]["histograms"]["gray"]["stats"];
    EXPECT_EQ(field(s, "count").get<std::uint64_t>(), 0u);
    EXPECT_EQ(field(s, "samples").get<std::uint64_t>(), 0u);
    for (const char* key : {"min", "max", "mean", "stddev", "median", "p1", "p99", "min_value", "max_value",
                            "mean_value", "stddev_value", "median_value", "p1_value", "p99_value", "clipped_low",
                            "clipped_high"})
        EXPECT_TRUE(field(s, key).is_null()) << key << " of an all-NaN channel: " << field(s, key);
    const Outcome table = run({file.string()});
    ASSERT_EQ(table.status, 0) << table.err;
    EXPECT_EQ(table.out.find("0.00"), std::string::npos) << "no number for an empty channel:\n" << table.out;
}

}  // namespace
