// imghist `cpu` against other libraries ("anchors"), timed in the same run on the same 8K
// (7680x4320) pixels; each anchor is built when CMake finds its library:
//   opencv  cv::calcHist (and cv::cvtColor): RGBA8 R,G,B and luminance, RGBA f32 R,G,B
//           (bench/anchors_opencv.cpp; Debian: apt-get install libopencv-dev)
//   ipp     Intel IPP ippiHistogram_*: RGBA8 R,G,B,A, RGB8 R,G,B, RGBA f32 R,G,B,A, imghist on
//           1 thread and on --threads (bench/anchors_ipp.cpp; get IPP with
//           `bash scripts/install-ipp.sh`, which unpacks it into .whl/ipp, the default
//           IMGHIST_IPP_ROOT)
// Each time is the median (and the minimum) of --runs N calls (default 11) after one warm-up
// call; the load average is printed before and after, since the 2 cores may be shared. Counts
// are cross-checked where the bin rules agree; the program exits 1 if 8-bit counts differ.
//
//   bash scripts/install-ipp.sh          # optional: IPP into .whl/ipp
//   cmake -S . -B build -G Ninja -DIMGHIST_BENCH=ON [-DIMGHIST_IPP_ROOT=<prefix>]
//   cmake --build build --target imghist_compare
//   floor   no library: one thread reading every byte of the 8K RGBA f32 and f16 images, against
//           imghist on one thread (bench/floors.cpp)
//   build/bench/imghist_compare [--runs N] [--threads N] [--anchors opencv,ipp,floor]
// --threads sets imghist's and OpenCV's threads (0, the default: one per core); the IPP rows add imghist on
// one thread. --anchors picks anchors (default: every one built, and the floor). The former program name
// build/bench/imghist_compare_opencv is a link to this one and runs the OpenCV anchor alone
// unless --anchors says otherwise, as that program did.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_support.hpp"
#include "compare.hpp"
#include "floors.hpp"
#include "imghist/imghist.hpp"
#ifdef IMGHIST_HAVE_OPENCV
#include "anchors_opencv.hpp"
#endif
#ifdef IMGHIST_HAVE_IPP
#include "anchors_ipp.hpp"
#endif

namespace {

struct Options {
    int runs = 11;
    unsigned threads = 0;
    bool opencv = false, ipp = false, floor = false;
};

// The anchors built into this program, comma-separated.
std::string built_anchors() {
    std::string s;
#ifdef IMGHIST_HAVE_OPENCV
    s += "opencv";
#endif
#ifdef IMGHIST_HAVE_IPP
    s += s.empty() ? "ipp" : ",ipp";
#endif
    return s;
}

// Sets the anchors named in `list` ("opencv", "ipp", "floor", comma-separated); false on any
// other name.
bool pick_anchors(const std::string& list, Options& o) {
    o.opencv = o.ipp = o.floor = false;
    bool ok = true;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t end = std::min(list.find(',', start), list.size());
        const std::string name = list.substr(start, end - start);
        if (name == "opencv") o.opencv = true;
        else if (name == "ipp") o.ipp = true;
        else if (name == "floor") o.floor = true;
        else if (!name.empty()) ok = false;  // an empty name: ",," or a leading comma
        start = end + 1;
    }
    return ok;
}

bool parse(int argc, char** argv, Options& o) {
    const char* slash = std::strrchr(argv[0], '/');
    const bool old_name = !std::strcmp(slash ? slash + 1 : argv[0], "imghist_compare_opencv");
    bool names_ok = pick_anchors(old_name ? "opencv" : built_anchors() + ",floor", o);
    const bool args_ok = imghist::bench::parse_args(
        argc, argv, {},
        {{"--runs", [&](const char* v) { o.runs = std::max(1, std::atoi(v)); }},
         {"--threads", [&](const char* v) { o.threads = unsigned(std::atoi(v)); }},
         {"--anchors", [&](const char* v) { names_ok = pick_anchors(v, o) && names_ok; }}});
    const std::string built = "," + built_anchors() + ",floor,";
    for (const auto& [want, name] : {std::pair{o.opencv, "opencv"}, std::pair{o.ipp, "ipp"}})
        if (want && built.find("," + std::string(name) + ",") == std::string::npos) {
            std::fprintf(stderr, "anchor %s is not built into this program (built: %s)\n", name,
                         built_anchors().c_str());
            names_ok = false;
        }
    return args_ok && names_ok;
}

// The threads of imghist (and of OpenCV): --threads, or one per core.
unsigned program_threads(const Options& o) {
    return o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
}

// Times the picked anchors and the read-only floor and prints their tables; false if 8-bit
// counts differ.
bool run(const Options& o, imghist::Engine& engine) {
    bool equal = true;
    imghist::EngineOptions one;
    one.threads = 1;
    auto single = imghist::create_engine("cpu", one);
    const unsigned threads = program_threads(o);
#ifdef IMGHIST_HAVE_OPENCV
    std::vector<imghist::bench::OpenCvRow> cv_rows;
    if (o.opencv) cv_rows = imghist::bench::time_opencv(engine, threads, o.runs);
    for (const auto& r : cv_rows) equal = equal && !r.failed;
#endif
#ifdef IMGHIST_HAVE_IPP
    std::vector<imghist::bench::IppRow> ipp_rows;
    if (o.ipp) ipp_rows = imghist::bench::time_ipp(*single, engine, o.runs);
    for (const auto& r : ipp_rows) equal = equal && !r.failed;
#endif
    const auto floor_rows = o.floor ? imghist::bench::time_floors(*single, o.runs)
                                    : std::vector<imghist::bench::FloorRow>{};
    std::printf("load average after: %s\n", imghist::bench::load_average().c_str());
#ifdef IMGHIST_HAVE_OPENCV
    if (o.opencv) imghist::bench::print_opencv_table(cv_rows, threads);
#endif
#ifdef IMGHIST_HAVE_IPP
    if (o.ipp) imghist::bench::print_ipp_table(ipp_rows, threads);
#endif
    if (o.floor) imghist::bench::print_floor_table(floor_rows);
    return equal;
}

}  // namespace

int main(int argc, char** argv) try {
    Options o;
    if (!parse(argc, argv, o)) {
        std::fprintf(stderr, "usage: %s [--runs N] [--threads N] [--anchors %s,floor]\n", argv[0],
                     built_anchors().c_str());
        return 2;
    }
    imghist::EngineOptions options;
    options.threads = o.threads;
    auto engine = imghist::create_engine("cpu", options);
    std::printf("imghist %s, backend cpu on %s; median of %d runs\n", std::string(imghist::version()).c_str(),
                engine->device_name().c_str(), o.runs);
#ifdef IMGHIST_HAVE_OPENCV
    if (o.opencv) std::printf("%s\n", imghist::bench::opencv_description(program_threads(o)).c_str());
#endif
#ifdef IMGHIST_HAVE_IPP
    if (o.ipp)
        for (const std::string& line : imghist::bench::ipp_description()) std::printf("%s\n", line.c_str());
#endif
    std::printf("load average before: %s\n", imghist::bench::load_average().c_str());
    std::fflush(stdout);
    const bool equal = run(o, *engine);
    if (!equal) std::printf("\n8-bit COUNTS DIFFER from an anchor's\n");
    return equal ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "imghist_compare: %s\n", e.what());
    return 1;
}
