// The messages between imghist, its decoder launcher and its decoder processes: one datagram
// each on a SOCK_SEQPACKET socket, at most one descriptor passed with it (SCM_RIGHTS).
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "imghist/io.hpp"

namespace imghist::cli::protocol {

constexpr std::uint32_t kProtocol = 0x69680003;  // "ih", version 3
// An answer's camera raw levels go as bytes (both ends are the same binary).
static_assert(std::is_trivially_copyable_v<io::SensorChannels>, "io::SensorChannels must be sent as bytes");
// One message, either way.
constexpr std::size_t kMaxMessage = 64 * 1024;

constexpr const char* kDecoderArgument = "--internal-decoder-process";
// The launcher's optional third argument: load OpenImageIO's readers before forking decoders.
constexpr const char* kLoadOiioArgument = "load-oiio";
constexpr int kLauncherSocket = 3;  // the launcher's end of its socket to imghist
// Strings in answers are cut so that an answer always fits one message (kMaxMessage).
constexpr std::size_t kMaxAnswerString = 2048;
constexpr std::size_t kMaxNotes = 16;
constexpr std::size_t kMaxPath = 32 * 1024;
// A request names the pixel buffer (slot) of the decoder to decode into: one per image the
// pipeline may hold at once from one decoder.
constexpr std::uint32_t kMaxSlots = 256;

// The request carries io::ReadOptions as bytes: both ends are the same binary.
static_assert(std::is_trivially_copyable_v<io::ReadOptions>, "io::ReadOptions must be sent as bytes");

// How io::read_image() ended, so imghist sees the exception it would have seen in-process.
enum class Outcome : std::uint8_t { pixels, read_error, out_of_memory, other_error };

inline std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

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
    void put_bytes(const std::string& s) {
        const std::size_t at = bytes_.size();
        bytes_.resize(at + s.size());
        std::copy(s.begin(), s.end(), bytes_.begin() + std::ptrdiff_t(at));
    }
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

// Sends one message and the descriptor `fd_to_pass` (none if negative); false on error.
bool send_message(int socket, const std::vector<char>& bytes, int fd_to_pass);
// Receives one message and the descriptor passed with it (-1 if none). Returns the message
// size, 0 when the other end has closed, -1 on error.
ssize_t receive_message(int socket, std::vector<char>& buffer, int& fd_passed);

}  // namespace imghist::cli::protocol
