// The imghist command decodes every file in a separate decoder process: a decoder that crashes
// or hangs costs that one file, never the run. These tests run the built binary; the crashes
// and hangs come from the decoder's test hook (IMGHIST_TEST_DECODER_FAULT, honoured only in the
// decoder process) and from real inputs (a heap-corrupting IFF, a FIFO that never opens).
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "imghist/imghist.hpp"
#include "cli_support.hpp"
#include "oiio_sample_type.hpp"
#include "test_images.hpp"

namespace {

namespace fs = std::filesystem;
namespace OIIO = OIIO_NAMESPACE;
using json = nlohmann::json;
using imghist::PixelFormat;
using imghist::testing::Pattern;

using imghist::cli_test::CommandRun;
using imghist::cli_test::RunOptions;
using imghist::cli_test::slurp;

class CliIsolationTest : public imghist::cli_test::ScratchDirTest {
protected:
    // `fault` becomes IMGHIST_TEST_DECODER_FAULT (none when empty, even if the tests inherit one).
    static RunOptions with_fault(const std::string& fault) {
        RunOptions o;
        o.environment["IMGHIST_TEST_DECODER_FAULT"] =
            fault.empty() ? std::nullopt : std::optional<std::string>(fault);
        return o;
    }
    static CommandRun run(const std::vector<std::string>& args, const std::string& fault = {}) {
        return imghist::cli_test::run_command(dir_, args, with_fault(fault));
    }
};

using imghist::cli_test::oiio_type;

// Writes the image and returns it, so the test knows the pixels the file holds.
imghist::testing::TestImage write_image(const std::string& file, PixelFormat format, std::uint64_t seed,
                                        Pattern pattern = Pattern::random, std::uint32_t width = 29,
                                        std::uint32_t height = 17) {
    auto img = imghist::testing::make_image(format, width, height, pattern, seed);
    const auto& fi = img.view.info();
    OIIO::ImageSpec spec(int(img.view.width), int(img.view.height), fi.channels, oiio_type(fi.sample));
    if (fi.channels == 4) spec.alpha_channel = 3;
    spec.attribute("oiio:UnassociatedAlpha", 1);
    auto out = OIIO::ImageOutput::create(file);
    EXPECT_TRUE(out) << OIIO::geterror();
    if (!out) return img;
    EXPECT_TRUE(out->open(file, spec)) << out->geterror();
    EXPECT_TRUE(out->write_image(oiio_type(fi.sample), img.view.data, OIIO::AutoStride,
                                 OIIO::stride_t(img.view.stride_bytes)))
        << out->geterror();
    EXPECT_TRUE(out->close()) << out->geterror();
    return img;
}

// The JSON of one result holds the reference backend's counts of the pixels written.
void expect_counts(const json& result, const imghist::ImageView& pixels) {
    const imghist::Result want = imghist::create_engine("reference")->compute(pixels, {});
    ASSERT_TRUE(result.contains("histograms")) << result.dump().substr(0, 300);
    const json& histograms = result["histograms"];
    EXPECT_EQ(histograms.size(), want.channels.size());
    for (const auto& c : want.channels) {
        const std::string name(imghist::channel_name(c.channel));
        ASSERT_TRUE(histograms.contains(name)) << name;
        EXPECT_EQ(histograms[name]["counts"].get<std::vector<std::uint64_t>>(), c.counts) << name;
        EXPECT_EQ(histograms[name]["nan"].get<std::uint64_t>(), c.nan) << name;
        EXPECT_EQ(histograms[name]["below"].get<std::uint64_t>(), c.below) << name;
        EXPECT_EQ(histograms[name]["above"].get<std::uint64_t>(), c.above) << name;
    }
}

const json* find_entry(const json& list, const std::string& file) {
    for (const auto& r : list)
        if (r["file"] == file) return &r;
    return nullptr;
}

// Good files around one bad one, in an order that puts the bad file in the middle.
struct Batch {
    std::vector<std::string> files;  // every file, as given to the command
    std::vector<std::pair<std::string, imghist::testing::TestImage>> good;
};
Batch batch_around(const std::string& bad, const std::string& prefix) {
    Batch b;
    for (int i = 0; i < 6; ++i) {
        const std::string f = (fs::path(bad).parent_path() / (prefix + std::to_string(i) + ".png")).string();
        b.good.emplace_back(f, write_image(f, i % 2 ? PixelFormat::rgb8 : PixelFormat::rgba16, 100 + i));
        b.files.push_back(f);
        if (i == 2) b.files.push_back(bad);
    }
    return b;
}

// Every good file is reported, with the right counts.
void expect_good_files_reported(const json& doc, const Batch& b) {
    ASSERT_TRUE(doc.contains("results"));
    for (const auto& [file, img] : b.good) {
        SCOPED_TRACE(file);
        const json* got = find_entry(doc["results"], file);
        ASSERT_TRUE(got) << "a good file was lost: " << doc.dump().substr(0, 500);
        expect_counts(*got, img.view);
    }
}

// Every good file is reported with the right counts, the bad one is an error whose message
// holds `reason`, and the exit status is 1.
void expect_only_the_bad_file_lost(const CommandRun& r, const Batch& b, const std::string& bad,
                                   const std::string& reason) {
    EXPECT_EQ(r.status, 1) << r.err;
    const json doc = r.doc();
    expect_good_files_reported(doc, b);
    EXPECT_EQ(doc["results"].size(), b.good.size()) << r.err;
    ASSERT_EQ(doc["errors"].size(), 1u) << doc["errors"].dump();
    const json* error = find_entry(doc["errors"], bad);
    ASSERT_TRUE(error) << doc["errors"].dump();
    EXPECT_NE((*error)["error"].get<std::string>().find(reason), std::string::npos) << (*error)["error"];
}

// --- a decoder that crashes ------------------------------------------------------------------

struct CrashCase {
    std::string fault, reason;
};

void PrintTo(const CrashCase& c, std::ostream* os) { *os << c.fault; }

class CliDecoderCrash : public CliIsolationTest, public ::testing::WithParamInterface<CrashCase> {};

TEST_P(CliDecoderCrash, CostsOnlyThatFile) {
    const CrashCase& c = GetParam();
    const std::string bad = path("crash_" + c.fault + ".png");
    const Batch b = batch_around(bad, "around_" + c.fault + "_");
    write_image(bad, PixelFormat::rgb8, 7);  // a good file: only the hook makes it crash
    for (const std::string threads : {"1", "3"}) {
        SCOPED_TRACE("threads " + threads);
        std::vector<std::string> args = {"--format", "json", "--backend", "cpu", "--threads", threads};
        args.insert(args.end(), b.files.begin(), b.files.end());
        const CommandRun r = run(args, c.fault + ":crash_" + c.fault);
        expect_only_the_bad_file_lost(r, b, bad, c.reason);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Faults, CliDecoderCrash,
    ::testing::Values(CrashCase{"segv", "the decoder crashed (SIGSEGV)"},
                      CrashCase{"abort", "the decoder crashed (SIGABRT)"},
                      CrashCase{"exit", "the decoder exited with status 3"}),
    [](const auto& info) { return info.param.fault; });

TEST_F(CliIsolationTest, CrashIsReportedInTheTableToo) {
    const std::string bad = path("table_crash.png");
    const Batch b = batch_around(bad, "table_");
    write_image(bad, PixelFormat::rgb8, 8);
    std::vector<std::string> args = {"--backend", "cpu"};
    args.insert(args.end(), b.files.begin(), b.files.end());
    const CommandRun r = run(args, "segv:table_crash");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("imghist: " + bad + ": the decoder crashed (SIGSEGV)"), std::string::npos) << r.err;
    for (const auto& [file, img] : b.good) EXPECT_NE(r.out.find(file), std::string::npos) << file;
}

// The real heap overflow of OpenImageIO 2.4's IFF reader. It corrupts the heap differently
// from run to run: the decoder process aborts, segfaults, or even returns an image. Whichever
// happens (or if the reading policy refuses the file), every other file is reported.
TEST_F(CliIsolationTest, HeapCorruptingIffCostsNoOtherFile) {
    const std::string iff = std::string(IMGHIST_REPRO_DIR) + "/oiio_iff_rle_heap_overflow.iff";
    ASSERT_TRUE(fs::exists(iff)) << iff;
    const Batch b = batch_around(path("iff_placeholder"), "iff_");
    std::vector<std::string> files = b.files;
    std::replace(files.begin(), files.end(), path("iff_placeholder"), iff);
    for (int attempt = 0; attempt < 4; ++attempt) {
        SCOPED_TRACE("attempt " + std::to_string(attempt));
        std::vector<std::string> args = {"--format", "json", "--backend", "cpu"};
        args.insert(args.end(), files.begin(), files.end());
        const CommandRun r = run(args);
        ASSERT_TRUE(r.status == 0 || r.status == 1) << "the run died: status " << r.status << "\n" << r.err;
        const json doc = r.doc();
        expect_good_files_reported(doc, b);
        EXPECT_TRUE(find_entry(doc["results"], iff) || find_entry(doc["errors"], iff)) << "the IFF is not reported";
        EXPECT_EQ(doc["results"].size() + doc["errors"].size(), files.size());
    }
}

// --- a decoder that takes too long -----------------------------------------------------------

TEST_F(CliIsolationTest, HangingDecoderTimesOut) {
    const std::string bad = path("hang_me.png");
    const Batch b = batch_around(bad, "hang_");
    write_image(bad, PixelFormat::rgb8, 9);
    std::vector<std::string> args = {"--format", "json", "--backend", "cpu", "--threads", "2",
                                     "--decode-timeout", "1"};
    args.insert(args.end(), b.files.begin(), b.files.end());
    const CommandRun r = run(args, "hang:hang_me");
    expect_only_the_bad_file_lost(r, b, bad, "took longer than 1 s");
    EXPECT_LT(r.seconds, 30.0) << "the time limit was not applied";
}

// --- a decoder that allocates without end ---------------------------------------------------

// A reader that asks for 64 GiB (the test hook, in untouched chunks) is stopped by the decoder's
// memory limit, which --max-pixels sets: that file fails as out of memory, the others are read.
TEST_F(CliIsolationTest, DecoderMemoryIsLimitedPerFile) {
    const std::string bad = path("greedy_me.png");
    const Batch b = batch_around(bad, "greedy_");
    write_image(bad, PixelFormat::rgb8, 9);
    std::vector<std::string> args = {"--format", "json", "--backend", "cpu", "--max-pixels", "1M"};
    args.insert(args.end(), b.files.begin(), b.files.end());
    expect_only_the_bad_file_lost(run(args, "alloc:greedy_me"), b, bad, "out of memory");
}

TEST_F(CliIsolationTest, FifoThatNeverOpensIsBounded) {
    // A FIFO nobody writes to blocks open() forever: rejected up front or cut off by the limit.
    const std::string fifo = path("never.png");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    const Batch b = batch_around(fifo, "fifo_");
    std::vector<std::string> args = {"--format", "json", "--backend", "cpu", "--decode-timeout", "1"};
    args.insert(args.end(), b.files.begin(), b.files.end());
    const CommandRun r = run(args);
    expect_only_the_bad_file_lost(r, b, fifo, "");
    EXPECT_LT(r.seconds, 30.0);
}

TEST_F(CliIsolationTest, TimeoutOptionIsChecked) {
    const std::string good = path("timeout_opt.png");
    write_image(good, PixelFormat::rgb8, 10);
    EXPECT_EQ(run({"--decode-timeout", "-1", good}).status, 2);
    EXPECT_EQ(run({"--decode-timeout", "abc", good}).status, 2);
    // 0 means no limit; the hook hangs only the decoder process, never the in-process reader.
    const CommandRun r = run({"--format", "json", "--decode-timeout", "0", "--decode-in-process", good}, "hang:timeout_opt");
    EXPECT_EQ(r.status, 0) << r.err;
}

// --- the decoder process is invisible in the results -----------------------------------------

TEST_F(CliIsolationTest, DecoderProcessMatchesInProcessBitForBit) {
    struct Case {
        std::string name;
        PixelFormat format;
        Pattern pattern;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"p8.png", PixelFormat::rgb8, Pattern::random, "rgb8"},
        {"p8a.png", PixelFormat::rgba8, Pattern::natural, "rgba8"},
        {"p16.png", PixelFormat::rgb16, Pattern::random, "rgb16"},
        {"p16g.png", PixelFormat::gray16, Pattern::natural, "gray16"},
        {"pf32.exr", PixelFormat::rgba_f32, Pattern::specials, "rgba_f32"},
        {"pf16.exr", PixelFormat::rgb_f16, Pattern::specials, "rgb_f16"},
        {"p8.tif", PixelFormat::rgb8, Pattern::random, "rgb8"},
        {"p16.tif", PixelFormat::rgba16, Pattern::random, "rgba16"},
        {"pf32.tif", PixelFormat::rgb_f32, Pattern::specials, "rgb_f32"},
    };
    std::vector<std::string> args = {"--format", "json", "--backend", "cpu", "--alpha"};
    std::vector<imghist::testing::TestImage> images;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        images.push_back(write_image(path(cases[i].name), cases[i].format, 200 + i, cases[i].pattern));
        args.push_back(path(cases[i].name));
    }
    std::vector<std::string> in_process = args;
    in_process.insert(in_process.begin(), "--decode-in-process");
    const CommandRun isolated = run(args), direct = run(in_process);
    ASSERT_EQ(isolated.status, 0) << isolated.err;
    ASSERT_EQ(direct.status, 0) << direct.err;
    const json a = isolated.doc(), b = direct.doc();
    EXPECT_EQ(a["results"].size(), cases.size());
    EXPECT_EQ(a, b) << "the decoder process changed a result";
    imghist::Request alpha;
    alpha.count_alpha = true;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        SCOPED_TRACE(cases[i].name);
        const json* got = find_entry(a["results"], path(cases[i].name));
        ASSERT_TRUE(got);
        EXPECT_EQ((*got)["format"], cases[i].expected);
        const imghist::Result want = imghist::create_engine("reference")->compute(images[i].view, alpha);
        for (const auto& c : want.channels)
            EXPECT_EQ((*got)["histograms"][std::string(imghist::channel_name(c.channel))]["counts"]
                          .get<std::vector<std::uint64_t>>(),
                      c.counts);
    }
}

