// imghist_jpeg_dataset_bench: a dataset of JPEG files counted end to end by
// io::histogram_files, with the JPEGs decoded on the GPU (Decode::gpu) and on the CPU, in one
// run; and, on a sample of the files, the GPU-decoded counts checked against the cpu backend's
// counts of the same decoded pixels, and the decoded pixels compared with libjpeg-turbo's.
//
//   imghist_jpeg_dataset_bench make DIR --photos DIR --count N --size WxH [--quality Q]
//       N JPEGs (4:2:0) cut from the photos in --photos: random crops, flips and exposure, so no
//       two files are alike
//   imghist_jpeg_dataset_bench run DIR [--rounds R] [--batch B] [--threads T] [--check N]
//       [--decode gpu|cpu|both] [--alone]
//       every *.jpg in DIR, R rounds per decoder (the page cache warm after the first); prints a
//       Markdown table: files/s, MB/s, megapixels/s, files the GPU left to the CPU, errors
//
// scripts/gpu/cuda.sh runs it on the GPU machine (docs/performance.md has the figures).
#include <turbojpeg.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "imghist/cuda_decode.hpp"
#include "imghist/dataset.hpp"
#include "imghist/imghist.hpp"
#include "turbojpeg_files.hpp"

namespace fs = std::filesystem;
using namespace imghist;

