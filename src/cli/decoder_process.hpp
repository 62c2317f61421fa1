// Decoding files in separate decoder processes, so that a reader that crashes, corrupts memory
// or hangs costs one file and never the run (OpenImageIO 2.4 has such readers).
//
// One launcher process (this binary started again with an internal argument; it loads
// OpenImageIO's readers first where files will need them, but never uses them) forks a decoder
// process for each decode thread (io::histogram_files), and a fresh one after each failure: a
// fork costs about a millisecond, and the decoders share the readers the launcher loaded. The launcher also waits for its decoders, so imghist learns
// how its decoder died. A decoder gets a file name and a buffer slot over a socket, calls
// io::read_image() into that slot's memfd, and answers with the header (and the memfd, the
// first time a slot gets one), which imghist maps read-only without copying and keeps
// mapped for the next file in that slot.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "imghist/io.hpp"
#include "io/pixel_pool.hpp"

namespace imghist::cli {

struct DecoderSettings {
    bool in_process = false;       // io::read_image() in the calling thread (debugging, profiling)
    double timeout_seconds = 120;  // per file, decoder processes only; 0 = no limit
    unsigned reader_threads = 1;   // the decoder process's io::configure_reader_threads()
    // The launcher loads OpenImageIO's readers before it forks a decoder, so that the decoders
    // share them (else each decoder that meets a file needing them loads them itself).
    bool load_oiio_first = false;
};

// What imghist asks its launcher: fork a decoder, or wait for one.
enum class LauncherRequest : std::uint8_t { launch, reap };

// Starts decoder processes for the decode threads; thread-safe. Made once per run, before the
// engines, so that the launcher starts while they do.
class DecoderLauncher {
public:
    explicit DecoderLauncher(DecoderSettings settings);
    ~DecoderLauncher();
    DecoderLauncher(const DecoderLauncher&) = delete;
    DecoderLauncher& operator=(const DecoderLauncher&) = delete;

    const DecoderSettings& settings() const { return settings_; }
    struct Decoder {
        pid_t pid;
        int socket;
    };
    Decoder launch();           // throws io::ReadError
    std::int32_t reap(pid_t);   // waits for a decoder that is ending: its wait status, or -errno

private:
    void start_launcher();
    std::optional<std::int32_t> ask(LauncherRequest what, std::int32_t value, int fd_to_pass);
    void stop_launcher();

    DecoderSettings settings_;
    std::mutex mutex_;
    pid_t pid_ = -1;
    int socket_ = -1;
};

// One decode thread's reader. read() is not thread-safe: one thread reads; the images it returns may
// be destroyed on any thread, and must be before it is. The decoder process is started on the
// first read, started again after it fails, and ended with this object. The pixels of the
// images are buffers kept from file to file: a mapping of the decoder's memfd for each image
// held at once (in-process, heap buffers of an io::PixelPool).
class FileDecoder final : public io::PixelLender {
public:
    explicit FileDecoder(DecoderLauncher& launcher) : launcher_(launcher) {}
    ~FileDecoder();
    FileDecoder(const FileDecoder&) = delete;
    FileDecoder& operator=(const FileDecoder&) = delete;

    // As io::read_image(); a decoder process that dies or runs past the time limit is a io::ReadError.
    io::LoadedImage read(const std::string& path, const io::ReadOptions& options);
    void take_back(std::byte* pixels) noexcept override;

private:
    // A buffer of the decoder's, mapped here read-only.
    struct Slot {
        std::byte* map = nullptr;
        std::size_t bytes = 0;
        bool lent = false;   // an image holds it
        bool stale = false;  // its decoder has ended: unmapped when the image is done
    };
    void start();
    std::uint32_t free_slot();
    bool send_request(const std::string& path, const io::ReadOptions& options, std::uint32_t slot);
    void wait_for_answer();  // until the answer is there; past the time limit a io::ReadError
    io::LoadedImage take_answer(const char* message, std::size_t size, int fd, std::uint32_t slot);
    void map_pixels(io::LoadedImage& image, int fd, std::uint32_t slot, std::uint32_t width, std::uint32_t height,
                    PixelFormat format);
    io::ReadError bad_answer(const std::string& why);  // stops the process
    std::string end_process();  // kills the process if needed and says how it ended
    void stop();
    void forget_slots();  // the decoder's buffers are gone with it

    DecoderLauncher& launcher_;
    pid_t pid_ = -1;
    int socket_ = -1;
    std::mutex slots_mutex_;  // take_back comes from the threads that count
    std::vector<Slot> slots_;
    io::PixelPool pool_;  // in-process reading
};

// Reads one file as the decode threads do (in a decoder process of its own unless
// settings.in_process), into pixels of its own: for a file read once, before the run (--mask).
io::LoadedImage read_one_file(const std::string& path, const io::ReadOptions& options,
                              const DecoderSettings& settings);

// The launcher's side: main() hands over to it when argv[1] is the internal argument.
bool is_decoder_process(int argc, char** argv);
int run_decoder_process(int argc, char** argv);

}  // namespace imghist::cli
