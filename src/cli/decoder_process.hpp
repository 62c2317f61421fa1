// Decoding files in separate decoder processes, so that a reader that crashes, corrupts memory
// or hangs costs one file and never the run (OpenImageIO 2.4 has such readers).
//
// Each worker thread owns one decoder process: this binary started again with an internal
// argument. It gets a file name over a socket, calls read_image(), and answers with the header
// and a sealed memfd holding the pixels, which the worker maps read-only without copying.
#pragma once

#include <sys/types.h>

#include <string>

#include "reader.hpp"

namespace imghist::cli {

struct DecoderSettings {
    bool in_process = false;       // read_image() in the calling thread (debugging, profiling)
    double timeout_seconds = 120;  // per file, decoder processes only; 0 = no limit
    unsigned reader_threads = 1;   // the decoder process's configure_reader_threads()
};

// One worker's reader. Not thread-safe: each worker thread owns one. The decoder process is
// started on the first read, started again after it dies, and ended with this object.
class FileDecoder {
public:
    explicit FileDecoder(DecoderSettings settings) : settings_(settings) {}
    ~FileDecoder() { stop(); }
    FileDecoder(const FileDecoder&) = delete;
    FileDecoder& operator=(const FileDecoder&) = delete;

    // As read_image(); a decoder process that dies or runs past the time limit is a ReadError.
    LoadedImage read(const std::string& path, const ReadOptions& options);

private:
    void start();
    bool send_request(const std::string& path, const ReadOptions& options);
    std::string end_process();  // kills the process if needed and says how it ended
    void stop();

    DecoderSettings settings_;
    pid_t pid_ = -1;
    int socket_ = -1;
};

// The decoder process's side: main() hands over to it when argv[1] is the internal argument.
bool is_decoder_process(int argc, char** argv);
int run_decoder_process(int argc, char** argv);

}  // namespace imghist::cli
