// A folder walk accounts for every file it finds: each is counted, listed with the reason it is
// not read (in every report format), or left out by the documented rule for sidecars and notes;
// a summary line on stderr says how many were counted and how many not, and why.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli_files.hpp"
#include "cli_support.hpp"
#include "test_images.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using imghist::PixelFormat;
using imghist::testing::Pattern;

namespace {

constexpr bool kLibRaw = IMGHIST_IO_LIBRAW, kLibHeif = IMGHIST_IO_LIBHEIF;
using imghist::cli_test::CliTest;
using imghist::cli_test::expect_matches;
using imghist::cli_test::json_lines;
using imghist::cli_test::reference;
using imghist::cli_test::write_bytes;
using imghist::cli_test::write_oiio;

class WalkTest : public CliTest {
protected:
    // The photographer's folder of the review: one image in a trusted format (PNG, so its pixels
    // are known exactly), phone and camera files the trusted readers do not read, and sidecars.
    // The DNG is the review's (tests/data/repro/raw_preview_counted_as_photo.dng): counted where
    // imghist is built with LibRaw, not read otherwise; the CR2, HEIC and AVIF are headers alone
    // (read and refused by LibRaw and libheif where imghist has them).
    static void SetUpTestSuite() {
        CliTest::SetUpTestSuite();
        fs::create_directories(dir_ / "shoot" / "day2");
        write_oiio(path("shoot/keeper.png"), image().view);
        write_bytes(path("shoot/IMG_0001.HEIC"), std::string("\0\0\0\x18" "ftypheic", 12) + std::string(64, '\0'));
        write_bytes(path("shoot/IMG_0002.avif"), std::string("\0\0\0\x1c" "ftypavif", 12) + std::string(64, '\0'));
        fs::copy_file(fs::path(IMGHIST_REPRO_DIR) / "raw_preview_counted_as_photo.dng", dir_ / "shoot" / "day2" / "R0001.DNG");
        write_bytes(path("shoot/day2/_MG_0003.CR2"), std::string("II*\0\x10\0\0\0CR\x02\0", 12) + std::string(64, '\0'));
        write_bytes(path("shoot/readme"), "shot on the 3rd\n");
        write_bytes(path("shoot/notes.py"), "print('hi')\n");
        fs::create_symlink(path("shoot/moved-away.png"), path("shoot/gone.png"));  // a broken link
        for (const char* sidecar : {"keeper.xmp", "IMG_0001.json", "notes.txt", "day2/R0001.xmp"})
            write_bytes(path(std::string("shoot/") + sidecar), "<x:xmpmeta/>\n");
    }
    static const imghist::testing::TestImage& image() {
        static const auto img = imghist::testing::make_image(PixelFormat::rgb8, 11, 7, Pattern::natural, 61);
        return img;
    }
    // The files the walk does not read, and a word their reason must hold.
    static std::map<std::string, std::string> not_read() {
        std::map<std::string, std::string> files = {
                {path("shoot/IMG_0001.HEIC"), kLibHeif ? "HEIF/AVIF file that libheif cannot open" : "HEIC needs --untrusted-readers"},
                {path("shoot/IMG_0002.avif"), kLibHeif ? "HEIF/AVIF file that libheif cannot open" : "AVIF needs --untrusted-readers"},
                {path("shoot/day2/_MG_0003.CR2"), kLibRaw ? "camera raw file that LibRaw cannot" : "CR2 is camera raw"},
                {path("shoot/readme"), "no file extension"},
                {path("shoot/notes.py"), ".py is not an image extension"},
                {path("shoot/gone.png"), "no such file"}};
        if (!kLibRaw) files[path("shoot/day2/R0001.DNG")] = "DNG is camera raw";
        return files;
    }
    // The files counted: the PNG, and the DNG's mosaic where LibRaw reads it.
    static std::size_t counted() { return kLibRaw ? 2 : 1; }
};

// The summary line: what was counted, the 7 files (6 with LibRaw) not read, with the reasons.
void expect_summary(const std::string& err, const std::string& what) {
    const std::string start = kLibRaw ? "imghist: 2 counted, 6 not read: " : "imghist: 1 counted, 7 not read: ";
    const auto at = err.find(start);
    ASSERT_NE(at, std::string::npos) << what << "\n" << err;
    const std::string line = err.substr(at, err.find('\n', at) - at);
    if (!kLibRaw) EXPECT_NE(line.find("camera raw"), std::string::npos) << line;  // else not among the top three
    EXPECT_NE(line.find(kLibHeif ? "libheif cannot open" : "needs --untrusted-readers"), std::string::npos) << line;
}

void expect_sidecars_unmentioned(const std::string& text, const std::string& what) {
    for (const char* sidecar : {".xmp", ".json", "notes.txt"}) EXPECT_EQ(text.find(sidecar), std::string::npos) << what << ": " << sidecar;
}

TEST_F(WalkTest, JsonCountsTheImageAndListsEveryOtherFileWithItsReason) {
    const auto run = CliTest::run({"--format", "json", path("shoot")});
    EXPECT_EQ(run.status, 1) << run.err;
    const json doc = run.doc();
    ASSERT_EQ(doc["results"].size(), counted()) << run.out;
    const json& keeper = doc["results"][counted() - 1];  // the DNG is in day2/, walked first
    EXPECT_EQ(keeper["file"], path("shoot/keeper.png"));
    expect_matches(keeper["histograms"], reference(image().view), "keeper.png");
    if (kLibRaw) EXPECT_EQ(doc["results"][0]["camera_raw"]["pattern"], "RGGB") << run.out;
    std::map<std::string, std::string> listed;
    for (const json& e : doc["errors"]) listed[e["file"].get<std::string>()] = e["error"].get<std::string>();
    ASSERT_EQ(listed.size(), not_read().size()) << doc["errors"].dump(1);
    for (const auto& [file, reason] : not_read()) EXPECT_NE(listed[file].find(reason), std::string::npos) << file << ": " << listed[file];
    expect_sidecars_unmentioned(run.out + run.err, "json");
    expect_summary(run.err, "json");
}

TEST_F(WalkTest, EveryFormatListsTheFilesNotRead) {
    const auto runs = run_all({{path("shoot")}, {"--format", "csv", path("shoot")}, {"--format", "jsonl", path("shoot")},
                               {"--sum", path("shoot")}});
    const char* names[] = {"table", "csv", "jsonl", "table --sum"};
    for (std::size_t k = 0; k < runs.size(); ++k) {
        SCOPED_TRACE(names[k]);
        EXPECT_EQ(runs[k].status, 1) << runs[k].err;
        std::string listing = runs[k].err;  // table and csv: errors on stderr
        if (k == 2)
            for (const json& line : json_lines(runs[k].out))
                if (line.contains("error")) listing += line["file"].get<std::string>() + ": " + line["error"].get<std::string>() + "\n";
        for (const auto& [file, reason] : not_read())
            EXPECT_NE(listing.find(file + ": " + reason), std::string::npos) << file << "\n" << listing;
        EXPECT_NE(runs[k].out.find("keeper.png"), std::string::npos) << runs[k].out;
        expect_sidecars_unmentioned(runs[k].out + runs[k].err, names[k]);
        expect_summary(runs[k].err, names[k]);
    }
}

TEST_F(WalkTest, AFolderOfSidecarsHoldsNoImage) {
    fs::create_directories(dir_ / "sidecars");
    write_bytes(path("sidecars/a.xmp"), "<x/>");
    write_bytes(path("sidecars/b.TXT"), "b");
    const auto run = CliTest::run({path("sidecars")});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find(path("sidecars") + ": directory holds no image files"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("a.xmp"), std::string::npos) << run.err;
}

TEST_F(WalkTest, FilesNamedByThemselvesAreReadByContentWithoutASummary) {
    // Only a walk decides by extension: a named file is read by its content, and a run without a
    // walk ends without the summary line.
    fs::copy_file(path("shoot/keeper.png"), path("keeper-no-extension"), fs::copy_options::overwrite_existing);
    const auto run = CliTest::run({"--format", "json", path("keeper-no-extension"), path("shoot/notes.py")});
    EXPECT_EQ(run.status, 1) << run.err;
    ASSERT_EQ(run.doc()["results"].size(), 1u) << run.out;
    expect_matches(run.doc()["results"][0]["histograms"], reference(image().view), "keeper-no-extension");
    EXPECT_EQ(run.err.find("not read:"), std::string::npos) << run.err;
}

}  // namespace