// A decoder keeps its pixel buffers from file to file (a larger file gets a new one, and so
// does a fresh decoder): every file must still be counted from its own pixels, through smaller
// and larger files and a decoder replaced after a crash.
TEST_F(CliIsolationTest, ReusedPixelBuffersGiveEveryFileItsOwnPixels) {
    struct Case {
        std::string name;
        PixelFormat format;
        std::uint32_t width, height;
    };
    const std::vector<Case> cases = {
        {"r0.png", PixelFormat::rgb8, 64, 48},   {"r1.png", PixelFormat::gray8, 7, 5},
        {"r2.png", PixelFormat::rgba16, 80, 61}, {"r3_crash.png", PixelFormat::rgb8, 90, 70},
        {"r4.png", PixelFormat::rgb8, 33, 9},    {"r5.png", PixelFormat::rgba16, 80, 61},
        {"r6.png", PixelFormat::gray8, 64, 48},  {"r7.png", PixelFormat::rgb8, 64, 48},
    };
    std::vector<std::string> files;
    std::vector<imghist::testing::TestImage> images;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        images.push_back(write_image(path(cases[i].name), cases[i].format, 300 + i, Pattern::random, cases[i].width,
                                     cases[i].height));
        files.push_back(path(cases[i].name));
    }
    for (const std::string threads : {"1", "2"}) {
        SCOPED_TRACE("threads " + threads);
        std::vector<std::string> args = {"--format", "json", "--backend", "cpu", "--threads", threads};
        args.insert(args.end(), files.begin(), files.end());
        const CommandRun r = run(args, "segv:_crash");
        EXPECT_EQ(r.status, 1) << r.err;
        const json doc = r.doc();
        ASSERT_TRUE(doc.contains("results")) << r.err;
        EXPECT_EQ(doc["results"].size(), cases.size() - 1);
        ASSERT_EQ(doc["errors"].size(), 1u) << doc["errors"].dump();
        EXPECT_EQ(doc["errors"][0]["file"], path("r3_crash.png"));
        for (std::size_t i = 0; i < cases.size(); ++i) {
            if (i == 3) continue;
            SCOPED_TRACE(cases[i].name);
            const json* got = find_entry(doc["results"], files[i]);
            ASSERT_TRUE(got);
            expect_counts(*got, images[i].view);
        }
    }
}

