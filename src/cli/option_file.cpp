#include "option_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace imghist::cli {

namespace {

constexpr std::size_t kReadChunk = std::size_t(1) << 16;

std::string system_error(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::string kind_name(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

void check_kind(const struct stat& st, OptionFileKinds kinds) {
    if (S_ISREG(st.st_mode)) return;
    if (S_ISFIFO(st.st_mode) && kinds == OptionFileKinds::regular_or_pipe) return;
    throw OptionFileError(kind_name(st.st_mode) + ", not a regular file" +
                          (kinds == OptionFileKinds::regular_or_pipe ? " or a pipe" : ""));
}

}  // namespace

std::string size_text(std::uint64_t bytes) {
    constexpr std::uint64_t kKiB = 1024, kMiB = kKiB * 1024;
    if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
    if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
    return std::to_string(bytes) + " bytes";
}

OptionFile::OptionFile(const std::string& path, OptionFileKinds kinds) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw OptionFileError(system_error("cannot open"));
    check_kind(st, kinds);  // before opening: opening a device can wait or act
    // A FIFO is refused unless pipes are allowed: O_NONBLOCK keeps open() from waiting for a
    // writer if one replaced the file since stat().
    const bool wait_for_writer = kinds == OptionFileKinds::regular_or_pipe;
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (wait_for_writer ? 0 : O_NONBLOCK));
    if (fd_ < 0) throw OptionFileError(system_error("cannot open"));
    try {
        if (::fstat(fd_, &st) != 0) throw OptionFileError(system_error("cannot open"));
        check_kind(st, kinds);  // what was opened, which may not be what stat() saw
        if (!wait_for_writer && ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK) != 0)
            throw OptionFileError(system_error("cannot open"));
    } catch (...) {
        ::close(fd_);
        throw;
    }
    if (S_ISREG(st.st_mode)) on_disk_ = std::uint64_t(st.st_size);
}

OptionFile OptionFile::standard_input() { return OptionFile(STDIN_FILENO, false); }

OptionFile::~OptionFile() {
    if (owned_ && fd_ >= 0) ::close(fd_);
}

OptionFile::OptionFile(OptionFile&& other) noexcept
    : fd_(other.fd_), owned_(other.owned_), end_(other.end_), buffer_(std::move(other.buffer_)),
      start_(other.start_), scanned_(other.scanned_), lines_(other.lines_), on_disk_(other.on_disk_),
      consumed_(other.consumed_) {
    other.fd_ = -1;
}

bool OptionFile::fill() {
    if (end_) return false;
    if (start_ > 0 && start_ >= buffer_.size() / 2) {  // drop what was returned, keep the buffer small
        buffer_.erase(0, start_);
        scanned_ -= start_;
        start_ = 0;
    }
    const std::size_t old_size = buffer_.size();
    buffer_.resize(old_size + kReadChunk);
    ssize_t n = 0;
    do n = ::read(fd_, buffer_.data() + old_size, kReadChunk);
    while (n < 0 && errno == EINTR);
    buffer_.resize(old_size + std::size_t(n > 0 ? n : 0));
    if (n < 0) throw OptionFileError(system_error("cannot read"));
    consumed_ += std::uint64_t(n);
    end_ = n == 0;
    return !end_;
}

bool OptionFile::next_line(std::string& line, std::size_t max_bytes) {
    for (;;) {
        const std::size_t newline = buffer_.find('\n', scanned_);
        const std::size_t end = newline == std::string::npos ? buffer_.size() : newline;
        if (end - start_ > max_bytes)
            throw OptionFileTooLarge("line " + std::to_string(lines_ + 1) + " is longer than " + size_text(max_bytes));
        scanned_ = end;
        if (newline == std::string::npos && fill()) continue;
        if (newline == std::string::npos && start_ == buffer_.size()) return false;
        const std::size_t next = newline == std::string::npos ? end : end + 1;
        if (start_ == 0 && next == buffer_.size()) {  // the line is all there is: no copy of a long one
            line = std::move(buffer_);
            line.resize(end);
            buffer_.clear();
            start_ = scanned_ = 0;
        } else {
            line.assign(buffer_, start_, end - start_);
            start_ = scanned_ = next;
        }
        ++lines_;
        return true;
    }
}

std::string OptionFile::rest(std::size_t max_bytes) {
    const auto too_much = [&] { return OptionFileTooLarge("holds more than " + size_text(max_bytes)); };
    // A regular file's size is known: a file too large is refused without reading it.
    if (on_disk_ && *on_disk_ > consumed_ && buffer_.size() - start_ + (*on_disk_ - consumed_) > max_bytes) throw too_much();
    while (buffer_.size() - start_ <= max_bytes && fill()) {
    }
    if (buffer_.size() - start_ > max_bytes) throw too_much();
    std::string text = buffer_.substr(start_);
    start_ = scanned_ = buffer_.size();
    return text;
}

}  // namespace imghist::cli
