#include "decoder_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

extern char** environ;

namespace imghist::cli {

namespace {

constexpr const char* kDecoderArgument = "--internal-decoder-process";
constexpr int kLauncherSocket = 3;  // the launcher's end of its socket to imghist
constexpr std::uint32_t kProtocol = 0x69680001;  // "ih", version 1
// One message, either way. Strings in answers are cut so that an answer always fits.
constexpr std::size_t kMaxMessage = 64 * 1024;
constexpr std::size_t kMaxAnswerString = 2048;
constexpr std::size_t kMaxNotes = 16;
constexpr std::size_t kMaxPath = 32 * 1024;

// The request carries ReadOptions as bytes: both ends are the same binary.
static_assert(std::is_trivially_copyable_v<ReadOptions>, "ReadOptions must be sent as bytes");

// How read_image() ended, so the worker sees the exception it would have seen in-process.
enum class Outcome : std::uint8_t { pixels, read_error, out_of_memory, other_error };

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

struct MessageTooShort : std::exception {};

// A message as a flat sequence of fixed-size values and length-prefixed strings.
class MessageWriter {
public:
    template <class T>
    void put(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        const std::size_t at = bytes_.size();
        bytes_.resize(at + sizeof v);
        std::memcpy(bytes_.data() + at, &v, sizeof v);
    }
    void put_string(const std::string& s, std::size_t max) {
        const std::uint32_t n = std::uint32_t(std::min(s.size(), max));
        put(n);
        put_bytes(s.substr(0, n));
    }
    void put_bytes(const std::string& s) { bytes_.insert(bytes_.end(), s.begin(), s.end()); }
    const std::vector<char>& bytes() const { return bytes_; }

private:
    std::vector<char> bytes_;
};

class MessageReader {
public:
    MessageReader(const char* data, std::size_t size) : p_(data), end_(data + size) {}
    template <class T>
    T get() {
        T v;
        take(&v, sizeof v);
        return v;
    }
    std::string get_string() {
        const auto n = get<std::uint32_t>();
        if (std::size_t(end_ - p_) < n) throw MessageTooShort();
        std::string s(p_, n);
        p_ += n;
        return s;
    }
    std::string rest() {
        std::string s(p_, end_);
        p_ = end_;
        return s;
    }

private:
    void take(void* out, std::size_t n) {
        if (std::size_t(end_ - p_) < n) throw MessageTooShort();
        std::memcpy(out, p_, n);
        p_ += n;
    }
    const char* p_;
    const char* end_;
};

bool send_message(int socket, const std::vector<char>& bytes, int fd_to_pass) {
    iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    if (fd_to_pass >= 0) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd_to_pass, sizeof(int));
    }
    for (;;) {
        if (::sendmsg(socket, &msg, MSG_NOSIGNAL) >= 0) return true;
        if (errno != EINTR) return false;
    }
}

// Receives one message and the descriptor passed with it (-1 if none). Returns the message
// size, 0 when the other end has closed, -1 on error.
ssize_t receive_message(int socket, std::vector<char>& buffer, int& fd_passed) {
    fd_passed = -1;
    buffer.resize(kMaxMessage);
    iovec iov{buffer.data(), buffer.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n;
    do n = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); n >= 0 && c; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
            std::memcpy(&fd_passed, CMSG_DATA(c), sizeof(int));
    if (n > 0 && (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        if (fd_passed >= 0) ::close(fd_passed);
        fd_passed = -1;
        errno = EMSGSIZE;
        return -1;
    }
    return n;
}

std::string seconds_text(double s) {
    std::ostringstream os;
    os << s;
    return os.str();
}

std::string signal_text(int sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    return abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
}

// --- the decoder process -------------------------------------------------------------------

// IMGHIST_TEST_DECODER_FAULT=abort|segv|exit|hang:SUBSTRING makes the decoder process fail
// that way on files whose name holds SUBSTRING, so the tests can crash it on purpose.
void apply_test_fault(const std::string& path) {
    const char* spec = std::getenv("IMGHIST_TEST_DECODER_FAULT");
    if (!spec) return;
    const std::string text(spec);
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos || colon + 1 == text.size()) return;
    if (path.find(text.substr(colon + 1)) == std::string::npos) return;
    const std::string kind = text.substr(0, colon);
    if (kind == "abort") std::abort();
    if (kind == "segv") ::raise(SIGSEGV);
    if (kind == "exit") ::_exit(3);
    if (kind == "hang")
        for (;;) ::pause();
}

