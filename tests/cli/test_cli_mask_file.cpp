// The --mask file is decoded as the inputs are, in a decoder process: a mask that crashes its
// reader is a usage error, never the end of imghist. A mask is one 8-bit channel; a file with
// more (gray + alpha) is refused rather than read as its gray channel.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_files.hpp"
#include "cli_support.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace {

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using imghist::PixelFormat;
using imghist::cli_test::CliTest;
using imghist::cli_test::CommandRun;
using imghist::cli_test::RunOptions;

constexpr std::uint32_t kWidth = 9, kHeight = 7;

class CliMaskFileTest : public CliTest {
protected:
    static bool mentions(const CommandRun& r, const std::string& part) { return r.err.find(part) != std::string::npos; }
};

// The test hook crashes a decoder given the mask's name: the mask was read in imghist itself,
// so the hook never saw it and the run counted. Without the hook the mask counts as before.
TEST_F(CliMaskFileTest, MaskIsDecodedInADecoderProcess) {
    const auto image = imghist::testing::make_image(PixelFormat::rgb8, kWidth, kHeight,
                                                    imghist::testing::Pattern::random, 21);
    imghist::cli_test::write_oiio(path("image.png"), image.view);
    std::vector<std::uint8_t> mask(kWidth * kHeight);
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = i % 4 == 0 ? 0 : std::uint8_t(i);
    const imghist::ImageView mask_view = imghist::ImageView::packed(mask.data(), kWidth, kHeight, PixelFormat::gray8);
    imghist::cli_test::write_oiio(path("mask_decoded.png"), mask_view);
    const std::vector<std::string> args = {"--format", "json", "--mask", path("mask_decoded.png"), path("image.png")};

    RunOptions crashing;
    crashing.environment["IMGHIST_TEST_DECODER_FAULT"] = "segv:mask_decoded";
    const CommandRun crashed = run(args, crashing);
    EXPECT_EQ(crashed.status, 2) << crashed.out << crashed.err;
    EXPECT_TRUE(mentions(crashed, "--mask") && mentions(crashed, "the decoder crashed (SIGSEGV)")) << crashed.err;

    RunOptions plain;
    plain.environment["IMGHIST_TEST_DECODER_FAULT"] = std::nullopt;
    const CommandRun counted = run(args, plain);
    ASSERT_EQ(counted.status, 0) << counted.err;
    imghist::Request request;
    request.mask = mask_view;
    imghist::cli_test::expect_matches(counted.doc()["results"][0]["histograms"],
                                      imghist::cli_test::reference(image.view, request), "mask");
}

// OpenImageIO 2.4's IFF reader overflows the heap on this file: as a mask with
// --untrusted-readers it aborted imghist in 3 of 6 runs.
TEST_F(CliMaskFileTest, MaskThatCrashesItsReaderIsAUsageError) {
    const auto image = imghist::testing::make_image(PixelFormat::gray8, kWidth, kHeight,
                                                    imghist::testing::Pattern::random, 22);
    imghist::cli_test::write_oiio(path("gray.png"), image.view);
    const std::string iff = (fs::path(IMGHIST_REPRO_DIR) / "oiio_iff_rle_heap_overflow.iff").string();
    const std::vector<std::string> args = {"--untrusted-readers", "--mask", iff, path("gray.png")};
    for (const CommandRun& r : run_all({args, args, args, args, args, args})) {
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_TRUE(mentions(r, "--mask")) << r.err;
    }
}

// A gray + alpha PNG was used as its gray channel with no word.
TEST_F(CliMaskFileTest, GrayAndAlphaMaskIsRefused) {
    const auto image = imghist::testing::make_image(PixelFormat::gray8, kWidth, kHeight,
                                                    imghist::testing::Pattern::random, 23);
    imghist::cli_test::write_oiio(path("image_gray.png"), image.view);
    std::vector<std::uint8_t> gray_alpha(kWidth * kHeight * 2, 255);
    OIIO::ImageSpec spec(int(kWidth), int(kHeight), 2, OIIO::TypeDesc::UINT8);
    spec.channelnames = {"Y", "A"};
    spec.alpha_channel = 1;
    spec.attribute("oiio:UnassociatedAlpha", 1);
    const std::string mask = path("mask_gray_alpha.png");
    auto out = OIIO::ImageOutput::create(mask);
    ASSERT_TRUE(out && out->open(mask, spec) && out->write_image(OIIO::TypeDesc::UINT8, gray_alpha.data()) &&
                out->close());
    const CommandRun r = run({"--mask", mask, path("image_gray.png")});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_TRUE(mentions(r, "a mask must be one 8-bit channel")) << r.err;
}

}  // namespace