namespace {

[[noreturn]] void usage(const std::string& why) {
    std::cerr << "imghist_jpeg_dataset_bench: " << why
              << "\nusage: imghist_jpeg_dataset_bench make DIR --photos DIR --count N --size WxH [--quality Q]\n"
                 "       imghist_jpeg_dataset_bench run DIR [--rounds R] [--batch B] [--threads T] [--check N] "
                 "[--decode gpu|cpu|both] [--alone]\n";
    std::exit(2);
}

struct Args {
    std::string command, dir, photos, decode = "both";
    int count = 5000, width = 500, height = 375, quality = 90, rounds = 3, check = 256;
    unsigned threads = 0;
    std::size_t batch = 0;
    bool alone = false;
};

Args parse(int argc, char** argv) {
    if (argc < 3) usage("a command and a folder are needed");
    Args a;
    a.command = argv[1];
    a.dir = argv[2];
    for (int i = 3; i < argc; ++i) {
        const std::string k = argv[i];
        if (k == "--alone") {
            a.alone = true;
            continue;
        }
        if (i + 1 >= argc) usage(k + " needs a value");
        const std::string v = argv[++i];
        if (k == "--photos") a.photos = v;
        else if (k == "--count") a.count = std::stoi(v);
        else if (k == "--size") {
            if (std::sscanf(v.c_str(), "%dx%d", &a.width, &a.height) != 2) usage("--size is WxH");
        } else if (k == "--quality") a.quality = std::stoi(v);
        else if (k == "--rounds") a.rounds = std::stoi(v);
        else if (k == "--batch") a.batch = std::stoul(v);
        else if (k == "--threads") a.threads = unsigned(std::stoul(v));
        else if (k == "--check") a.check = std::stoi(v);
        else if (k == "--decode") a.decode = v;
        else usage("unknown option " + k);
    }
    return a;
}

std::vector<std::byte> read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(bytes.size());
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

std::vector<fs::path> files_in(const std::string& dir, const char* ext) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// --- make ---------------------------------------------------------------------------------------

int make(const Args& a) {
    if (a.photos.empty()) usage("make needs --photos DIR (JPEG photos to cut the files from)");
    std::vector<testing::DecodedJpeg> photos;
    for (const fs::path& p : files_in(a.photos, ".jpg")) {
        testing::DecodedJpeg d = testing::decode_jpeg(read_file(p));
        if (d.channels == 3) photos.push_back(std::move(d));
    }
    if (photos.empty()) usage("no RGB JPEG photos in " + a.photos);
    fs::create_directories(a.dir);
    std::atomic<int> next{0};
    std::atomic<std::uint64_t> bytes{0};
    const auto work = [&] {
        std::vector<std::uint8_t> px(std::size_t(a.width) * a.height * 3);
        for (int k; (k = next++) < a.count;) {
            std::mt19937 rng(unsigned(k) * 2654435761u);
            const testing::DecodedJpeg& src = photos[std::size_t(k) % photos.size()];
            // A crop of the output's aspect, 35-100 % of the largest that fits, anywhere.
            const double aspect = double(a.width) / a.height;
            double cw = src.width, ch = cw / aspect;
            if (ch > src.height) ch = src.height, cw = ch * aspect;
            const double scale = std::uniform_real_distribution<double>(0.35, 1.0)(rng);
            cw *= scale, ch *= scale;
            const double x0 = std::uniform_real_distribution<double>(0, src.width - cw)(rng);
            const double y0 = std::uniform_real_distribution<double>(0, src.height - ch)(rng);
            const bool flip = rng() & 1;
            const double gain = std::uniform_real_distribution<double>(0.8, 1.2)(rng);
            for (int y = 0; y < a.height; ++y)
                for (int x = 0; x < a.width; ++x) {
                    const double sx = x0 + (flip ? a.width - 1 - x : x) * cw / a.width;
                    const double sy = y0 + y * ch / a.height;
                    const int ix = std::min(int(sx), src.width - 2), iy = std::min(int(sy), src.height - 2);
                    const double fx = sx - ix, fy = sy - iy;
                    for (int c = 0; c < 3; ++c) {
                        const auto at = [&](int xx, int yy) { return double(src.pixels[(std::size_t(yy) * src.width + xx) * 3 + c]); };
                        const double v = (at(ix, iy) * (1 - fx) + at(ix + 1, iy) * fx) * (1 - fy) +
                                         (at(ix, iy + 1) * (1 - fx) + at(ix + 1, iy + 1) * fx) * fy;
                        px[(std::size_t(y) * a.width + x) * 3 + c] = std::uint8_t(std::clamp(v * gain, 0.0, 255.0));
                    }
                }
            const std::vector<std::byte> jpeg = testing::encode_jpeg(px, a.width, a.height, 3, {a.quality, TJSAMP_420, false});
            char name[32];
            std::snprintf(name, sizeof name, "img_%06d.jpg", k);
            std::ofstream(fs::path(a.dir) / name, std::ios::binary).write(reinterpret_cast<const char*>(jpeg.data()), std::streamsize(jpeg.size()));
            bytes += jpeg.size();
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
    std::cout << "made " << a.count << " JPEGs of " << a.width << "x" << a.height << " in " << a.dir << " ("
              << bytes / a.count / 1024 << " KiB each, from " << photos.size() << " photos)\n";
    return 0;
}

// --- run ----------------------------------------------------------------------------------------

struct Round {
    double seconds = 0;
    std::size_t counted = 0, failed = 0, fallbacks = 0;
    std::uint64_t bytes = 0, pixels = 0;
};

Round one_round(Engine& engine, const std::vector<std::string>& paths, io::Decode decode, const Args& a) {
    io::DatasetOptions options;
    options.decode = decode;
    options.decode_threads = a.threads;
    options.gpu_batch = a.batch;
    Round r;
    std::string first_error, first_fallback;
    const auto t0 = std::chrono::steady_clock::now();
    const io::DatasetSummary s = io::histogram_files(engine, paths, Request{}, [&](io::FileHistogram& f) {
        if (f.result) r.pixels += std::uint64_t(f.result->width) * f.result->height;
        if (!f.gpu_fallback.empty() && r.fallbacks++ == 0) first_fallback = f.path + ": " + f.gpu_fallback;
        if (!f.error.empty() && first_error.empty()) first_error = f.path + ": " + f.error;
    }, options);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.counted = s.counted;
    r.failed = s.failed;
    r.bytes = s.bytes;
    if (!first_error.empty()) std::cerr << "  first error: " << first_error << '\n';
    if (!first_fallback.empty()) std::cerr << "  first file left to the CPU: " << first_fallback << '\n';
    return r;
}

// GPU-decoded counts against the cpu backend's counts of the same pixels (copied back), and
// those pixels against libjpeg-turbo's.
int check(Engine& engine, const std::vector<std::string>& paths, int n) {
    cuda::JpegDecoder* decoder = &cuda::jpeg_decoder(engine);  // the engine's, already made
    auto cpu = create_engine("cpu");
    std::vector<std::vector<std::byte>> files;
    for (int i = 0; i < n && i < int(paths.size()); ++i) files.push_back(read_file(paths[std::size_t(i)]));
    std::vector<std::span<const std::byte>> spans(files.begin(), files.end());
    std::vector<std::vector<std::byte>> pixels;
    const auto out = decoder->histograms(spans, Request{}, 0, pixels);
    std::size_t exact = 0, samples = 0, differ = 0;
    int largest = 0;
    std::map<int, std::size_t> by_size;
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (!out[i].result) continue;
        const ImageView view = ImageView::packed(pixels[i].data(), out[i].width, out[i].height, out[i].format);
        const Result want = cpu->compute(view, Request{});
        bool same = true;
        for (std::size_t c = 0; c < want.channels.size(); ++c) same &= want.channels[c].counts == out[i].result->channels[c].counts;
        exact += same;
        const testing::DecodedJpeg ref = testing::decode_jpeg(files[i]);
        for (std::size_t k = 0; k < ref.pixels.size() && k < pixels[i].size(); ++k) {
            const int d = std::abs(int(std::to_integer<std::uint8_t>(pixels[i][k])) - int(ref.pixels[k]));
            differ += d != 0;
            largest = std::max(largest, d);
            ++by_size[d];
        }
        samples += ref.pixels.size();
    }
    std::cout << "\ncheck on " << files.size() << " files: " << exact << " GPU histograms equal the cpu backend's of the "
              << "same decoded pixels\n";
    std::cout << "decoder difference against libjpeg-turbo (" << decoder->decoder_name() << " vs TurboJPEG, accurate "
              << "IDCT): " << differ << " of " << samples << " samples differ (" << 100.0 * double(differ) / double(samples)
              << " %), largest difference " << largest << "; by size:";
    for (const auto& [d, count] : by_size)
        if (d > 0) std::cout << " " << d << ":" << 100.0 * double(count) / double(samples) << "%";
    std::cout << '\n';
    return exact == files.size() ? 0 : 1;
}

// The decoder alone, files already in memory: the ceiling of the pipeline around it, per batch size.
void decoder_alone(Engine& engine, const std::vector<std::string>& paths) {
    std::vector<std::vector<std::byte>> files;
    for (const std::string& p : paths) files.push_back(read_file(p));
    cuda::JpegDecoder* decoder = &cuda::jpeg_decoder(engine);  // the engine's, already made
    std::printf("\n| decoder alone, files in memory | batch | files/s |\n|---|---:|---:|\n");
    for (const std::size_t batch : {32, 64, 128, 256, 512}) {
        for (int round = 0; round < 2; ++round) {
            const auto t0 = std::chrono::steady_clock::now();
            for (std::size_t i = 0; i < files.size(); i += batch) {
                std::vector<std::span<const std::byte>> spans;
                for (std::size_t k = i; k < std::min(files.size(), i + batch); ++k) spans.emplace_back(files[k]);
                (void)decoder->histograms(spans, Request{});
            }
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (round == 1) std::printf("| %s | %zu | %.0f |\n", decoder->decoder_name().c_str(), batch, double(files.size()) / s);
        }
    }
    std::fflush(stdout);
}

int run(const Args& a) {
    std::vector<std::string> paths;
    for (const fs::path& p : files_in(a.dir, ".jpg")) paths.push_back(p.string());
    if (paths.empty()) usage("no *.jpg files in " + a.dir);
    auto engine = cuda::create_engine();
    std::cout << "dataset " << a.dir << ": " << paths.size() << " JPEGs; engine " << engine->device_name() << "; "
              << std::thread::hardware_concurrency() << " cores\n\n";
    if (a.decode != "cpu") {
        // Made once per engine and kept (cuda::jpeg_decoder): a fixed cost, shown on its own.
        const auto t0 = std::chrono::steady_clock::now();
        (void)cuda::jpeg_decoder(*engine);
        std::cout << "the engine's GPU JPEG decoder made in "
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
                  << " s (once per engine; not in the rounds below)\n\n";
    }
    std::cout << "| decode | round | files/s | MB/s | MP/s | counted | left to the CPU | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
    std::map<std::string, std::vector<double>> rates;
    for (const auto& [name, decode] : {std::pair{"gpu", io::Decode::gpu}, std::pair{"cpu", io::Decode::cpu}}) {
        if (a.decode != "both" && a.decode != name) continue;
        for (int round = 0; round < a.rounds; ++round) {
            const Round r = one_round(*engine, paths, decode, a);
            const double fps = double(paths.size()) / r.seconds;
            rates[name].push_back(fps);
            std::printf("| %s | %d | %.0f | %.0f | %.0f | %zu | %zu | %zu |\n", name, round + 1, fps,
                        double(r.bytes) / 1e6 / r.seconds, double(r.pixels) / 1e6 / r.seconds, r.counted, r.fallbacks,
                        r.failed);
            std::fflush(stdout);
        }
    }
    for (auto& [name, v] : rates) {
        std::sort(v.begin(), v.end());
        std::printf("\n%s decode: median %.0f files/s over %zu rounds (best %.0f)", name.c_str(), v[v.size() / 2],
                    v.size(), v.back());
    }
    std::printf("\n");
    if (a.alone) decoder_alone(*engine, paths);
    return a.check > 0 ? check(*engine, paths, a.check) : 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Args a = parse(argc, argv);
        if (a.command == "make") return make(a);
        if (a.command == "run") return run(a);
        usage("unknown command " + a.command);
    } catch (const std::exception& e) {
        std::cerr << "imghist_jpeg_dataset_bench: " << e.what() << '\n';
        return 1;
    }
}
