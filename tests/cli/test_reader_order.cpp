// A file's result never depends on the file read before it. Every file of the corpus (the
// reproducers of tests/data/repro, examples/, and one file of each trusted format written here)
// is read alone, in a process of its own, and in one run after every other file, in two orders,
// by a reused decoder process and in-process; every result must be the one it has alone.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli_files.hpp"
#include "cli_support.hpp"
#include "test_images.hpp"

namespace {

namespace fs = std::filesystem;
using imghist::PixelFormat;
using imghist::cli_test::CommandRun;
using nlohmann::json;

class ReaderOrderTest : public imghist::cli_test::CliTest {
protected:
    // The reproducers and examples that are images (the .rgba_f32 file is --raw only) and a file
    // of each trusted format with several sample types, written here.
    static std::vector<std::string> corpus() {
        std::vector<std::string> files;
        for (const char* folder : {"tests/data/repro", "examples"})
            for (const auto& entry : fs::directory_iterator(fs::path(IMGHIST_SOURCE_DIR) / folder)) {
                const std::string ext = entry.path().extension().string();
                if (ext != ".md" && ext != ".py" && ext != ".cpp" && ext != ".rgba_f32") files.push_back(entry.path());
            }
        std::sort(files.begin(), files.end());  // the same orders on every run
        const struct {
            const char* name;
            PixelFormat format;
        } written[] = {
            {"w_gray8.png", PixelFormat::gray8},     {"w_rgba16.png", PixelFormat::rgba16},
            {"w_rgb8.jpg", PixelFormat::rgb8},       {"w_rgb16.tif", PixelFormat::rgb16},
            {"w_rgba_f32.tif", PixelFormat::rgba_f32}, {"w_rgb_f16.exr", PixelFormat::rgb_f16},
            {"w_rgb8.bmp", PixelFormat::rgb8},       {"w_rgba8.bmp", PixelFormat::rgba8},
            {"w_gray16.pgm", PixelFormat::gray16},
            {"w_rgb_f32.hdr", PixelFormat::rgb_f32}, {"w_rgb8.gif", PixelFormat::rgb8},
            {"w_rgba8.webp", PixelFormat::rgba8},
        };
        std::uint64_t seed = 1;
        for (const auto& w : written) {
            // Sizes differ from file to file, so a size left over from the file before shows.
            const std::uint32_t width = 11 + 3 * std::uint32_t(seed), height = 7 + 2 * std::uint32_t(seed);
            const auto image = imghist::testing::make_image(w.format, width, height,
                                                            imghist::testing::Pattern::natural, seed++);
            imghist::cli_test::write_oiio(path(w.name), image.view);
            files.push_back(path(w.name));
        }
        return files;
    }

    // Each file's result (its histograms, or its error) by file name, from one run's JSON.
    static std::map<std::string, json> results(const CommandRun& run) {
        std::map<std::string, json> by_file;
        const json doc = run.doc();
        for (const json& r : doc["results"]) by_file[r["file"].get<std::string>()] = r;
        for (const json& f : doc["errors"]) by_file[f["file"].get<std::string>()] = f;
        return by_file;
    }
};

TEST_F(ReaderOrderTest, EveryResultIsTheSameAloneAndAfterAnyOtherFile) {
    const std::vector<std::string> files = corpus();
    const std::vector<std::string> common = {"--format", "json", "--threads", "1"};
    std::vector<std::vector<std::string>> runs;
    for (const std::string& f : files) {
        runs.push_back(common);
        runs.back().push_back(f);
    }
    const std::vector<std::string> reversed(files.rbegin(), files.rend());
    for (const auto* order : {&files, &reversed})
        for (const bool in_process : {false, true}) {
            runs.push_back(common);
            if (in_process) runs.back().push_back("--decode-in-process");
            runs.back().insert(runs.back().end(), order->begin(), order->end());
        }
    const std::vector<CommandRun> done = run_all(runs);
    std::map<std::string, json> alone;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const auto one = results(done[i]);
        ASSERT_EQ(one.size(), 1u) << files[i] << ": " << done[i].out << done[i].err;
        alone.insert(*one.begin());
    }
    const char* names[] = {"in order, decoder process", "in order, in-process", "reversed, decoder process",
                           "reversed, in-process"};
    for (std::size_t k = 0; k < 4; ++k) {
        const auto together = results(done[files.size() + k]);
        ASSERT_EQ(together.size(), files.size()) << names[k] << ": " << done[files.size() + k].err;
        for (const auto& [file, result] : alone) {
            ASSERT_TRUE(together.count(file)) << names[k] << ": " << file;
            EXPECT_EQ(together.at(file), result) << names[k] << ": " << file;
        }
    }
}

}  // namespace
