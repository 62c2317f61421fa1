// The decoder launcher and its decoder processes (decoder_process.hpp); imghist's side of them
// is file_decoder.cpp.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "decoder_process.hpp"
#include "decoder_protocol.hpp"

namespace imghist::cli {

using namespace protocol;

namespace {

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

    decltype(io::LoadedImage::pixels) allocate(std::size_t bytes) {
        if (fd_ >= 0) ::close(fd_);  // one result per file: a second call replaces the first
        fd_ = ::memfd_create("imghist-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd_ < 0 || ::ftruncate(fd_, off_t(bytes)) != 0) throw std::bad_alloc();
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        bytes_ = bytes;
        return decltype(io::LoadedImage::pixels)(static_cast<std::byte*>(p), io::PixelRelease{bytes});
    }

    // Unmaps the image's pixels (a writable mapping forbids the write seal), seals the memfd
    // against any change, and gives up the descriptor: the worker can rely on size and content.
    int seal(io::LoadedImage& image) {
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
void answer(int socket, const std::string& path, const io::ReadOptions& options) {
    Outcome outcome = Outcome::pixels;
    std::string message;
    MemfdPixels memory;
    io::LoadedImage image;
    int fd = -1;
    try {
        apply_test_fault(path);
        image = io::read_image(path, options, [&](std::size_t bytes) { return memory.allocate(bytes); });
        fd = memory.seal(image);
    } catch (const io::ReadError& e) {
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
            const auto options = r.get<io::ReadOptions>();
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
                    io::configure_reader_threads(unsigned(std::max(1, value)));
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

}  // namespace imghist::cli
