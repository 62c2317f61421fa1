// The decoder launcher and its decoder processes (decoder_process.hpp); imghist's side of them
// is file_decoder.cpp.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "decoder_process.hpp"

#include "decoder_protocol.hpp"
#include "io/oiio_readers.hpp"
#include "io/pixel_pool.hpp"

namespace imghist::cli {

using namespace protocol;

namespace {

// Address space a decoder grows into for a file takes up: 64 GiB at most (the memory limit's
// test hook), in untouched chunks; it throws std::bad_alloc where the limit stops it.
void map_without_end() {
    constexpr std::size_t kChunk = std::size_t(64) << 20, kChunks = 1024;
    std::vector<void*> chunks;
    for (std::size_t i = 0; i < kChunks; ++i) {
        void* p = std::malloc(kChunk);
        if (!p) break;
        chunks.push_back(p);
    }
    const bool stopped = chunks.size() < kChunks;
    for (void* p : chunks) std::free(p);
    if (stopped) throw std::bad_alloc();
}

// IMGHIST_TEST_DECODER_FAULT=abort|segv|exit|hang|alloc:SUBSTRING makes the decoder process fail
// that way on files whose name holds SUBSTRING, so the tests can crash it on purpose ("alloc"
// asks for 64 GiB, as a reader that allocates without end would).
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
    if (kind == "alloc") map_without_end();
}

// Each file may grow the decoder's address space (RLIMIT_AS) by 1 GiB plus 32 bytes a pixel that
// --max-pixels allows (a float RGBA image and one working copy of it), over what the process
// holds when the file starts: a file that makes its reader allocate without end fails as out of
// memory instead of taking the machine's. --max-pixels 0 lifts the limit too.
void limit_memory_for_file(const io::ReadOptions& options) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) != 0) return;
    limit.rlim_cur = limit.rlim_max;
    if (options.max_pixels > 0) {
        constexpr std::uint64_t kSlack = std::uint64_t(1) << 30, kBytesPerPixel = 32, kMost = std::uint64_t(1) << 60;
        std::uint64_t pages = 0;
        std::ifstream("/proc/self/statm") >> pages;  // the address space in use, in pages
        const std::uint64_t held = pages * std::uint64_t(::sysconf(_SC_PAGESIZE));
        const std::uint64_t budget = held + kSlack + std::min(options.max_pixels, kMost / kBytesPerPixel) * kBytesPerPixel;
        if (limit.rlim_max == RLIM_INFINITY || budget < limit.rlim_max) limit.rlim_cur = rlim_t(budget);
    }
    (void)::setrlimit(RLIMIT_AS, &limit);
}

// The decoder's pixel buffers, one per slot imghist names in its requests: memfds mapped
// shared, which the reader decodes straight into and imghist maps read-only (no copy). A
// slot's buffer is kept for the next file asked in that slot, so files do not pay for fresh
// pages. imghist asks for a slot only while it holds no image in it, so a buffer is never
// written while it is counted. Sizes are sealed: imghist's mapping can never lose its pages.
class PixelSlots final : public io::PixelLender {
public:
    PixelSlots() = default;
    PixelSlots(const PixelSlots&) = delete;
    PixelSlots& operator=(const PixelSlots&) = delete;
    ~PixelSlots() {
        for (Slot& s : slots_) drop(s);
    }

    // Chooses the slot that the next allocate() fills.
    void use(std::uint32_t slot) {
        if (slot >= slots_.size()) slots_.resize(slot + 1);
        slot_ = &slots_[slot];
        fresh_ = false;
    }

