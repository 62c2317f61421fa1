// Ctrl-C (SIGINT) and SIGTERM in the middle of a run: the binary is started on good files around
// one whose decoder hangs (the decoder's test hook), signalled once the files before it are
// reported, and must close its report: a valid JSON document or complete JSON Lines with every
// file done, the sums of those, and a note that the run was interrupted; exit 128 + the signal.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cli_files.hpp"
#include "imghist/imghist.hpp"
#include "test_images.hpp"

namespace imghist::cli_test {
namespace {

using json = nlohmann::json;
using testing::Pattern;

constexpr double kPatience = 60;  // seconds to wait for the files before the hang

class CliInterruptTest : public CliTest {
protected:
    struct Run {
        std::vector<std::string> good;  // the files before the hanging one, in order
        std::vector<Result> want;       // their reference results
        std::vector<std::string> args;  // every file: the good ones, the hanging one, two more
    };

    // Good files, then one whose decoder never answers (no time limit), then two more.
    static Run files_around_a_hang(const std::string& prefix) {
        Run r;
        for (int i = 0; i < 3; ++i) {
            const auto img = testing::make_image(PixelFormat::rgb8, 31, 19, Pattern::random, 500 + i);
            const std::string file = path(prefix + std::to_string(i) + ".png");
            write_oiio(file, img.view);
            r.good.push_back(file);
            r.want.push_back(reference(img.view));
        }
        r.args = r.good;
        for (const char* name : {"hang_me.png", "after_0.png", "after_1.png"}) {
            const auto img = testing::make_image(PixelFormat::rgb8, 8, 8, Pattern::random, 7);
            r.args.push_back(path(prefix + name));
            write_oiio(r.args.back(), img.view);
        }
        return r;
    }

    static RunOptions hanging(const std::string& prefix) {
        RunOptions o;
        o.environment["IMGHIST_TEST_DECODER_FAULT"] = "hang:" + prefix + "hang_me";
        o.timeout_seconds = 2 * kPatience;
        return o;
    }

    struct Signalled {
        Run files;
        CommandRun run;
        bool reached = false;  // stdout held the marker once per good file before the signal
    };

    // Starts imghist with `options` on the files around a hang, waits until stdout holds `marker`
    // once per good file (they reach stdout as each is done), then sends `signal`.
    static Signalled signalled(const std::string& prefix, std::vector<std::string> options, const std::string& marker,
                               int signal) {
        Signalled s{files_around_a_hang(prefix), {}, false};
        options.insert(options.end(), {"--backend", "cpu", "--threads", "2", "--decode-timeout", "0"});
        options.insert(options.end(), s.files.args.begin(), s.files.args.end());
        const StartedCommand started = start_command(dir_, options, hanging(prefix));
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kPatience);
        while (!s.reached && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            s.reached = occurrences(slurp(started.out), marker) >= s.files.good.size();
        }
        ::kill(started.pid, signal);
        s.run = finish_command(started);
        return s;
    }

    static std::size_t occurrences(const std::string& text, const std::string& marker) {
        std::size_t n = 0;
        for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) ++n;
        return n;
    }

    static void expect_interruption(const json& note, const char* signal, std::size_t reported, std::size_t inputs) {
        ASSERT_TRUE(note.is_object()) << note.dump();
        EXPECT_EQ(note["signal"], signal);
        EXPECT_EQ(note["reported"], reported);
        EXPECT_EQ(note["inputs"], inputs);
        EXPECT_TRUE(note["note"].is_string());
    }
};

TEST_F(CliInterruptTest, SigintClosesTheJsonDocumentWithWhatWasDone) {
    const auto [files, r, reached] = signalled("int_json_", {"--format", "json", "--sum"}, "\"histograms\"", SIGINT);
    EXPECT_TRUE(reached) << "the results before the hanging file did not reach stdout: " << r.out.size() << " bytes";
    EXPECT_EQ(r.status, 128 + SIGINT) << r.err;
    const json doc = r.doc();
    ASSERT_TRUE(doc.contains("results")) << r.out.substr(0, 300);
    ASSERT_EQ(doc["results"].size(), files.good.size());
    for (std::size_t i = 0; i < files.good.size(); ++i) {
        EXPECT_EQ(doc["results"][i]["file"], files.good[i]);
        expect_matches(doc["results"][i]["histograms"], files.want[i], files.good[i]);
    }
    EXPECT_TRUE(doc["errors"].empty()) << doc["errors"].dump();
    // The sum is that of the files done, exactly.
    Result sum = files.want[0];
    for (std::size_t i = 1; i < files.want.size(); ++i) sum.merge(files.want[i]);
    ASSERT_EQ(doc["sums"].size(), 1u);
    EXPECT_EQ(doc["sums"][0]["files"].size(), files.good.size());
    expect_matches(doc["sums"][0]["histograms"], sum, "the sum");
    expect_interruption(doc["interrupted"], "SIGINT", files.good.size(), files.args.size());
    EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
}

TEST_F(CliInterruptTest, SigtermEndsJsonLinesOnCompleteLinesThatMergeReads) {
    const auto [files, r, reached] = signalled("term_jsonl_", {"--format", "jsonl", "--sum"}, "\n", SIGTERM);
    // Each line is written out as its file is done, not when a 4,096-byte buffer fills.
    EXPECT_TRUE(reached) << "the lines of the files before the hanging one did not reach stdout";
    EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
    const std::vector<json> lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), files.good.size() + 2) << r.out.substr(0, 300);  // the results, the sum, the note
    for (std::size_t i = 0; i < files.good.size(); ++i) EXPECT_EQ(lines[i]["file"], files.good[i]);
    EXPECT_EQ(lines[files.good.size()]["sum"]["files"].size(), files.good.size());
    expect_interruption(lines.back()["interrupted"], "SIGTERM", files.good.size(), files.args.size());

    // imghist merge reads it, and says that it covers part of its run.
    const std::string report = path("term_jsonl_report.jsonl");
    write_bytes(report, r.out);
    const CommandRun merged = run({"merge", "--format", "json", report});
    EXPECT_EQ(merged.status, 0) << merged.err;
    EXPECT_EQ(merged.doc()["sums"][0]["files"].size(), files.good.size());
    EXPECT_NE(merged.err.find("interrupted"), std::string::npos) << merged.err;
}

TEST_F(CliInterruptTest, SigintEndsTheTableWithTheSumOfWhatWasDone) {
    const auto [files, r, reached] = signalled("int_table_", {"--sum"}, "clip high", SIGINT);
    EXPECT_TRUE(reached) << "the tables of the files before the hanging one did not reach stdout";
    EXPECT_EQ(r.status, 128 + SIGINT) << r.err;
    EXPECT_NE(r.out.find("sum of " + std::to_string(files.good.size()) + " files"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("interrupted by SIGINT"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace imghist::cli_test
