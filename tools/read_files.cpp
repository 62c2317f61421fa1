// Decode-only throughput of imghist::io over a list of files, TurboJPEG against OpenImageIO for
// the JPEGs (docs/performance.md, "Datasets of files"). One untimed pass reads every file both
// ways and compares the pixels (and brings the files into the page cache); then each round
// times read_image() over all files and the same with JPEGs forced through OpenImageIO (the
// path before TurboJPEG), the order alternating from round to round, since a shared machine's
// speed drifts. Prints files/s and MP/s per round and their medians.
// Usage: imghist_read_files [--rounds R] [--threads N] FILE...   ("-": the paths on stdin)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "io/reader_internal.hpp"

namespace io = imghist::io;

namespace {

// read_image(), or with `oiio` JPEG files through OpenImageIO (as before TurboJPEG).
io::LoadedImage read(const std::string& file, bool oiio) {
    if (!oiio) return io::read_image(file, {});
    const io::reading::FileHead head = io::reading::inspect(file);
    const std::string reader = io::reading::choose_reader(file, head.bytes, head.count, {});
    if (reader != "jpeg") return io::read_image(file, {});
    return io::reading::read_with_oiio(file, reader, {}, io::allocate_on_heap);
}

struct Pass {
    double seconds = 0;
    std::uint64_t pixels = 0;
};

// Every file read once, spread over `threads` threads taking the next file in turn.
Pass time_pass(const std::vector<std::string>& files, bool oiio, int threads) {
    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> pixels{0};
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (std::size_t i; (i = next++) < files.size();) {
                const io::LoadedImage image = read(files[i], oiio);
                pixels += std::uint64_t(image.view.width) * image.view.height;
            }
        });
    for (auto& t : pool) t.join();
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), pixels.load()};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    int rounds = 5, threads = 1;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--rounds" || arg == "--threads") && i + 1 < argc) {
            (arg == "--rounds" ? rounds : threads) = std::max(1, std::atoi(argv[++i]));
        } else if (arg == "-") {
            for (std::string line; std::getline(std::cin, line);)
                if (!line.empty()) files.push_back(line);
        } else if (arg.starts_with("--")) {
            std::fprintf(stderr, "usage: imghist_read_files [--rounds R] [--threads N] FILE... (\"-\": paths on stdin)\n");
            return 2;
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "imghist_read_files: no files\n");
        return 2;
    }
    try {
        std::size_t differ = 0;
        for (const std::string& f : files) {
            const io::LoadedImage a = read(f, false), b = read(f, true);
            const std::size_t bytes = std::size_t(a.view.row_bytes()) * a.view.height;
            if (a.view.format != b.view.format || a.view.width != b.view.width || a.view.height != b.view.height ||
                std::memcmp(a.view.data, b.view.data, bytes) != 0) {
                std::fprintf(stderr, "imghist_read_files: %s: the two paths give different pixels\n", f.c_str());
                ++differ;
            }
        }
        std::printf("%zu files, %s; %zu give different pixels; %d thread(s)\n", files.size(),
                    io::reader_version().c_str(), differ, threads);
        std::vector<double> rate[2], mps[2];
        for (int r = 0; r < rounds; ++r) {
            for (int k = 0; k < 2; ++k) {
                const bool oiio = (k + r) % 2 == 1;  // TurboJPEG first in even rounds
                const Pass p = time_pass(files, oiio, threads);
                rate[oiio].push_back(double(files.size()) / p.seconds);
                mps[oiio].push_back(double(p.pixels) / 1e6 / p.seconds);
                std::printf("round %d  %-12s %8.1f files/s  %7.1f MP/s\n", r + 1, oiio ? "OpenImageIO" : "read_image",
                            rate[oiio].back(), mps[oiio].back());
            }
        }
        for (int oiio = 0; oiio < 2; ++oiio)
            std::printf("median   %-12s %8.1f files/s  %7.1f MP/s  (min %.1f, max %.1f)\n",
                        oiio ? "OpenImageIO" : "read_image", median(rate[oiio]), median(mps[oiio]),
                        *std::min_element(rate[oiio].begin(), rate[oiio].end()),
                        *std::max_element(rate[oiio].begin(), rate[oiio].end()));
        std::printf("ratio    read_image / OpenImageIO %.3f\n", median(rate[0]) / median(rate[1]));
        return differ == 0 ? 0 : 1;
    } catch (const io::ReadError& e) {
        std::fprintf(stderr, "imghist_read_files: %s\n", e.what());
        return 1;
    }
}