    // The slot's buffer when it is large enough, else a new memfd of `bytes`.
    decltype(io::LoadedImage::pixels) allocate(std::size_t bytes) {
        Slot& s = *slot_;
        if (s.bytes < bytes) {
            drop(s);
            s.fd = ::memfd_create("imghist-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
            if (s.fd < 0 || ::ftruncate(s.fd, off_t(bytes)) != 0 ||
                ::fcntl(s.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
                throw std::bad_alloc();
            void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
            if (p == MAP_FAILED) throw std::bad_alloc();
            s.map = static_cast<std::byte*>(p);
            s.bytes = bytes;
            fresh_ = true;
        }
        return decltype(io::LoadedImage::pixels)(s.map, io::PixelRelease{0, this});
    }
    void take_back(std::byte*) noexcept override {}  // the slot keeps its buffer

    // The descriptor the answer carries: the slot's memfd when it is new, else -1 (imghist
    // has it mapped). Throws unless the image is packed at the start of the slot's buffer.
    int answer_fd(const io::LoadedImage& image) const {
        const Slot& s = *slot_;
        const bool packed = image.pixels && image.view.data == s.map &&
                            image.view.stride_bytes == image.view.row_bytes() &&
                            std::uint64_t(image.view.row_bytes()) * image.view.height <= s.bytes;
        if (!packed) throw std::logic_error("the reader's view is not its pixel buffer");
        return fresh_ ? s.fd : -1;
    }

    // After the answer: a buffer too large to keep is given up, as imghist does.
    void answered() {
        if (slot_->bytes > io::kReusedPixelBytes) drop(*slot_);
    }

private:
    struct Slot {
        int fd = -1;
        std::byte* map = nullptr;
        std::size_t bytes = 0;
    };
    static void drop(Slot& s) {
        if (s.map) ::munmap(s.map, s.bytes);
        if (s.fd >= 0) ::close(s.fd);
        s = {};
    }
    std::vector<Slot> slots_;
    Slot* slot_ = nullptr;
    bool fresh_ = false;
};

// OpenImageIO 2.4 decodes every scanline image through a buffer of its own of up to 64 MiB
// (ImageInput::read_scanlines), allocated and freed per file. glibc maps a block that large
// afresh each time (it is above the largest mmap threshold glibc allows), so every file paid a
// page fault and a zeroed page per 4 KiB it touched, 0.7 ms per 1-MP photo. A decoder is
// single-threaded: its heap serves such blocks and keeps them, up to 256 MiB held free.
void keep_heap_between_files() {
    ::mallopt(M_MMAP_MAX, 0);
    ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

// Reads one requested file into `slot` and sends the answer; a new buffer's descriptor goes
// with it.
void answer(int socket, PixelSlots& slots, std::uint32_t slot, const std::string& path,
            const io::ReadOptions& options) {
    Outcome outcome = Outcome::pixels;
    std::string message;
    io::LoadedImage image;
    int fd = -1;
    try {
        limit_memory_for_file(options);
        apply_test_fault(path);
        slots.use(slot);
        image = io::read_image(path, options, [&](std::size_t bytes) { return slots.allocate(bytes); });
        fd = slots.answer_fd(image);
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
        w.put(std::uint8_t(image.sensor.has_value()));
        if (image.sensor) w.put(*image.sensor);
    } else {
        w.put_string(message, kMaxAnswerString);
    }
    if (!send_message(socket, w.bytes(), fd)) ::_exit(1);
    slots.answered();
}

// A decoder process: answers file after file until imghist closes the socket.
int serve_files(int socket) {
    std::vector<char> buffer;
    PixelSlots slots;
    for (;;) {
        int fd = -1;
        const ssize_t n = receive_message(socket, buffer, fd);
        if (fd >= 0) ::close(fd);
        if (n <= 0) return n == 0 ? 0 : 1;
        MessageReader r(buffer.data(), std::size_t(n));
        try {
            if (r.get<std::uint32_t>() != kProtocol) return 1;
            const auto options = r.get<io::ReadOptions>();
            const auto slot = r.get<std::uint32_t>();
            if (slot >= kMaxSlots) return 1;
            answer(socket, slots, slot, r.rest(), options);
        } catch (const MessageTooShort&) {
            return 1;
        }
    }
}

// Before any decoder is forked, so that every decoder has them; a failure to load them is
// each file's to report, from the decoder that tries again.
void load_oiio_readers() {
    try {
        (void)io::reading::oiio();
    } catch (const io::ReadError&) {
    }
}

}  // namespace

bool is_decoder_process(int argc, char** argv) {
    return argc >= 2 && std::strcmp(argv[1], kDecoderArgument) == 0;
}

// Waits for a decoder process that has closed its socket (it is exiting), forcing it after a
// second. Returns its wait status, or -errno. A decoder replaced after a failed file is gone
// within a fraction of a millisecond (killed, or exiting): the waits start at 50 us and double
// up to 10 ms, so a failed file does not cost a 10 ms sleep.
std::int32_t reap_decoder(pid_t pid) {
    int status = 0;
    pid_t got = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    std::chrono::microseconds wait(50);
    while ((got = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(wait);
        wait = std::min<std::chrono::microseconds>(wait * 2, std::chrono::milliseconds(10));
    }
    if (got == 0) {
        ::kill(pid, SIGKILL);
        while ((got = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
        }
    }
    return got == pid ? std::int32_t(status) : -errno;
}

// argv: imghist --internal-decoder-process PARENT_PID [load-oiio]; the socket to imghist is fd 3. It
// forks decoder processes (launch: a decoder's socket comes with the request; the answer is
// its pid) and waits for them (reap: the answer is the wait status), one request at a time.
// It runs no reader: its only other threads are idle ones a library starts when it is loaded.
int run_decoder_process(int argc, char** argv) {
    // Die with imghist, and do not run on if it is already gone.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (argc < 3 || argc > 4 || std::to_string(::getppid()) != argv[2]) return 1;
    if (argc == 4 && std::strcmp(argv[3], kLoadOiioArgument) != 0) return 1;
    // Ctrl-C reaches every process of the terminal's group: imghist ends the run and closes its
    // report, and its decoders die with it. Killed first, they would fail the files in hand.
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGTERM, SIG_IGN);
    const pid_t launcher = ::getpid();
    if (argc == 4) load_oiio_readers();
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
                    keep_heap_between_files();
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