// The pixels' memory in the decoder: a memfd mapped shared, so the reader decodes straight into
// the pages the worker will map (no copy). Holds the descriptor until it is sealed and sent.
class MemfdPixels {
public:
    MemfdPixels() = default;
    MemfdPixels(const MemfdPixels&) = delete;
    MemfdPixels& operator=(const MemfdPixels&) = delete;
    ~MemfdPixels() {
        if (fd_ >= 0) ::close(fd_);
    }

    decltype(LoadedImage::pixels) allocate(std::size_t bytes) {
        if (fd_ >= 0) ::close(fd_);  // one result per file: a second call replaces the first
        fd_ = ::memfd_create("imghist-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd_ < 0 || ::ftruncate(fd_, off_t(bytes)) != 0) throw std::bad_alloc();
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        bytes_ = bytes;
        return decltype(LoadedImage::pixels)(static_cast<std::byte*>(p), PixelRelease{bytes});
    }

    // Unmaps the image's pixels (a writable mapping forbids the write seal), seals the memfd
    // against any change, and gives up the descriptor: the worker can rely on size and content.
    int seal(LoadedImage& image) {
        const bool whole = image.pixels && image.view.data == image.pixels.get() &&
                           image.view.stride_bytes == image.view.row_bytes() &&
                           std::uint64_t(image.view.row_bytes()) * image.view.height == bytes_;
        if (!whole) throw std::logic_error("the reader's view is not its whole pixel buffer");
        image.pixels.reset();
        if (::fcntl(fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
            throw std::runtime_error(std::string("cannot seal the pixels: ") + std::strerror(errno));
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_ = -1;
    std::size_t bytes_ = 0;
};

// Reads one requested file and sends the answer; the descriptor goes with it.
void answer(int socket, const std::string& path, const ReadOptions& options) {
    Outcome outcome = Outcome::pixels;
    std::string message;
    MemfdPixels memory;
    LoadedImage image;
    int fd = -1;
    try {
        apply_test_fault(path);
        image = read_image(path, options, [&](std::size_t bytes) { return memory.allocate(bytes); });
        fd = memory.seal(image);
    } catch (const ReadError& e) {
        outcome = Outcome::read_error;
        message = e.what();
    } catch (const std::bad_alloc&) {
        outcome = Outcome::out_of_memory;
    } catch (const std::exception& e) {
        outcome = Outcome::other_error;
        message = e.what();
    }
    MessageWriter w;
    w.put(kProtocol);
    w.put(outcome);
    if (outcome == Outcome::pixels) {
        w.put(std::uint32_t(image.view.format));
        w.put(image.view.width);
        w.put(image.view.height);
        w.put_string(image.source_type, kMaxAnswerString);
        const std::uint32_t notes = std::uint32_t(std::min(image.notes.size(), kMaxNotes));
        w.put(notes);
        for (std::uint32_t i = 0; i < notes; ++i) w.put_string(image.notes[i], kMaxAnswerString);
    } else {
        w.put_string(message, kMaxAnswerString);
    }
    const bool sent = send_message(socket, w.bytes(), fd);
    if (fd >= 0) ::close(fd);
    if (!sent) ::_exit(1);
}

// A decoder process: answers file after file until imghist closes the socket.
int serve_files(int socket) {
    std::vector<char> buffer;
    for (;;) {
        int fd = -1;
        const ssize_t n = receive_message(socket, buffer, fd);
        if (fd >= 0) ::close(fd);
        if (n <= 0) return n == 0 ? 0 : 1;
        MessageReader r(buffer.data(), std::size_t(n));
        try {
            if (r.get<std::uint32_t>() != kProtocol) return 1;
            const auto options = r.get<ReadOptions>();
            answer(socket, r.rest(), options);
        } catch (const MessageTooShort&) {
            return 1;
        }
    }
}

}  // namespace

bool is_decoder_process(int argc, char** argv) {
    return argc >= 2 && std::strcmp(argv[1], kDecoderArgument) == 0;
}

// Waits for a decoder process that has closed its socket (it is exiting), forcing it after a
// second. Returns its wait status, or -errno.
std::int32_t reap_decoder(pid_t pid) {
    int status = 0;
    pid_t got = 0;
    for (int i = 0; i < 100 && (got = ::waitpid(pid, &status, WNOHANG)) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (got == 0) {
        ::kill(pid, SIGKILL);
        while ((got = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
        }
    }
    return got == pid ? std::int32_t(status) : -errno;
}

// argv: imghist --internal-decoder-process PARENT_PID; the socket to imghist is fd 3. It
// forks decoder processes (launch: a decoder's socket comes with the request; the answer is
// its pid) and waits for them (reap: the answer is the wait status), one request at a time.
// It runs no reader: its only other threads are idle ones a library starts when it is loaded.
int run_decoder_process(int argc, char** argv) {
    // Die with imghist, and do not run on if it is already gone.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (argc != 3 || std::to_string(::getppid()) != argv[2]) return 1;
    const pid_t launcher = ::getpid();
    std::vector<char> buffer;
    for (;;) {
        int decoder_socket = -1;
        const ssize_t n = receive_message(kLauncherSocket, buffer, decoder_socket);
        if (n <= 0) return n == 0 ? 0 : 1;  // imghist closed the socket: done
        std::int32_t answer = -EPROTO;
        try {
            MessageReader r(buffer.data(), std::size_t(n));
            if (r.get<std::uint32_t>() != kProtocol) return 1;
            const auto what = r.get<LauncherRequest>();
            const auto value = r.get<std::int32_t>();
            if (what == LauncherRequest::reap) answer = reap_decoder(pid_t(value));
            if (what == LauncherRequest::launch && decoder_socket >= 0) {
                const pid_t pid = ::fork();
                if (pid == 0) {
                    // Die with the launcher, which dies with imghist.
                    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
                    if (::getppid() != launcher) ::_exit(1);
                    ::close(kLauncherSocket);
                    configure_reader_threads(unsigned(std::max(1, value)));
                    ::_exit(serve_files(decoder_socket));
                }
                answer = pid > 0 ? std::int32_t(pid) : -errno;
            }
        } catch (const MessageTooShort&) {
        }
        if (decoder_socket >= 0) ::close(decoder_socket);
        MessageWriter w;
        w.put(kProtocol);
        w.put(answer);
        if (!send_message(kLauncherSocket, w.bytes(), -1)) return 1;
    }
}

// --- imghist's side ------------------------------------------------------------------------

DecoderLauncher::DecoderLauncher(DecoderSettings settings) : settings_(settings) {
    if (settings_.in_process) return;
    try {
        start_launcher();
    } catch (const ReadError&) {
        // Reported for every file by launch(), which tries again.
    }
}

DecoderLauncher::~DecoderLauncher() { stop_launcher(); }

void DecoderLauncher::start_launcher() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
        throw ReadError("cannot start the decoder launcher: " + errno_text("socketpair"));
    // dup2 onto itself would keep close-on-exec: make sure the child's end is not fd 3.
    if (fds[1] == kLauncherSocket) {
        const int moved = ::fcntl(fds[1], F_DUPFD_CLOEXEC, kLauncherSocket + 1);
        ::close(fds[1]);
        fds[1] = moved;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    // Anything a decoder prints goes to stderr: stdout carries the report.
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], kLauncherSocket);
    posix_spawn_file_actions_addclosefrom_np(&actions, kLauncherSocket + 1);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::string program = "/proc/self/exe", argument = kDecoderArgument, parent = std::to_string(::getpid());
    char* argv[] = {program.data(), argument.data(), parent.data(), nullptr};
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        throw ReadError("cannot start the decoder launcher: " + std::string(std::strerror(rc)) +
                        " (--decode-in-process reads without it)");
    }
    pid_ = pid;
    socket_ = fds[0];
}

void DecoderLauncher::stop_launcher() {
    if (socket_ >= 0) ::close(socket_);
    socket_ = -1;
    // It may still be starting; its decoders die with it.
    if (pid_ > 0) ::kill(pid_, SIGKILL);
    if (pid_ > 0)
        while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
        }
    pid_ = -1;
}

std::optional<std::int32_t> DecoderLauncher::ask(LauncherRequest what, std::int32_t value, int fd_to_pass) {
    MessageWriter w;
    w.put(kProtocol);
    w.put(what);
    w.put(value);
    if (socket_ < 0 || !send_message(socket_, w.bytes(), fd_to_pass)) return std::nullopt;
    std::vector<char> buffer;
    int unused = -1;
    const ssize_t n = receive_message(socket_, buffer, unused);
    if (unused >= 0) ::close(unused);
    if (n <= 0) return std::nullopt;
    try {
        MessageReader r(buffer.data(), std::size_t(n));
        if (r.get<std::uint32_t>() == kProtocol) return r.get<std::int32_t>();
    } catch (const MessageTooShort&) {
    }
    return std::nullopt;
}

DecoderLauncher::Decoder DecoderLauncher::launch() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
        throw ReadError("cannot start a decoder process: " + errno_text("socketpair"));
    struct CloseFd {
        int fd;
        ~CloseFd() { ::close(fd); }
    } decoder_end{fds[1]};
    std::optional<std::int32_t> pid;
    try {
        std::lock_guard lock(mutex_);
        const auto threads = std::int32_t(std::min(settings_.reader_threads, 1u << 16));
        pid = ask(LauncherRequest::launch, threads, fds[1]);
        if (!pid) {
            // The launcher is gone (it could not start, or was killed): one fresh try.
            stop_launcher();
            start_launcher();
            pid = ask(LauncherRequest::launch, threads, fds[1]);
        }
    } catch (...) {
        ::close(fds[0]);
        throw;
    }
    if (!pid || *pid <= 0) {
        ::close(fds[0]);
        errno = pid ? -*pid : EPIPE;
        throw ReadError("cannot start a decoder process: " + errno_text("the decoder launcher"));
    }
    return {pid_t(*pid), fds[0]};
}

