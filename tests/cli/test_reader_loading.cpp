// Which libraries a run of the command loads: OpenImageIO's readers live in a module of their own
// (libimghist_oiio.so, with OpenImageIO's 260 libraries behind it), loaded only when a file
// needs them, so a run on files imghist decodes itself (PNM, PNG, JPEG) starts in milliseconds. What
// the dynamic loader reports (LD_DEBUG=libs, inherited by the decoder processes) tells which
// libraries each process loaded.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "io/reader_internal.hpp"
#include "cli_files.hpp"
#include "reader_support.hpp"

namespace fs = std::filesystem;
using imghist::ImageView;
using imghist::PixelFormat;
using imghist::cli_test::CommandRun;
using imghist::cli_test::expect_matches;
using imghist::cli_test::find_result;
using imghist::cli_test::reference;
using imghist::cli_test::write_bytes;
using imghist::cli_test::write_oiio;
using namespace imghist::reader_test;

namespace {

constexpr std::uint32_t kWidth = 5, kHeight = 3;

// rgb8 samples every value of which differs from its neighbours'.
std::vector<std::uint8_t> samples() {
    std::vector<std::uint8_t> out(kWidth * kHeight * 3);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::uint8_t(i * 37 + 11);
    return out;
}

ImageView view_of(const std::vector<std::uint8_t>& pixels) {
    return ImageView::packed(pixels.data(), kWidth, kHeight, PixelFormat::rgb8);
}

// A binary PPM of these pixels, written byte for byte (imghist reads PNM itself).
void write_ppm(const std::string& file, const std::vector<std::uint8_t>& pixels) {
    write_bytes(file, "P6\n" + std::to_string(kWidth) + " " + std::to_string(kHeight) + "\n255\n" +
                          std::string(pixels.begin(), pixels.end()));
}

bool loaded_openimageio(const CommandRun& run) { return contains(run.err, "libOpenImageIO"); }

class ReaderLoadingTest : public ReaderTest {
protected:
    // The command on `args` with the dynamic loader reporting every library it loads on stderr.
    static CommandRun run_reporting_libraries(const std::vector<std::string>& args) {
        std::vector<std::string> all = {"--format", "json"};
        all.insert(all.end(), args.begin(), args.end());
        return run(all, {.environment = {{"LD_DEBUG", "libs"}}, .timeout_seconds = 60});
    }
};

// PNG and JPEG files are imghist's own where it is built with libpng and TurboJPEG.
TEST_F(ReaderLoadingTest, FilesImghistDecodesItselfLoadNoOpenImageIO) {
    if (!IMGHIST_IO_TURBOJPEG || !IMGHIST_IO_LIBPNG) GTEST_SKIP() << "built without TurboJPEG or libpng";
    const std::vector<std::uint8_t> pixels = samples();
    fs::create_directories(dir_ / "own");
    write_ppm(path("own/a.ppm"), pixels);
    write_oiio(path("own/b.jpg"), view_of(pixels));
    write_oiio(path("own/c.png"), view_of(pixels));
    const imghist::io::LoadedImage jpeg = imghist::io::read_image(path("own/b.jpg"), {});
    write_bytes(path("own/notes.py"), "print('not an image')\n");  // sorted out by its extension alone
    for (const std::vector<std::string>& args : {std::vector<std::string>{path("own/a.ppm")}, {path("own/b.jpg")},
                                                 {path("own/c.png")}, {(dir_ / "own").string()}}) {
        const CommandRun run = run_reporting_libraries(args);
        ASSERT_EQ(run.status, args[0] == (dir_ / "own").string() ? 1 : 0) << args[0] << ": " << run.err.substr(0, 2000);
        EXPECT_TRUE(contains(run.err, "libimghist.so")) << "the loader's report is missing: " << args[0];
        EXPECT_FALSE(loaded_openimageio(run)) << args[0];
        const nlohmann::json doc = run.doc();
        for (const char* exact : {"own/a.ppm", "own/c.png"})
            if (const nlohmann::json* result = find_result(doc, path(exact)))
                expect_matches((*result)["histograms"], reference(view_of(pixels)), exact);
        if (const nlohmann::json* jpg = find_result(doc, path("own/b.jpg")))
            expect_matches((*jpg)["histograms"], reference(jpeg.view), "b.jpg");
    }
}

TEST_F(ReaderLoadingTest, ATiffLoadsOpenImageIOsReaders) {
    const std::vector<std::uint8_t> pixels = samples();
    write_oiio(path("t.tif"), view_of(pixels));
    const CommandRun run = run_reporting_libraries({path("t.tif")});
    ASSERT_EQ(run.status, 0) << run.err.substr(0, 2000);
    EXPECT_TRUE(loaded_openimageio(run));
    EXPECT_TRUE(contains(run.err, "libimghist_oiio.so"));
    ASSERT_NE(find_result(run.doc(), path("t.tif")), nullptr);
    expect_matches((*find_result(run.doc(), path("t.tif")))["histograms"], reference(view_of(pixels)), "t.tif");
}

// A command whose module is missing still reads what it decodes itself, and says why the rest fails.
TEST_F(ReaderLoadingTest, WithoutItsModuleTheCommandReadsWhatItDecodesItself) {
    const std::vector<std::uint8_t> pixels = samples();
    fs::create_directories(dir_ / "alone");
    fs::copy_file(imghist::cli_test::imghist_binary(), dir_ / "alone" / "imghist");
    write_ppm(path("d.ppm"), pixels);
    write_oiio(path("e.tif"), view_of(pixels));
    const CommandRun run = ReaderTest::run({"--format", "json", path("d.ppm"), path("e.tif")},
                                           {.program = (dir_ / "alone" / "imghist").string(), .timeout_seconds = 60});
    ASSERT_EQ(run.status, 1) << run.err;
    const nlohmann::json doc = run.doc();
    ASSERT_NE(find_result(doc, path("d.ppm")), nullptr) << doc;
    expect_matches((*find_result(doc, path("d.ppm")))["histograms"], reference(view_of(pixels)), "d.ppm");
    ASSERT_EQ(doc["errors"].size(), 1u) << doc;
    EXPECT_EQ(doc["errors"][0]["file"], path("e.tif"));
    EXPECT_TRUE(contains(doc["errors"][0]["error"], "OpenImageIO's readers cannot be loaded: libimghist_oiio.so is found"))
        << doc["errors"];
}

// The extensions a folder walk sorts files by without loading OpenImageIO are its readers' own.
TEST(ReaderExtensions, KnownExtensionsAreThoseOfOpenImageIOsReaders) {
    using imghist::io::reading::known_reader_extensions;
    using imghist::io::reading::reader_extensions;
    const std::set<std::pair<std::string, std::string>> known(known_reader_extensions().begin(),
                                                              known_reader_extensions().end());
    const std::set<std::pair<std::string, std::string>> linked(reader_extensions().begin(), reader_extensions().end());
    EXPECT_EQ(known, linked);
}

}  // namespace
