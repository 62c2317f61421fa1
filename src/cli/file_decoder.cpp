// imghist's side of its decoder processes: the launcher it starts and each decode thread's decoder.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "decoder_process.hpp"
#include "decoder_protocol.hpp"
#include "io/ev_from_white.hpp"
#include "interrupt.hpp"

extern char** environ;

namespace imghist::cli {

using namespace protocol;

namespace {

// A camera raw file's 2 x 2 colours: R, G, B, G in some order, and the end of the string.
// What the reader could have sent: a Bayer pattern, levels the reader checked, an EV axis the
// options allow (the bins it makes are allocated here).
bool valid_sensor(const io::SensorChannels& sensor) {
    std::string colours(sensor.pattern, 4);
    std::sort(colours.begin(), colours.end());
    bool valid = colours == "BGGR" && sensor.pattern[4] == '\0' && sensor.ev_per_stop <= io::kMaxEvFromWhitePerStop;
    for (std::uint32_t black : sensor.black) valid = valid && black < sensor.white;
    return valid;
}

std::string seconds_text(double s) {
    std::ostringstream os;
    os << s;
    return os.str();
}


}  // namespace

DecoderLauncher::DecoderLauncher(DecoderSettings settings) : settings_(settings) {
    if (settings_.in_process) return;
    try {
        start_launcher();
    } catch (const io::ReadError&) {
        // Reported for every file by launch(), which tries again.
    }
}

DecoderLauncher::~DecoderLauncher() { stop_launcher(); }

void DecoderLauncher::start_launcher() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
        throw io::ReadError("cannot start the decoder launcher: " + errno_text("socketpair"));
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
    std::string readers = settings_.load_oiio_first ? kLoadOiioArgument : "";
    char* argv[] = {program.data(), argument.data(), parent.data(), readers.empty() ? nullptr : readers.data(), nullptr};
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        throw io::ReadError("cannot start the decoder launcher: " + std::string(std::strerror(rc)) +
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
        throw io::ReadError("cannot start a decoder process: " + errno_text("socketpair"));
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
        throw io::ReadError("cannot start a decoder process: " + errno_text("the decoder launcher"));
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
    forget_slots();
    if (pid_ < 0) return {};
    const std::int32_t status = launcher_.reap(pid_);
    pid_ = -1;
    if (status < 0) return "the decoder process was lost";
    if (WIFSIGNALED(status)) return "the decoder crashed (" + signal_name(WTERMSIG(status)) + ")";
    return "the decoder exited with status " + std::to_string(WEXITSTATUS(status));
}

void FileDecoder::stop() {
    if (pid_ >= 0) ::kill(pid_, SIGKILL);
    (void)end_process();
}

FileDecoder::~FileDecoder() {
    stop();
    for (Slot& s : slots_)
        if (s.map) ::munmap(s.map, s.bytes);
}

void FileDecoder::forget_slots() {
    std::lock_guard lock(slots_mutex_);
    for (Slot& s : slots_) {
        if (s.lent) s.stale = true;
        else if (s.map) ::munmap(s.map, s.bytes);
        if (!s.lent) s = {};
    }
}

void FileDecoder::take_back(std::byte* pixels) noexcept {
    std::lock_guard lock(slots_mutex_);
    for (Slot& s : slots_)
        if (s.lent && s.map == pixels) {
            s.lent = false;
            // As the decoder does (PixelSlots::answered), a buffer too large to keep is given up.
            if (s.stale || s.bytes > io::kReusedPixelBytes) {
                ::munmap(s.map, s.bytes);
                s = {};
            }
        }
}

// A slot no image holds; a new one when every slot is held.
std::uint32_t FileDecoder::free_slot() {
    std::lock_guard lock(slots_mutex_);
    for (std::size_t i = 0; i < slots_.size(); ++i)
        if (!slots_[i].lent && !slots_[i].stale) return std::uint32_t(i);
    if (slots_.size() >= kMaxSlots) throw io::ReadError("too many images held at once from one decoder");
    slots_.emplace_back();
    return std::uint32_t(slots_.size() - 1);
}

bool FileDecoder::send_request(const std::string& path, const io::ReadOptions& options, std::uint32_t slot) {
    MessageWriter w;
    w.put(kProtocol);
    w.put(options);
    w.put(slot);
    w.put_bytes(path);  // the rest of the message
    return send_message(socket_, w.bytes(), -1);
}

io::LoadedImage FileDecoder::read(const std::string& path, const io::ReadOptions& options) {
    if (launcher_.settings().in_process)
        return io::read_image(path, options, [this](std::size_t bytes) { return pool_.allocate(bytes); });
    if (path.size() > kMaxPath) throw io::ReadError("file name too long");
    // A decoder that fails is replaced by a fresh process (below): what imghist can refuse
    // itself (a missing file, not an image) is refused here, without one.
    io::check_before_decoding(path, options);

    if (socket_ < 0) start();
    std::uint32_t slot = free_slot();
    if (!send_request(path, options, slot)) {
        // The process died between files (killed from outside): one more, fresh.
        (void)end_process();
        start();
        slot = free_slot();
        if (!send_request(path, options, slot))
            throw io::ReadError("cannot reach the decoder process: " + errno_text("send"));
    }
    wait_for_answer();
    std::vector<char> buffer;
    int fd = -1;
    const ssize_t n = receive_message(socket_, buffer, fd);
    if (n <= 0) {
        const std::string how = end_process();
        throw io::ReadError(how + " while reading this file; the file is probably corrupt and hits a "
                              "bug in its reader (the other files are not affected)");
    }
    struct CloseFd {
        int fd;
        ~CloseFd() {
            if (fd >= 0) ::close(fd);
        }
    } fd_guard{fd};
    return take_answer(buffer.data(), std::size_t(n), fd, slot);
}

void FileDecoder::wait_for_answer() {
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
            throw io::ReadError("took longer than " + seconds_text(timeout) +
                            " s to read (--decode-timeout); the decoder was stopped");
        }
        if (ready > 0) return;
    }
}