std::int32_t DecoderLauncher::reap(pid_t decoder) {
    std::lock_guard lock(mutex_);
    return ask(LauncherRequest::reap, std::int32_t(decoder), -1).value_or(-EPIPE);
}

void FileDecoder::start() {
    const DecoderLauncher::Decoder d = launcher_.launch();
    pid_ = d.pid;
    socket_ = d.socket;
}

std::string FileDecoder::end_process() {
    if (socket_ >= 0) ::close(socket_);
    socket_ = -1;
    if (pid_ < 0) return {};
    const std::int32_t status = launcher_.reap(pid_);
    pid_ = -1;
    if (status < 0) return "the decoder process was lost";
    if (WIFSIGNALED(status)) return "the decoder crashed (" + signal_text(WTERMSIG(status)) + ")";
    return "the decoder exited with status " + std::to_string(WEXITSTATUS(status));
}

void FileDecoder::stop() {
    if (pid_ >= 0) ::kill(pid_, SIGKILL);
    (void)end_process();
}

bool FileDecoder::send_request(const std::string& path, const ReadOptions& options) {
    MessageWriter w;
    w.put(kProtocol);
    w.put(options);
    w.put_bytes(path);  // the rest of the message
    return send_message(socket_, w.bytes(), -1);
}

LoadedImage FileDecoder::read(const std::string& path, const ReadOptions& options) {
    if (launcher_.settings().in_process) return read_image(path, options);
    if (path.size() > kMaxPath) throw ReadError("file name too long");

    if (socket_ < 0) start();
    if (!send_request(path, options)) {
        // The process died between files (killed from outside): one more, fresh.
        (void)end_process();
        start();
        if (!send_request(path, options))
            throw ReadError("cannot reach the decoder process: " + errno_text("send"));
    }

    const double timeout = launcher_.settings().timeout_seconds;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    for (;;) {
        int wait_ms = -1;
        if (timeout > 0) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            wait_ms = int(std::clamp<long long>(left.count() + 1, 0, 1 << 30));
        }
        pollfd p{socket_, POLLIN, 0};
        const int ready = ::poll(&p, 1, wait_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0 && std::chrono::steady_clock::now() >= deadline) {
            stop();
            throw ReadError("took longer than " + seconds_text(timeout) +
                            " s to read (--decode-timeout); the decoder was stopped");
        }
        if (ready > 0) break;
    }

    std::vector<char> buffer;
    int fd = -1;
    const ssize_t n = receive_message(socket_, buffer, fd);
    if (n <= 0) {
        const std::string how = end_process();
        throw ReadError(how + " while reading this file; the file is probably corrupt and hits a "
                              "bug in its reader (the other files are not affected)");
    }
    // From here on, anything the process sent is checked before it is used.
    struct CloseFd {
        int fd;
        ~CloseFd() {
            if (fd >= 0) ::close(fd);
        }
    } fd_guard{fd};
    const auto bad_answer = [&](const std::string& why) {
        stop();
        return ReadError("the decoder process sent a bad answer (" + why + ")");
    };
    try {
        MessageReader r(buffer.data(), std::size_t(n));
        if (r.get<std::uint32_t>() != kProtocol) throw bad_answer("protocol");
        const auto outcome = r.get<Outcome>();
        // A reader that failed may have left its process in a bad state: the next file gets
        // a fresh one.
        if (outcome != Outcome::pixels) stop();
        switch (outcome) {
            case Outcome::pixels: break;
            case Outcome::read_error: throw ReadError(r.get_string());
            case Outcome::out_of_memory: throw std::bad_alloc();
            case Outcome::other_error: throw std::runtime_error(r.get_string());
            default: throw bad_answer("outcome");
        }
        const auto format = r.get<std::uint32_t>();
        const auto width = r.get<std::uint32_t>();
        const auto height = r.get<std::uint32_t>();
        if (format > std::uint32_t(PixelFormat::rgba_f32) || width == 0 || height == 0)
            throw bad_answer("header");
        LoadedImage image;
        image.source_type = r.get_string();
        const auto notes = r.get<std::uint32_t>();
        if (notes > kMaxNotes) throw bad_answer("notes");
        for (std::uint32_t i = 0; i < notes; ++i) image.notes.push_back(r.get_string());

        const std::size_t row = std::size_t(width) * format_info(PixelFormat(format)).pixel_bytes();
        const std::size_t bytes = row * height;
        struct stat st{};
        const int seals = fd >= 0 ? ::fcntl(fd, F_GET_SEALS) : -1;
        constexpr int kNeeded = F_SEAL_SHRINK | F_SEAL_WRITE;
        if (fd < 0 || ::fstat(fd, &st) != 0 || std::uint64_t(st.st_size) < bytes || seals < 0 ||
            (seals & kNeeded) != kNeeded)
            throw bad_answer("pixels");
        void* mapped = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mapped == MAP_FAILED) throw std::bad_alloc();
        image.pixels = std::unique_ptr<std::byte[], PixelRelease>(static_cast<std::byte*>(mapped),
                                                                 PixelRelease{bytes});
        image.view = ImageView::packed(mapped, width, height, PixelFormat(format));
        return image;
    } catch (const MessageTooShort&) {
        throw bad_answer("too short");
    }
}

}  // namespace imghist::cli
