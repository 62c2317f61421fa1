// Bounds on what options make imghist read and hold. The files options name (--edges @FILE,
// --files-from FILE, the list on stdin, imghist merge REPORT) are checked as inputs are and read
// with bounds, and --tiles is bounded by the counters a report can hold: each hostile case is a
// clear error, in little time and memory.
//
// Found by the hardening review of 2026-12: --edges @FIFO hung, --edges @/dev/zero grew to
// 4.3 GB, --files-from /dev/zero and merge /dev/zero grew until allocation failed, merge
// DIRECTORY printed a libstdc++ message, and --tiles 256,250 on a 192 KB PNG took 3.2 GB and
// wrote 243 MB of JSON with exit status 0.
#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli_files.hpp"

namespace imghist::cli_test {
namespace {

using json = nlohmann::json;

class BoundsTest : public CliTest {
protected:
    // Every hostile run is killed after this long, so a hang fails the test instead of the suite.
    static constexpr double kLimitSeconds = 30;
    static constexpr long kMaxRssKib = 300 * 1024;

    static void SetUpTestSuite() {
        CliTest::SetUpTestSuite();
        std::string ppm = "P6\n4 3\n255\n";
        for (int k = 0; k < 36; ++k) ppm += char(k * 7);
        write_bytes(path("g.ppm"), ppm);
        ASSERT_EQ(::mkfifo(path("nowriter.fifo").c_str(), 0600), 0);
        fs::create_directories(path("a.dir"));
    }

    static CommandRun bounded(const std::vector<std::string>& args, const std::string& program = {}) {
        RunOptions options;
        options.timeout_seconds = kLimitSeconds;
        options.program = program;
        return run(args, options);
    }

    // The run ended on its own, with `status` and `message` on stderr, in bounded memory.
    static void expect_refused(const CommandRun& r, int status, const std::string& message, const std::string& what) {
        EXPECT_EQ(r.status, status) << what << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << what << ": " << r.err;
        EXPECT_LT(r.err.size(), 1000u) << what;
        EXPECT_LT(r.max_rss_kib, kMaxRssKib) << what;
        EXPECT_TRUE(r.out.empty()) << what << ": " << r.out;
    }
};

TEST_F(BoundsTest, EdgesFilesAreRegularFilesOfAtMostOneMiB) {
    std::string big;
    while (big.size() <= (std::size_t(1) << 20)) big += "0.5,1.25,";
    write_bytes(path("big_edges.txt"), big);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {path("nowriter.fifo"), "a FIFO, not a regular file"},
        {"/dev/zero", "a character device, not a regular file"},
        {path("a.dir"), "a directory, not a regular file"},
        {path("big_edges.txt"), "holds more than 1 MiB"},
    };
    for (const auto& [file, message] : cases)
        expect_refused(bounded({"--edges", "@" + file, path("g.ppm")}), 2, "--edges @" + file + ": " + message, file);
}

TEST_F(BoundsTest, ListsOfPathsAreBoundedPerLine) {
    write_bytes(path("no_newline.txt"), std::string(std::size_t(1) << 20, 'a'));
    expect_refused(bounded({"--files-from", "/dev/zero"}), 2,
                   "--files-from /dev/zero: a character device, not a regular file or a pipe", "/dev/zero");
    expect_refused(bounded({"--files-from", path("a.dir")}), 2, "a directory, not a regular file or a pipe", "a.dir");
    expect_refused(bounded({"--files-from", path("no_newline.txt")}), 2,
                   "line 1 is longer than 4 KiB: not a list of paths", "no_newline.txt");
    // Standard input is whatever the caller gave: read, but a line at a time.
    expect_refused(bounded({"-c", "exec \"$0\" - < /dev/zero", imghist_binary()}, "/bin/sh"), 2,
                   "the list of paths stdin: line 1 is longer than 4 KiB", "stdin");
}

// A list may come through a pipe (a FIFO, `--files-from <(find ...)`): read as it arrives.
TEST_F(BoundsTest, ListsOfPathsMayComeThroughAFifo) {
    const std::string fifo = path("list.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const CommandRun r = bounded({"-c", "printf '%s\\n' \"$2\" \"$2\" > \"$1\" & exec \"$0\" --sum-only --files-from \"$1\"",
                                  imghist_binary(), fifo, path("g.ppm")},
                                 "/bin/sh");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("sum of 2 files  24 pixels  rgb8"), std::string::npos) << r.out;
}

TEST_F(BoundsTest, MergeReadsRegularFilesOnly) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {path("nowriter.fifo"), "a FIFO, not a regular file"},
        {"/dev/zero", "a character device, not a regular file"},
        {path("a.dir"), "a directory, not a regular file"},
    };
    for (const auto& [file, message] : cases)
        expect_refused(bounded({"merge", file}), 1, "imghist merge: " + file + ": " + message, file);
}

TEST_F(BoundsTest, TileCountersAreBoundedByWhatAReportHolds) {
    // The review's grid: 256 x 250 tiles of R, G, B, Y with 256 bins (8-bit; float would get 257).
    const std::uint64_t counters = 256ull * 250 * 4 * 257;
    expect_refused(bounded({"--tiles", "256,250", path("g.ppm")}), 2,
                   "--tiles 256,250: 64000 tiles x 4 channels x 257 bins are " + std::to_string(counters) +
                       " counters a file, more than the 8388608 a report holds",
                   "256,250");
    expect_refused(bounded({"--tiles", "2,2", "--bins", "1048576", path("g.ppm")}), 2,
                   "4 tiles x 4 channels x 1048576 bins are 16777216 counters", "--bins");
    // At the bound: 64 x 64 tiles of R, G, B, A, Y of 257 bins (5 x 257 x 4096 = 5,263,360), and
    // 4 x 3 tiles of one pixel each of the 4 x 3 image, are counted.
    const auto runs = run_all({{"--tiles", "64,64", "--alpha", "--format", "json", path("g.ppm")},
                               {"--tiles", "4,3", "--format", "json", path("g.ppm")}});
    EXPECT_EQ(runs[0].status, 1) << runs[0].err;  // more tiles than the 4 x 3 image's pixels: its error
    EXPECT_EQ(runs[0].err.find("counters"), std::string::npos) << runs[0].err;
    ASSERT_EQ(runs[1].status, 0) << runs[1].err;
    EXPECT_EQ(runs[1].doc()["results"][0]["tiles"].size(), 12u);
}

}  // namespace
}  // namespace imghist::cli_test
