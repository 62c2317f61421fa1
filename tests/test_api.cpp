// The public API's promises: validation, parsing, merging, statistics, the registry, and
// the engine threading rule stated in engine.hpp.
#include <gtest/gtest.h>

#include <limits>
#include <thread>

#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

TEST(ImageView, RejectsInvalidViews) {
    const std::uint8_t px[16] = {};
    EXPECT_THROW((ImageView{nullptr, 1, 1, 4, PixelFormat::rgba8}.validate()), InvalidArgument);
    EXPECT_THROW((ImageView{px, 0, 1, 4, PixelFormat::rgba8}.validate()), InvalidArgument);
    EXPECT_THROW((ImageView{px, 1, 0, 4, PixelFormat::rgba8}.validate()), InvalidArgument);
    EXPECT_THROW((ImageView{px, 2, 1, 7, PixelFormat::rgba8}.validate()), InvalidArgument);
    EXPECT_THROW((ImageView{px, 0xFFFFFFFFu, 0xFFFFFFFFu, std::numeric_limits<std::size_t>::max() / 2,
                            PixelFormat::rgba_f32}.validate()),
                 InvalidArgument);
    EXPECT_NO_THROW((ImageView{px, 2, 2, 8, PixelFormat::rgba8}.validate()));
    // Every engine validates before touching pixels.
    auto engine = create_engine("cpu");
    EXPECT_THROW(engine->compute(ImageView{nullptr, 4, 4, 16, PixelFormat::rgba8}), InvalidArgument);
}

TEST(Request, ParsesAndValidatesLumaWeights) {
    EXPECT_EQ(LumaWeights::parse("rec601"), LumaWeights::rec601());
    EXPECT_EQ(LumaWeights::parse("2000,7000,1000"), (LumaWeights{2000, 7000, 1000}));
    EXPECT_THROW(LumaWeights::parse("1,2,3"), InvalidArgument);  // does not sum to 10000
    EXPECT_THROW(LumaWeights::parse("5000,5000"), InvalidArgument);
    EXPECT_THROW(LumaWeights::parse("5000,5000,0,0"), InvalidArgument);
    EXPECT_THROW(LumaWeights::parse("a,b,c"), InvalidArgument);
    EXPECT_THROW(LumaWeights::parse("-1,5001,5000"), InvalidArgument);
}

TEST(Request, RejectsBadBinSpecs) {
    BinSpec s;
    s.bins = 0;
    EXPECT_THROW(resolve_layout(SampleType::u8, s), InvalidArgument);
    s.bins = 10;
    s.range = {{5, 5}};
    EXPECT_THROW(resolve_layout(SampleType::u8, s), InvalidArgument);
    s.range = {{0.5, 10}};
    EXPECT_THROW(resolve_layout(SampleType::u8, s), InvalidArgument) << "integer formats need integer bounds";
    s.range = {{0.5, 10}};
    EXPECT_NO_THROW(resolve_layout(SampleType::f32, s));
    s.range = {{0, std::numeric_limits<double>::infinity()}};
    EXPECT_THROW(resolve_layout(SampleType::f32, s), InvalidArgument);
}

TEST(Result, MergesMatchingLayoutsAndRefusesOthers) {
    auto engine = create_engine("reference");
    auto a = testing::make_image(PixelFormat::rgba8, 10, 10, testing::Pattern::random, 1);
    auto b = testing::make_image(PixelFormat::rgba8, 7, 3, testing::Pattern::random, 2);
    Result ra = engine->compute(a.view), rb = engine->compute(b.view);
    Result merged = ra;
    merged.merge(rb);
    for (std::size_t c = 0; c < merged.channels.size(); ++c) {
        std::uint64_t total = 0;
        for (std::size_t k = 0; k < 256; ++k) {
            EXPECT_EQ(merged.channels[c].counts[k], ra.channels[c].counts[k] + rb.channels[c].counts[k]);
            total += merged.channels[c].counts[k];
        }
        EXPECT_EQ(total, 121u);
    }
    auto f = testing::make_image(PixelFormat::rgba_f32, 2, 2, testing::Pattern::random, 3);
    try {
        merged.merge(engine->compute(f.view));
        ADD_FAILURE() << "an 8-bit and a float result merged";
    } catch (const MergeError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("256 bins over [0, 256)"), std::string::npos) << msg;
        EXPECT_NE(msg.find("257 bins over [0, 1]"), std::string::npos) << msg;
    }
    Request custom;
    custom.bins.bins = 128;
    EXPECT_THROW(merged.merge(engine->compute(a.view, custom)), MergeError);
    // can_merge answers what merge would do, without throwing.
    EXPECT_TRUE(merged.can_merge(rb));
    EXPECT_FALSE(merged.can_merge(engine->compute(f.view)));
    EXPECT_FALSE(merged.can_merge(engine->compute(a.view, custom)));
    Request luma;
    luma.mode = Mode::luma;
    EXPECT_FALSE(merged.can_merge(engine->compute(a.view, luma)));
    // Notes are kept once each, however many results are merged.
    Result noted = ra, other = rb;
    noted.notes = {"first"};
    other.notes = {"first", "second"};
    for (int i = 0; i < 3; ++i) noted.merge(other);
    EXPECT_EQ(noted.notes, (std::vector<std::string>{"first", "second"}));
}