TEST_F(CliIsolationTest, InternalDecoderArgumentIsNotInHelp) {
    const CommandRun r = run({"--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("--decode-timeout"), std::string::npos);
    EXPECT_NE(r.out.find("--decode-in-process"), std::string::npos);
    EXPECT_EQ(r.out.find("decoder-process"), std::string::npos) << "the internal argument shows in --help";
}

// --- the decoder process never outlives the command ------------------------------------------

// Decoder processes whose command line names `parent` as their parent.
std::vector<pid_t> decoders_of(pid_t parent) {
    std::vector<pid_t> found;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = slurp(entry.path() / "cmdline");
        std::vector<std::string> words;
        std::stringstream ss(cmdline);
        for (std::string w; std::getline(ss, w, '\0');) words.push_back(w);
        if (words.size() >= 2 && words[1].find("decoder-process") != std::string::npos &&
            std::find(words.begin(), words.end(), std::to_string(parent)) != words.end())
            found.push_back(pid_t(std::stoi(name)));
    }
    return found;
}

TEST_F(CliIsolationTest, DecoderDiesWithTheCommand) {
    const std::string bad = path("hang_forever.png");
    write_image(bad, PixelFormat::rgb8, 11);
    const pid_t pid = imghist::cli_test::start_command(
                          dir_, {"--format", "json", "--decode-timeout", "0", bad}, with_fault("hang:hang_forever"))
                          .pid;
    ASSERT_GT(pid, 0);
    std::vector<pid_t> decoders;
    for (int i = 0; i < 200 && decoders.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        decoders = decoders_of(pid);
    }
    ASSERT_FALSE(decoders.empty()) << "no decoder process was seen";
    ::kill(pid, SIGKILL);
    int raw = 0;
    ::waitpid(pid, &raw, 0);
    for (int i = 0; i < 100 && !decoders_of(pid).empty(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(decoders_of(pid).empty()) << "a decoder process outlived the command";
}

// What imghist refuses itself (a missing path, a file that is no image) never reaches a decoder
// process: each failed file used to cost a fresh one (10,000 missing paths took a minute). The
// test hook would crash a decoder given any of these names; the good file between them, named
// alike, shows that the hook works.
TEST_F(CliIsolationTest, FilesRefusedBeforeDecodingStartNoDecoder) {
    const std::string good = path("unforked_good.png");
    write_image(good, PixelFormat::rgb8, 11);
    std::ofstream(path("unforked_notes.png")) << "notes, not an image\n";
    const std::vector<std::string> refused = {path("unforked_missing.png"), path("unforked_notes.png"),
                                              path("unforked_nowhere/a.png")};
    std::vector<std::string> args = {"--format", "json", "--backend", "cpu", "--threads", "1"};
    args.insert(args.end(), refused.begin(), refused.end());
    args.push_back(good);
    const CommandRun r = run(args, "abort:unforked_");
    EXPECT_EQ(r.status, 1) << r.err;
    const json doc = r.doc();
    ASSERT_EQ(doc["errors"].size(), refused.size() + 1) << doc["errors"].dump();
    const char* says[] = {"no such file", "not an image imghist reads", "no such file"};
    for (std::size_t i = 0; i < refused.size(); ++i) {
        const json* error = find_entry(doc["errors"], refused[i]);
        ASSERT_TRUE(error) << refused[i];
        EXPECT_NE((*error)["error"].get<std::string>().find(says[i]), std::string::npos) << (*error)["error"];
    }
    const json* crashed = find_entry(doc["errors"], good);
    ASSERT_TRUE(crashed) << doc["errors"].dump();
    EXPECT_NE((*crashed)["error"].get<std::string>().find("the decoder crashed (SIGABRT)"), std::string::npos);
}

}  // namespace
