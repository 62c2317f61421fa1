#include "cli_support.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

extern char** environ;

namespace imghist::cli_test {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

json CommandRun::doc() const {
    try {
        return json::parse(out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "stdout is not one JSON document: " << e.what() << "\nstdout: " << out.substr(0, 500)
                      << "\nstderr: " << err.substr(0, 2000);
        return json::object();
    }
}

std::string imghist_binary() { return IMGHIST_CLI_PATH; }

std::string slurp(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {

std::vector<std::string> environment_for(const RunOptions& o) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string entry(*e);
        if (!o.environment.contains(entry.substr(0, entry.find('=')))) env.push_back(entry);
    }
    for (const auto& [name, value] : o.environment)
        if (value) env.push_back(name + "=" + *value);
    return env;
}

std::vector<char*> null_terminated(std::vector<std::string>& words) {
    std::vector<char*> v;
    for (auto& w : words) v.push_back(w.data());
    v.push_back(nullptr);
    return v;
}

}  // namespace

StartedCommand start_command(const fs::path& scratch, const std::vector<std::string>& args, const RunOptions& o) {
    // Runs may start from several threads at once (CliTest::run_all).
    static std::atomic<int> serial{0};
    const int n = serial++;
    StartedCommand s{-1, scratch / ("stdout" + std::to_string(n)), scratch / ("stderr" + std::to_string(n)), o,
                     Clock::now()};
    std::vector<std::string> argv;
    if (o.as_unprivileged && ::geteuid() == 0)
        argv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    argv.push_back(o.program.empty() ? imghist_binary() : o.program);
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env = environment_for(o);
    // Everything the child needs is built before fork: other threads may hold the allocator.
    std::vector<char*> cargv = null_terminated(argv), cenv = null_terminated(env);
    const std::string out_path = o.stdout_path.empty() ? s.out.string() : o.stdout_path;
    const std::string err_path = s.err.string();

    s.pid = ::fork();
    if (s.pid == 0) {
        const int in_fd = ::open("/dev/null", O_RDONLY);
        const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in_fd < 0 || out_fd < 0 || err_fd < 0) ::_exit(126);
        ::dup2(in_fd, 0);
        ::dup2(out_fd, 1);
        ::dup2(err_fd, 2);
        ::execvpe(cargv[0], cargv.data(), cenv.data());
        static const char msg[] = "cannot run the command\n";
        (void)!::write(2, msg, sizeof msg - 1);
        ::_exit(127);
    }
    EXPECT_GT(s.pid, 0) << "fork failed: " << std::strerror(errno);
    return s;
}

CommandRun finish_command(const StartedCommand& s) {
    CommandRun r;
    if (s.pid <= 0) return r;
    int raw = 0;
    struct rusage usage {};
    bool timed_out = false;
    if (s.options.timeout_seconds > 0) {
        const auto deadline = s.started + std::chrono::duration<double>(s.options.timeout_seconds);
        while (::wait4(s.pid, &raw, WNOHANG, &usage) == 0) {
            if (Clock::now() > deadline) {
                ::kill(s.pid, SIGKILL);
                timed_out = true;
                while (::wait4(s.pid, &raw, 0, &usage) < 0 && errno == EINTR) {
                }
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    } else {
        while (::wait4(s.pid, &raw, 0, &usage) < 0 && errno == EINTR) {
        }
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - s.started).count();
    r.max_rss_kib = usage.ru_maxrss;
    r.status = timed_out ? 124 : WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + (WIFSIGNALED(raw) ? WTERMSIG(raw) : 0);
    if (s.options.stdout_path.empty()) r.out = slurp(s.out);
    r.err = slurp(s.err);
    return r;
}

CommandRun run_command(const fs::path& scratch, const std::vector<std::string>& args, const RunOptions& o) {
    return finish_command(start_command(scratch, args, o));
}

fs::path ScratchDirTest::dir_;

void ScratchDirTest::SetUpTestSuite() {
    const auto* suite = ::testing::UnitTest::GetInstance()->current_test_suite();
    dir_ = fs::temp_directory_path() /
           ("imghist_" + std::string(suite ? suite->name() : "cli") + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::permissions(dir_, fs::perms(0755));
}

void ScratchDirTest::TearDownTestSuite() {
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir_, ec))
        if (e.is_directory(ec)) fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_);
}

void expect_matches(const json& histograms, const imghist::Result& want, const std::string& what) {
    ASSERT_TRUE(histograms.is_object()) << what;
    EXPECT_EQ(histograms.size(), want.channels.size()) << what << ": " << histograms.dump().substr(0, 200);
    for (const auto& c : want.channels) {
        const std::string name(imghist::channel_name(c.channel));
        ASSERT_TRUE(histograms.contains(name)) << what << ": no channel " << name;
        const json& h = histograms[name];
        EXPECT_EQ(h["bins"].get<std::uint32_t>(), c.layout.bins) << what << " " << name;
        EXPECT_EQ(h["range"][0].get<double>(), c.layout.lo) << what << " " << name;
        EXPECT_EQ(h["range"][1].get<double>(), c.layout.hi) << what << " " << name;
        EXPECT_EQ(h.contains("edges"), !c.layout.edges.empty()) << what << " " << name;
        if (h.contains("edges")) EXPECT_EQ(h["edges"].get<std::vector<double>>(), c.layout.edges) << what << " " << name;
        EXPECT_EQ(h["counts"].get<std::vector<std::uint64_t>>(), c.counts) << what << " " << name;
        EXPECT_EQ(h["nan"].get<std::uint64_t>(), c.nan) << what << " " << name;
        EXPECT_EQ(h["below"].get<std::uint64_t>(), c.below) << what << " " << name;
        EXPECT_EQ(h["above"].get<std::uint64_t>(), c.above) << what << " " << name;
        const auto s = c.stats();
        EXPECT_EQ(h["stats"]["count"].get<std::uint64_t>(), s.count) << what << " " << name;
        const json& median = h["stats"]["median"];  // null when no sample is in a bin
        EXPECT_EQ(median.is_null() ? std::nullopt : std::optional(median.get<std::uint32_t>()), s.median)
            << what << " " << name;
    }
}

}  // namespace imghist::cli_test