io::ReadError FileDecoder::bad_answer(const std::string& why) {
    stop();
    return io::ReadError("the decoder process sent a bad answer (" + why + ")");
}

// Anything the process sent is checked before it is used.
io::LoadedImage FileDecoder::take_answer(const char* message, std::size_t size, int fd, std::uint32_t slot) {
    try {
        MessageReader r(message, size);
        if (r.get<std::uint32_t>() != kProtocol) throw bad_answer("protocol");
        const auto outcome = r.get<Outcome>();
        // A reader that failed may have left its process in a bad state: the next file gets
        // a fresh one.
        if (outcome != Outcome::pixels) stop();
        switch (outcome) {
            case Outcome::pixels: break;
            case Outcome::read_error: throw io::ReadError(r.get_string());
            case Outcome::out_of_memory: throw std::bad_alloc();
            case Outcome::other_error: throw std::runtime_error(r.get_string());
            default: throw bad_answer("outcome");
        }
        const auto format = r.get<std::uint32_t>();
        const auto width = r.get<std::uint32_t>();
        const auto height = r.get<std::uint32_t>();
        if (format >= std::size(all_pixel_formats) || width == 0 || height == 0) throw bad_answer("header");
        io::LoadedImage image;
        image.source_type = r.get_string();
        const auto notes = r.get<std::uint32_t>();
        if (notes > kMaxNotes) throw bad_answer("notes");
        for (std::uint32_t i = 0; i < notes; ++i) image.notes.push_back(r.get_string());
        if (r.get<std::uint8_t>() != 0) {
            image.sensor = r.get<io::SensorChannels>();
            if (PixelFormat(format) != PixelFormat::rgba16 || !valid_sensor(*image.sensor))
                throw bad_answer("sensor");
        }
        map_pixels(image, fd, slot, width, height, PixelFormat(format));
        return image;
    } catch (const MessageTooShort&) {
        throw bad_answer("too short");
    }
}

// The image's pixels are the slot's buffer: the answer's memfd, mapped read-only in place of the
// slot's earlier one, or (no memfd) the buffer the slot has mapped. The lock is only for the
// slot's fields (take_back reads them): bad_answer() takes it again.
void FileDecoder::map_pixels(io::LoadedImage& image, int fd, std::uint32_t slot, std::uint32_t width,
                             std::uint32_t height, PixelFormat format) {
    const std::size_t bytes = std::size_t(width) * format_info(format).pixel_bytes() * height;
    std::byte* map = nullptr;
    if (fd >= 0) {
        // The size must be sealed, so the mapping can never lose its pages (SIGBUS).
        struct stat st{};
        const int seals = ::fcntl(fd, F_GET_SEALS);
        constexpr int kNeeded = F_SEAL_SHRINK | F_SEAL_GROW;
        if (::fstat(fd, &st) != 0 || std::uint64_t(st.st_size) < bytes || seals < 0 || (seals & kNeeded) != kNeeded)
            throw bad_answer("pixels");
        void* mapped = ::mmap(nullptr, std::size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
        if (mapped == MAP_FAILED) throw std::bad_alloc();
        map = static_cast<std::byte*>(mapped);
        std::lock_guard lock(slots_mutex_);
        Slot& s = slots_[slot];
        if (s.map) ::munmap(s.map, s.bytes);
        s = {map, std::size_t(st.st_size), true, false};
    } else {
        std::unique_lock lock(slots_mutex_);
        Slot& s = slots_[slot];
        if (s.map && s.bytes >= bytes) s.lent = true, map = s.map;
        lock.unlock();
        if (!map) throw bad_answer("pixels");
    }
    image.pixels = decltype(io::LoadedImage::pixels)(map, io::PixelRelease{0, this});
    image.view = ImageView::packed(map, width, height, format);
}

io::LoadedImage read_one_file(const std::string& path, const io::ReadOptions& options,
                              const DecoderSettings& settings) {
    DecoderLauncher launcher(settings);
    FileDecoder decoder(launcher);
    const io::LoadedImage lent = decoder.read(path, options);
    // The decoder's buffer ends with it: the image keeps a copy.
    const ImageView& from = lent.view;
    const std::size_t row_bytes = std::size_t(from.width) * format_info(from.format).pixel_bytes();
    io::LoadedImage own;
    own.source_type = lent.source_type;
    own.notes = lent.notes;
    own.sensor = lent.sensor;
    own.pixels = io::allocate_on_heap(row_bytes * from.height);
    for (std::uint32_t y = 0; y < from.height; ++y)
        std::memcpy(own.pixels.get() + row_bytes * y, from.row(y), row_bytes);
    own.view = ImageView::packed(own.pixels.get(), from.width, from.height, from.format);
    return own;
}

}  // namespace imghist::cli