TEST(Result, StatisticsFromAKnownHistogram) {
    ChannelHistogram h;
    h.counts.assign(256, 0);
    h.counts[0] = 50;
    h.counts[255] = 50;
    ChannelStats s = h.stats();
    EXPECT_EQ(s.count, 100u);
    EXPECT_EQ(*s.min_bin, 0u);
    EXPECT_EQ(*s.max_bin, 255u);
    EXPECT_DOUBLE_EQ(*s.mean, 127.5);
    EXPECT_DOUBLE_EQ(*s.stddev, 127.5);
    EXPECT_EQ(s.median, 0u);
    EXPECT_EQ(s.p1, 0u);
    EXPECT_EQ(s.p99, 255u);
    EXPECT_FALSE(s.clipped_low || s.clipped_high) << "clipping counts unknown: no share";
    h.clipped_low_count = 50;
    h.clipped_high_count = 10;
    s = h.stats();
    EXPECT_DOUBLE_EQ(*s.clipped_low, 0.5);
    EXPECT_DOUBLE_EQ(*s.clipped_high, 0.1);
    h.counts.assign(256, 0);
    h.counts[10] = 1;
    h.counts[20] = 3;
    h.clipped_low_count = 0;
    s = h.stats();
    EXPECT_DOUBLE_EQ(*s.mean, 17.5);
    EXPECT_EQ(s.median, 20u);
    EXPECT_DOUBLE_EQ(*s.clipped_low, 0.0);
}

TEST(Registry, UnknownOrUnavailableBackendsAreErrors) {
    EXPECT_THROW(create_engine("no-such-backend"), BackendUnavailable);
    ASSERT_NE(find_backend("reference"), nullptr);
    ASSERT_NE(find_backend("cpu"), nullptr);
    EXPECT_NO_THROW(create_engine("auto"));
    for (const Backend* b : backends()) {
        if (b->available()) continue;
        EXPECT_THROW(b->create_engine({}), BackendUnavailable) << b->name();
    }
}

TEST(Engine, OneEnginePerThreadRunsConcurrently) {
    auto img = testing::make_image(PixelFormat::rgba8, 640, 97, testing::Pattern::random, 5);
    const Result want = create_engine("reference")->compute(img.view);
    for (const Backend* b : backends()) {
        if (!b->available()) continue;
        std::vector<Result> got(4);
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] { got[t] = b->create_engine({})->compute(img.view); });
        for (auto& th : threads) th.join();
        for (const auto& r : got) EXPECT_TRUE(r.same_histograms(want)) << b->name();
    }
}

TEST(Engine, StaysUsableAfterAnError) {
    for (const Backend* b : backends()) {
        if (!b->available()) continue;
        auto engine = b->create_engine({});
        auto img = testing::make_image(PixelFormat::rgb16, 31, 7, testing::Pattern::random, 9);
        Request bad;
        bad.bins.bins = 0;
        EXPECT_THROW(engine->compute(img.view, bad), InvalidArgument) << b->name();
        EXPECT_TRUE(engine->compute(img.view).same_histograms(create_engine("reference")->compute(img.view)))
            << b->name();
    }
}

}  // namespace
}  // namespace imghist

// The --device rule shared by the GPU backends.
#include "core/device_select.hpp"

namespace imghist {
namespace {

TEST(DeviceSelect, IndexIdSubstringAutoAndErrors) {
    const std::vector<DeviceInfo> devices = {
        {"0:0", "Portable Computing Language CPU", false, true, ""},
        {"1:0", "NVIDIA H200", true, true, ""},
        {"1:1", "NVIDIA Broken", true, false, "driver too old"},
    };
    EXPECT_EQ(select_device("x", devices, "", nullptr), 1u) << "auto prefers an available GPU";
    EXPECT_EQ(select_device("x", devices, "auto", nullptr, {0, 5, 0}), 0u) << "explicit preference wins";
    EXPECT_EQ(select_device("x", devices, "0", nullptr), 0u);
    EXPECT_EQ(select_device("x", devices, "1:0", nullptr), 1u);
    EXPECT_EQ(select_device("x", devices, "h200", nullptr), 1u) << "case-insensitive substring";
    EXPECT_EQ(select_device("x", devices, "nvidia", nullptr), 1u) << "an available match wins";
    EXPECT_THROW(select_device("x", devices, "broken", nullptr), BackendUnavailable);
    EXPECT_THROW(select_device("x", devices, "7", nullptr), BackendUnavailable);
    EXPECT_THROW(select_device("x", devices, "no-such", nullptr), BackendUnavailable);
    EXPECT_THROW(select_device("x", {}, "", nullptr), BackendUnavailable);
    ::setenv("IMGHIST_TEST_DEVICE", "pocl", 1);
    EXPECT_THROW(select_device("x", devices, "", "IMGHIST_TEST_DEVICE"), BackendUnavailable)
        << "'pocl' is not in any name";
    ::setenv("IMGHIST_TEST_DEVICE", "portable", 1);
    EXPECT_EQ(select_device("x", devices, "", "IMGHIST_TEST_DEVICE"), 0u);
    EXPECT_EQ(select_device("x", devices, "1", "IMGHIST_TEST_DEVICE"), 1u) << "the option beats the variable";
    ::unsetenv("IMGHIST_TEST_DEVICE");
    try {
        select_device("demo", devices, "no-such", nullptr);
    } catch (const BackendUnavailable& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("demo: no device matches 'no-such'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("NVIDIA H200"), std::string::npos) << "the message lists the devices: " << msg;
    }
}

}  // namespace
}  // namespace imghist
