// Files that options name rather than images: --edges @FILE, --files-from FILE (and the list of
// paths on stdin), the reports of imghist merge. They are checked as inputs are, and read with
// bounds, so a device, a FIFO without a writer or a file without newlines is a clear error
// instead of a hang or an allocation that grows until it fails.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace imghist::cli {

// The file cannot be opened, is not a kind the option reads, or holds more than it may: the
// message says which, without the file's name (the caller names the option and the file).
struct OptionFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The file, or a line of it, is longer than the reader's bound.
struct OptionFileTooLarge : OptionFileError {
    using OptionFileError::OptionFileError;
};

// What an option may name besides a regular file: a list of paths may also come through a pipe
// (a FIFO, `--files-from <(find ...)`), which is read as it arrives.
enum class OptionFileKinds { regular, regular_or_pipe };

// "256 MiB", "4 KiB" or "100 bytes": a bound in messages.
std::string size_text(std::uint64_t bytes);

class OptionFile {
public:
    // Opens `path`; a directory, a device, a socket (and a FIFO unless `kinds` allows pipes) is
    // refused before anything is read, and opening never waits for a FIFO's writer when FIFOs
    // are refused. Throws OptionFileError.
    OptionFile(const std::string& path, OptionFileKinds kinds);
    // Standard input, whatever it is (the caller chose it), read with the same bounds.
    static OptionFile standard_input();
    ~OptionFile();
    OptionFile(OptionFile&& other) noexcept;
    OptionFile(const OptionFile&) = delete;
    OptionFile& operator=(const OptionFile&) = delete;
    OptionFile& operator=(OptionFile&&) = delete;

    // The next line, without its '\n', into `line`; false at the end of the file. Throws
    // OptionFileTooLarge when a line is longer than `max_bytes` (having read only that much).
    bool next_line(std::string& line, std::size_t max_bytes);
    // Everything not read yet; throws OptionFileTooLarge when that is more than `max_bytes`.
    std::string rest(std::size_t max_bytes);
    // The lines next_line has returned so far.
    std::uint64_t lines_read() const { return lines_; }

private:
    explicit OptionFile(int fd, bool owned) : fd_(fd), owned_(owned) {}
    // Reads more into buffer_; false at the end of the file.
    bool fill();

    int fd_ = -1;
    bool owned_ = true;
    bool end_ = false;
    std::string buffer_;
    std::size_t start_ = 0;    // buffer_ before it was returned already
    std::size_t scanned_ = 0;  // buffer_ before it holds no '\n' after start_
    std::uint64_t lines_ = 0;
    std::optional<std::uint64_t> on_disk_;  // a regular file's size
    std::uint64_t consumed_ = 0;            // bytes read from fd_
};

}  // namespace imghist::cli
