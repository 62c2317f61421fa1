// The sample statistics of device images (sample_stats.cu) on every CUDA path that makes a
// Result of them: the interop call on the caller's stream and on the default one, batches of
// device and host images, and images large enough that a block's sums pass 32 bits; bit for bit
// against the reference backend over the same host pixels.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cuda_selection_upload.hpp"
#include "cuda_test_support.hpp"
#include "histogram_asserts.hpp"
#include "sample_stats_checks.hpp"
#include "test_images.hpp"

namespace imghist {
namespace {

using namespace cuda_test;
using testing::expect_same_histograms;

Request stats_request(Mode mode) {
    Request r;
    r.mode = mode;
    r.sample_stats = true;
    r.percentiles = testing::checked_percentiles();
    return r;
}

// On the caller's stream (the image pitched and offset, the mask packed) and on the default one
// (the image packed, the mask pitched).
TEST(CudaSampleStats, DeviceImagesOnEitherStreamMatchTheReference) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    {
        const OwnedStream own;
        testing::expect_device_sample_stats_match(
            [&](const testing::SelectionCase& c) { return compute_pitched_on_stream(*engine, c, own.stream); });
    }
    testing::expect_device_sample_stats_match([&](const testing::SelectionCase& c) {
        DeviceCopy image = upload(c.image.view);
        DeviceCopy mask = upload(c.mask.view(), c.mask.view().row_bytes() + 3);
        Request r = c.request;
        if (c.use_mask) r.device_mask = mask.view;
        return engine->compute_device(image.view, r);
    });
}

TEST(CudaSampleStats, BatchesOfDeviceAndHostImagesMatchTheReference) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    std::uint64_t seed = 70;
    for (PixelFormat f : {PixelFormat::rgba8, PixelFormat::rgb16, PixelFormat::rgba_f16, PixelFormat::rgba_f32,
                          PixelFormat::gray_f32})
        for (Mode mode : {Mode::rgb, Mode::luma}) {
            const Request r = stats_request(mode);
            std::vector<testing::TestImage> images;
            for (testing::Pattern p : {testing::Pattern::random, testing::Pattern::natural, testing::Pattern::specials})
                images.push_back(testing::make_image(f, 301, 17, p, ++seed));
            std::vector<DeviceCopy> copies;
            std::vector<DeviceImage> device;
            std::vector<ImageView> host;
            for (const testing::TestImage& img : images) {
                copies.push_back(upload(img.view));
                device.push_back(copies.back().view);
                host.push_back(img.view);
            }
            const std::vector<Result> on_device = engine->compute_batch(std::span<const DeviceImage>(device), r);
            const std::vector<Result> from_host = engine->compute_batch(std::span<const ImageView>(host), r);
            for (std::size_t i = 0; i < images.size(); ++i) {
                const std::string what = std::string(format_info(f).name) + " image " + std::to_string(i);
                const Result want = reference->compute(host[i], r);
                for (const ChannelHistogram& h : on_device[i].channels) EXPECT_TRUE(h.sample_moments) << what;
                expect_same_histograms(on_device[i], want, what + " (device batch)");
                expect_same_histograms(from_host[i], want, what + " (host batch)");
            }
        }
}

// An image of one value everywhere (an independent answer: the mean is the value, the variance
// 0, every percentile the value) and 16.8 million pixels: each of the kernel's blocks sums about
// 16,000 float mantissas near 2^23, past 2^32, and counts as many equal 8-bit codes in one warp.
TEST(CudaSampleStats, LargeConstantImagesSumPast32BitsInEveryBlock) {
    REQUIRE_GPU();
    auto engine = cuda::create_engine();
    auto reference = create_engine("reference");
    constexpr std::uint32_t kSide = 4096;
    const float value = 1.75f;  // mantissa 0xE00000
    std::vector<float> floats(std::size_t(kSide) * kSide, value);
    std::vector<std::uint8_t> bytes(std::size_t(kSide) * kSide * 4, 200);
    const ImageView views[] = {ImageView::packed(floats.data(), kSide, kSide, PixelFormat::gray_f32),
                               ImageView::packed(bytes.data(), kSide, kSide, PixelFormat::rgba8)};
    const double values[] = {value, 200.0};
    for (int i = 0; i < 2; ++i) {
        SCOPED_TRACE(views[i].info().name);
        DeviceCopy image = upload(views[i]);
        Request r = stats_request(Mode::rgb);
        r.bins.bins = 64;  // not one bin a value: the 8-bit statistics come from the kernel, not the counts
        const Result got = engine->compute_device(image.view, r);
        for (const ChannelHistogram& h : got.channels) {
            const std::optional<SampleStats> s = h.sample_stats();
            ASSERT_TRUE(s);
            EXPECT_EQ(s->count, views[i].pixel_count());
            EXPECT_EQ(s->mean, values[i]);
            EXPECT_EQ(s->variance, 0.0);
            for (const SamplePercentile& p : s->percentiles) EXPECT_EQ(p.linear, values[i]) << p.percent;
        }
        expect_same_histograms(got, reference->compute(views[i], r), "constant image");
    }
}

}  // namespace
}  // namespace imghist
