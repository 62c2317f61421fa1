// Helpers shared by the CLI test executables: running a command (the built imghist binary by
// default) with its output captured, reading files back, and a per-suite scratch directory.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "imghist/result.hpp"

namespace imghist::cli_test {

namespace fs = std::filesystem;

struct CommandRun {
    int status = -1;  // the exit status, or 128 + the signal that ended the command; 124: timed out
    std::string out, err;
    double seconds = 0;
    long max_rss_kib = 0;  // the command's peak resident memory (its decoder processes' too, if larger)
    // stdout as one JSON document; a failure (and an empty object) when it is not one.
    nlohmann::json doc() const;
};

struct RunOptions {
    std::string program;           // empty: the imghist binary under test
    bool as_unprivileged = false;  // under uid/gid 65534 when the tests run as root
    std::string stdout_path;       // e.g. /dev/full; empty: a scratch file read back into `out`
    // Changes to the inherited environment: a value sets the variable, nullopt removes it.
    std::map<std::string, std::optional<std::string>> environment;
    double timeout_seconds = 0;    // > 0: killed after this long, status 124
};

// A started command; stdin is /dev/null, stdout and stderr go to files of their own.
struct StartedCommand {
    pid_t pid = -1;
    fs::path out, err;
    RunOptions options;
    std::chrono::steady_clock::time_point started;
};

StartedCommand start_command(const fs::path& scratch, const std::vector<std::string>& args,
                             const RunOptions& options = {});
// Waits for the command to end (or its time limit) and reads its output back.
CommandRun finish_command(const StartedCommand& started);
CommandRun run_command(const fs::path& scratch, const std::vector<std::string>& args,
                       const RunOptions& options = {});

std::string slurp(const fs::path& file);
// The imghist binary under test.
std::string imghist_binary();

// The JSON histograms of one result (its "histograms" object) equal the library's result,
// channel by channel: bins, range, counts, nan, below, above, count and median.
void expect_matches(const nlohmann::json& histograms, const Result& want, const std::string& what);

// A fixture whose suite shares one scratch directory, readable by the unprivileged uid, removed
// after the suite even where a test took its permissions away.
class ScratchDirTest : public ::testing::Test {
protected:
    static fs::path dir_;
    static void SetUpTestSuite();
    static void TearDownTestSuite();
    static std::string path(const std::string& name) { return (dir_ / name).string(); }
    static CommandRun run(const std::vector<std::string>& args, const RunOptions& options = {}) {
        return run_command(dir_, args, options);
    }
};

}  // namespace imghist::cli_test
