// What the command says about itself and its sums: the usage line, the help's rules, a device
// error's listing, and the table's list of a sum's files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli_files.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist::cli_test {
namespace {

using testing::Pattern;

class CliMessagesTest : public CliTest {};

std::vector<std::string> lines_starting(const std::string& text, const std::string& start) {
    std::vector<std::string> found;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        if (text.compare(at, start.size(), start) == 0) found.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return found;
}

TEST_F(CliMessagesTest, HelpNamesMergeAndTheClipRuleOfEachFormat) {
    const CommandRun r = run({"--help"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Usage: imghist [OPTIONS]"), std::string::npos) << r.out.substr(0, 300);
    EXPECT_NE(r.out.find("\n       imghist merge [OPTIONS] REPORT...\n"), std::string::npos) << r.out.substr(0, 300);
    // Clipping is the share at the extreme values, not of the end bins.
    EXPECT_EQ(r.out.find("first/last bin"), std::string::npos);
    EXPECT_NE(r.out.find("0 / 65535"), std::string::npos);
    // A negative LO needs no '=' (--range -1:1 is read as a value).
    EXPECT_EQ(r.out.find("--range=-1:1"), std::string::npos);
}

TEST_F(CliMessagesTest, NegativeRangeNeedsNoEqualsSign) {
    const auto img = testing::make_image(PixelFormat::rgb_f32, 9, 5, Pattern::specials, 3);
    write_oiio(path("neg.exr"), img.view);
    Request req;
    req.bins.bins = 16;
    req.bins.range = {{-1.0, 1.0}};
    const CommandRun r = run({"--format", "json", "--bins", "16", "--range", "-1:1", path("neg.exr")});
    ASSERT_EQ(r.status, 0) << r.err;
    expect_matches(r.doc()["results"][0]["histograms"], reference(img.view, req), "--range -1:1");
}

TEST_F(CliMessagesTest, DeviceErrorListsTheDevicesOnOneLine) {
    write_oiio(path("dev.png"), testing::make_image(PixelFormat::rgb8, 4, 4, Pattern::random, 1).view);
    const CommandRun r = run({"--backend", "cpu", "--device", "7", path("dev.png")});
    EXPECT_EQ(r.status, 2);
    // The message is escaped for the terminal: a line break in it would show as a literal \n.
    EXPECT_EQ(r.err.find("\\n"), std::string::npos) << r.err;
    const std::vector<std::string> lines = lines_starting(r.err, "imghist: cpu: no device matches '7'");
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_NE(lines[0].find("devices: 0: "), std::string::npos) << lines[0];
}

TEST_F(CliMessagesTest, SumNamesItsFirstFilesAndCountsTheRest) {
    std::vector<std::string> files;
    for (int i = 0; i < 12; ++i) {
        files.push_back(path("many_" + std::to_string(i) + ".png"));
        write_oiio(files.back(), testing::make_image(PixelFormat::rgb8, 3, 2, Pattern::random, 70 + i).view);
    }
    std::vector<std::string> args = {"--sum-only"};
    args.insert(args.end(), files.begin(), files.end());
    std::vector<std::string> json_args = args;
    json_args.insert(json_args.begin(), {"--format", "json"});
    const std::vector<CommandRun> runs = run_all({args, json_args});
    ASSERT_EQ(runs[0].status, 0) << runs[0].err;
    const std::vector<std::string> lines = lines_starting(runs[0].out, "  files: ");
    ASSERT_EQ(lines.size(), 1u) << runs[0].out;
    for (int i = 0; i < 12; ++i)
        EXPECT_EQ(lines[0].find(files[i]) != std::string::npos, i < 8) << files[i] << " in " << lines[0];
    EXPECT_NE(lines[0].find(", and 4 more (--format json lists them all)"), std::string::npos) << lines[0];
    EXPECT_EQ(runs[1].doc()["sums"][0]["files"].get<std::vector<std::string>>(), files);
}

}  // namespace
}  // namespace imghist::cli_test
