// The command's progress (src/cli/progress.cpp): the line from fixed numbers, and the drawing on a
// fake clock, in place for a terminal and as plain lines for a log.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "progress.hpp"

namespace imghist::cli {
namespace {

// 12 of 20 files, 3.5 MB, 1 failed, after 4 s: 3 files/s, 0.875 MB/s, 8 files left at 3 a second.
ProgressState twelve_of_twenty(std::string file = "dir/a.png") {
    ProgressState s;
    s.done = 12;
    s.total = 20;
    s.bytes = 3'500'000;
    s.errors = 1;
    s.file = std::move(file);
    return s;
}

constexpr const char* kTwelveFixed = "[12/20 60%]  3.0 files/s  0.9 MB/s  1 error  ETA 0:03";  // 53 columns

TEST(ProgressLine, KnownTotal) {
    EXPECT_EQ(progress_line(twelve_of_twenty(), 4.0, 80),
              "[12/20 60%]  3.0 files/s  0.9 MB/s  1 error  ETA 0:03  dir/a.png");
}

TEST(ProgressLine, UnknownTotalHasNoPercentAndNoEta) {
    ProgressState s;
    s.done = 7;
    s.bytes = 1'000'000;
    s.file = "x.png";
    EXPECT_EQ(progress_line(s, 2.0, 80), "[7]  3.5 files/s  0.5 MB/s  0 errors  x.png");
}

TEST(ProgressLine, NoRatesWithoutTimeNoEtaBeforeASecond) {
    ProgressState s;
    s.total = 5;
    EXPECT_EQ(progress_line(s, 0.0, 80), "[0/5 0%]  -- files/s  -- MB/s  0 errors  ETA --:--");
    s.done = 3;
    s.file = "f.png";
    EXPECT_EQ(progress_line(s, 0.5, 80), "[3/5 60%]  6.0 files/s  0.0 MB/s  0 errors  ETA --:--  f.png");
    EXPECT_EQ(progress_line(s, 1.0, 80), "[3/5 60%]  3.0 files/s  0.0 MB/s  0 errors  ETA 0:01  f.png");
}

TEST(ProgressLine, ErrorsAndLongEta) {
    ProgressState s;
    s.done = 1;
    s.total = 10000;
    s.errors = 2;
    // 9999 files left at 0.5 a second: 19998 s = 5 h 33 min 18 s.
    EXPECT_EQ(progress_line(s, 2.0, 80), "[1/10000 0%]  0.5 files/s  0.0 MB/s  2 errors  ETA 5:33:18");
    s.done = 10000;
    EXPECT_EQ(progress_line(s, 2.0, 80), "[10000/10000 100%]  5000.0 files/s  0.0 MB/s  2 errors  ETA 0:00");
}

TEST(ProgressLine, NameShortenedFromTheLeftToFit) {
    const ProgressState s = twelve_of_twenty("photos/2023/holiday/IMG_0001.jpg");  // 32 columns
    const std::string fixed = kTwelveFixed;
    EXPECT_EQ(progress_line(s, 4.0, 87), fixed + "  photos/2023/holiday/IMG_0001.jpg");
    EXPECT_EQ(progress_line(s, 4.0, 86), fixed + "  ...os/2023/holiday/IMG_0001.jpg");
    EXPECT_EQ(progress_line(s, 4.0, 70), fixed + "  ...IMG_0001.jpg");
    EXPECT_EQ(progress_line(s, 4.0, 63), fixed + "  ...1.jpg");
    EXPECT_EQ(progress_line(s, 4.0, 62), fixed);  // under 8 columns for the name: none
    EXPECT_EQ(progress_line(s, 4.0, 53), fixed);
    EXPECT_EQ(progress_line(s, 4.0, 40), "[12/20 60%]  3.0 files/s  0.9 MB/s  1 er");
    EXPECT_EQ(progress_line(s, 4.0, 0), "");
    for (std::size_t width = 0; width < 100; ++width)
        EXPECT_LE(progress_line(s, 4.0, width).size(), width) << "width " << width;
}

TEST(ProgressLine, WideCharactersCountTwoAndAreNotCut) {
    // 日, 本, 語: 3 bytes and (counted) 2 columns each; 16 columns in all.
    const ProgressState s = twelve_of_twenty("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.png");
    // 12 columns for the name: "..." and 9 of the end, ".png" and two characters.
    EXPECT_EQ(progress_line(s, 4.0, 67), std::string(kTwelveFixed) + "  ...\xe6\x9c\xac\xe8\xaa\x9e.png");
    EXPECT_EQ(progress_line(s, 4.0, 71),
              std::string(kTwelveFixed) + "  \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.png");
}

TEST(ProgressLine, NameInDisplayForm) {
    EXPECT_EQ(progress_line(twelve_of_twenty("a\n\x1b[2Jb.png"), 4.0, 80), std::string(kTwelveFixed) + "  a\\n\\x1b[2Jb.png");
}

TEST(ProgressSummary, CountsTimeRatesAndErrors) {
    ProgressState s;
    s.done = 2000;
    s.total = 2000;
    s.bytes = 1'700'000'000;
    s.errors = 3;
    EXPECT_EQ(progress_summary(s, 17.3), "imghist: 2000 files in 17.3 s (115.6 files/s, 98.3 MB/s), 3 errors");
    s.done = 1;
    s.errors = 1;
    EXPECT_EQ(progress_summary(s, 0.0), "imghist: 1 file in 0.0 s (-- files/s, -- MB/s), 1 error");
}

// A clock the test moves by hand.
struct FakeClock {
    double now = 0;
    Progress::Clock clock() {
        return [this] { return now; };
    }
};

ProgressState state(std::size_t done, std::size_t total, std::uint64_t bytes, std::size_t errors, std::string file) {
    ProgressState s;
    s.done = done;
    s.total = total;
    s.bytes = bytes;
    s.errors = errors;
    s.file = std::move(file);
    return s;
}

TEST(Progress, LogLinesAtMostOnceASecondThenASummary) {
    FakeClock t;
    std::ostringstream out;
    Progress progress(ProgressMode::log, 3, out, [] { return std::size_t(80); }, t.clock());
    t.now = 0.2;
    progress.done("a", 1'000'000, false);  // the first file: a line at once
    t.now = 0.7;
    progress.done("b", 2'000'000, true);  // 0.5 s later: none
    t.now = 1.5;
    progress.done("c", 1'000'000, false);
    t.now = 2.0;
    progress.finish();
    progress.finish();  // once only
    progress.done("d", 1, false);  // nothing after finish
    EXPECT_EQ(out.str(),
              "[1/3 33%]  5.0 files/s  5.0 MB/s  0 errors  ETA --:--  a\n"
              "[3/3 100%]  2.0 files/s  2.7 MB/s  1 error  ETA 0:00  c\n"
              "imghist: 3 files in 2.0 s (1.5 files/s, 2.0 MB/s), 1 error\n");
}

TEST(Progress, TerminalLineRedrawnInPlaceThrottledAndCleared) {
    FakeClock t;
    std::ostringstream out;
    Progress progress(ProgressMode::terminal, 4, out, [] { return std::size_t(40); }, t.clock());
    const std::string redraw = "\r\033[K";
    t.now = 0.05;
    progress.done("a", 0, false);
    t.now = 0.10;
    progress.done("b", 0, false);  // 0.05 s after the last: not drawn
    t.now = 0.11;
    { const auto held = progress.interrupt(); out << "error\n"; }
    t.now = 0.12;
    progress.done("c", 0, true);  // the line was cleared: drawn at once
    t.now = 0.13;
    progress.done("d", 0, false);  // the last file: always drawn
    progress.finish();
    // The last column of 40 stays free.
    EXPECT_EQ(out.str(), redraw + progress_line(state(1, 4, 0, 0, "a"), 0.05, 39) + redraw + "error\n" + redraw +
                             progress_line(state(3, 4, 0, 1, "c"), 0.12, 39) + redraw +
                             progress_line(state(4, 4, 0, 1, "d"), 0.13, 39) + redraw);
}

TEST(Progress, OffWritesNothing) {
    std::ostringstream out;
    Progress progress(ProgressMode::off, 2, out, [] { return std::size_t(80); });
    progress.done("a", 10, true);
    { const auto held = progress.interrupt(); }
    progress.finish();
    EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace imghist::cli
