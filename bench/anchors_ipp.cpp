// The Intel IPP anchor of imghist_compare (bench/compare.cpp), timed in the same run on the same
// 8K (7680x4320) pixels of the random, natural and constant patterns:
//   RGBA8 -> R,G,B,A:  imghist mode rgb, alpha counted  vs  ippiHistogram_8u_C4R
//   RGB8  -> R,G,B:    imghist mode rgb                 vs  ippiHistogram_8u_C3R
//   RGBA f32 -> R,G,B,A, 256 and 1000 bins over [0, 1): imghist bins = 256 or 1000, range [0, 1),
//                                                     alpha counted  vs  ippiHistogram_32f_C4R
// IPP: uniform levels (bins + 1) over [0, 256) or [0, 1), spec and buffer made once outside
// the timing, so only the ippiHistogram call is timed; it counts in 32 bits, on the calling
// thread (its threading layer has no histogram). imghist: Engine::compute, making its Result
// included, on one thread (EngineOptions::threads = 1) and on the program's --threads.
// IPP has no AC4 histogram (it counts every channel of a C4 image), so imghist counts alpha
// too: the same work. Cross-checks: 8-bit counts must be equal (else the row fails); for floats
// IPP bins against fp32 levels where imghist computes floor(v * 256) exactly, so the number of
// samples in differing bins is reported instead. Half floats: IPP has no 16f histogram. Beside
// each row, the bounds of bare_count.hpp: the increments, and the stores, of the same count.
#include "anchors_ipp.hpp"

#include <ipp.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bare_count.hpp"
#include "compare.hpp"

namespace imghist::bench {
namespace {

using testing::Pattern;

void check(IppStatus status, const char* what) {
    if (status < ippStsNoErr)
        throw std::runtime_error(std::string(what) + ": " + ippGetStatusString(status));
}

struct IppFree {
    void operator()(Ipp8u* p) const { ippsFree(p); }
};
using IppBytes = std::unique_ptr<Ipp8u, IppFree>;

// One uniform ippiHistogram set up for an image: spec and work buffer allocated and
// initialised once, histograms of `bins` bins over [lo, hi) per channel.
class IppHistogram {
public:
    IppHistogram(IppDataType type, int channels, const ImageView& view, float lo, float hi, int bins)
        : type_(type), channels_(channels), roi_{int(view.width), int(view.height)} {
        int levels[4], spec_size = 0, buffer_size = 0;
        Ipp32f lower[4], upper[4];
        for (int c = 0; c < 4; ++c) {
            levels[c] = bins + 1;
            lower[c] = lo;
            upper[c] = hi;
            hist_[c].assign(std::size_t(bins), 0);
            ptr_[c] = hist_[c].data();
        }
        check(ippiHistogramGetBufferSize(type, roi_, levels, channels, 1, &spec_size, &buffer_size),
              "ippiHistogramGetBufferSize");
        spec_.reset(ippsMalloc_8u(spec_size));
        buffer_.reset(ippsMalloc_8u(std::max(1, buffer_size)));
        if (!spec_ || !buffer_) throw std::runtime_error("ippsMalloc_8u failed");
        check(ippiHistogramUniformInit(type, lower, upper, levels, channels, spec()), "ippiHistogramUniformInit");
    }

    // Counts the image into the histograms (overwriting them).
    void compute(const ImageView& view) {
        const int step = int(view.stride_bytes);
        const auto* u8 = static_cast<const Ipp8u*>(view.data);
        const auto* f32 = static_cast<const Ipp32f*>(view.data);
        IppStatus s = ippStsDataTypeErr;
        if (type_ == ipp8u && channels_ == 4) s = ippiHistogram_8u_C4R(u8, step, roi_, ptr_, spec(), buffer_.get());
        if (type_ == ipp8u && channels_ == 3) s = ippiHistogram_8u_C3R(u8, step, roi_, ptr_, spec(), buffer_.get());
        if (type_ == ipp32f && channels_ == 4) s = ippiHistogram_32f_C4R(f32, step, roi_, ptr_, spec(), buffer_.get());
        check(s, "ippiHistogram");
    }

    const std::vector<Ipp32u>& counts(int channel) const { return hist_[channel]; }

private:
    IppiHistogramSpec* spec() const { return reinterpret_cast<IppiHistogramSpec*>(spec_.get()); }

    IppDataType type_;
    int channels_;
    IppiSize roi_;
    IppBytes spec_, buffer_;
    std::vector<Ipp32u> hist_[4];
    Ipp32u* ptr_[4];
};

// One kind of row: an image format, the IPP function's type and channels, imghist's request.
struct Case {
    const char* what;
    PixelFormat format;
    IppDataType type;
    int channels;
    float lo, hi;
    int bins;
    Request request;
    bool exact;  // the two bin rules agree on every sample (8-bit)
};

std::vector<Case> cases() {
    Request rgb;
    rgb.mode = Mode::rgb;
    Request rgba = rgb;
    rgba.count_alpha = true;
    Request f256 = rgba;
    f256.bins.bins = 256;
    f256.bins.range = {{0.0, 1.0}};
    Request f1000 = f256;  // the example of IPP's fp32 levels against exact bins
    f1000.bins.bins = 1000;
    return {{"RGBA8 -> R,G,B,A", PixelFormat::rgba8, ipp8u, 4, 0.0f, 256.0f, 256, rgba, true},
            {"RGB8 -> R,G,B", PixelFormat::rgb8, ipp8u, 3, 0.0f, 256.0f, 256, rgb, true},
            {"RGBA f32 -> R,G,B,A, 256 bins [0,1)", PixelFormat::rgba_f32, ipp32f, 4, 0.0f, 1.0f, 256, f256, false},
            {"RGBA f32 -> R,G,B,A, 1000 bins [0,1)", PixelFormat::rgba_f32, ipp32f, 4, 0.0f, 1.0f, 1000, f1000, false}};
}

CountDiff compare_counts(const Result& ours, const IppHistogram& ipp, int channels) {
    static constexpr Channel order[] = {Channel::R, Channel::G, Channel::B, Channel::A};
    CountDiff diff;
    for (int c = 0; c < channels; ++c) {
        const ChannelHistogram* h = ours.find(order[c]);
        const auto& theirs = ipp.counts(c);
        if (h == nullptr || h->counts.size() != theirs.size()) {
            diff.add(1, 0);  // a channel or bin count that does not match counts as a difference
            continue;
        }
        for (std::size_t b = 0; b < theirs.size(); ++b) diff.add(h->counts[b], theirs[b]);
    }
    return diff;
}

volatile std::uint32_t g_sink;

// The increments (Stores: the stores) alone of counting Ch samples per pixel, on the RGBA8 image
// of the same size and pattern (bare_count.hpp): as many as the case makes, in the order of its
// samples' kernel (Neighbours: 1 for wider samples, pixel k into sub-histogram k % 4). 8-bit
// kernels take either order by the image (cpu_kernels.cpp, neighbours_repeat): their bound is
// the faster of the two.
template <int Ch, bool Stores, int Neighbours>
Timing time_bare(Pattern pattern, int runs) {
    const auto& img8 = image(PixelFormat::rgba8, pattern);
    alignas(64) static BareCounts<Ch> counts;
    return time_ms(runs, [&] {
        bare_count_pass<Ch, Stores, Neighbours>(img8.view, counts);
        g_sink = counts[3][Ch - 1][255];
    });
}
template <int Ch, bool Stores>
Timing time_bare_either_order(Pattern pattern, int runs) {
    const Timing together = time_bare<Ch, Stores, 4>(pattern, runs), apart = time_bare<Ch, Stores, 1>(pattern, runs);
    return together.median_ms <= apart.median_ms ? together : apart;
}

IppRow time_case(const Case& c, Pattern pattern, Engine& one_thread, Engine& threaded, int runs) {
    const auto& img = image(c.format, pattern);
    IppHistogram ipp(c.type, c.channels, img.view, c.lo, c.hi, c.bins);
    IppRow row{c.what, testing::pattern_name(pattern), {}, {}, {}, {}, {}, "", false};
    row.one_thread = time_ms(runs, [&] { one_thread.compute(img.view, c.request); });
    row.threaded = time_ms(runs, [&] { threaded.compute(img.view, c.request); });
    row.ipp = time_ms(runs, [&] { ipp.compute(img.view); });
    if (format_info(c.format).sample != SampleType::u8) {  // the wider samples' order; these cases are RGBA
        row.increments = time_bare<4, false, 1>(pattern, runs);
        row.stores = time_bare<4, true, 1>(pattern, runs);
    } else {
        row.increments = c.channels == 3 ? time_bare_either_order<3, false>(pattern, runs)
                                         : time_bare_either_order<4, false>(pattern, runs);
        row.stores = c.channels == 3 ? time_bare_either_order<3, true>(pattern, runs)
                                     : time_bare_either_order<4, true>(pattern, runs);
    }

    ipp.compute(img.view);
    const Result ours = one_thread.compute(img.view, c.request);
    const CountDiff diff = compare_counts(ours, ipp, c.channels);
    const bool threads_agree = threaded.compute(img.view, c.request).same_histograms(ours);
    row.failed = !threads_agree || (c.exact && !diff.equal());
    row.check = c.exact && !diff.equal() ? "COUNTS DIFFER (" + diff.text() + ")" : diff.text();
    if (!threads_agree) row.check += "; IMGHIST 1 THREAD != N THREADS";
    return row;
}

const char* code_path_name(const std::string& cpu) {
    if (cpu == "px" || cpu == "mx") return "generic C";
    if (cpu == "w7") return "SSE2";
    if (cpu == "m7") return "SSE3";
    if (cpu == "u8" || cpu == "n8" || cpu == "s8") return "SSSE3";
    if (cpu == "y8") return "SSE4.2";
    if (cpu == "e9") return "AVX";
    if (cpu == "l9") return "AVX2";
    if (cpu == "k0") return "AVX-512 (F, CD, VL, BW, DQ)";
    if (cpu == "d1") return "AVX10.2";
    return "unknown code (see ippcore.h)";
}

const char* yes(bool b) { return b ? "yes" : "no"; }

std::string feature_line() {
    Ipp64u cpu = 0;
    Ipp32u regs[4] = {0, 0, 0, 0};
    check(ippGetCpuFeatures(&cpu, regs), "ippGetCpuFeatures");
    const Ipp64u enabled = ippGetEnabledCpuFeatures();
    const Ipp64u avx512 = ippCPUID_AVX512F | ippCPUID_AVX512CD | ippCPUID_AVX512VL | ippCPUID_AVX512BW |
                          ippCPUID_AVX512DQ;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "IPP CPU features: AVX2 %s, AVX-512 F/CD/VL/BW/DQ %s (enabled by the OS: %s), AVX10.2 %s; "
                  "found 0x%llx, enabled 0x%llx",
                  yes(cpu & ippCPUID_AVX2), yes((cpu & avx512) == avx512), yes(cpu & ippAVX512_ENABLEDBYOS),
                  yes(cpu & ippCPUID_AVX10_2), (unsigned long long)cpu, (unsigned long long)enabled);
    return buf;
}

}  // namespace

std::vector<std::string> ipp_description() {
    const IppStatus init = ippInit();  // the static libraries dispatch on their first call anyway
    const IppLibraryVersion* v = ippiGetLibVersion();
    const std::string cpu(v->targetCpu, strnlen(v->targetCpu, sizeof v->targetCpu));
    std::vector<std::string> lines;
    lines.push_back(std::string("Intel IPP ") + v->Name + " " + v->Version + " (built " + v->BuildDate +
                    "), static; ippInit: " + ippGetStatusString(init));
    lines.push_back("IPP code path: " + cpu + " = " + code_path_name(cpu) + " (ippiGetLibVersion's targetCpu)");
    lines.push_back(feature_line());
    return lines;
}

std::vector<IppRow> time_ipp(Engine& one_thread, Engine& threaded, int runs) {
    std::vector<IppRow> rows;
    for (const Case& c : cases()) {
        for (const Pattern pattern : {Pattern::random, Pattern::natural, Pattern::constant}) {
            rows.push_back(time_case(c, pattern, one_thread, threaded, runs));
            std::fprintf(stderr, "  IPP %s %s done\n", c.what, testing::pattern_name(pattern));
        }
    }
    return rows;
}

void print_ipp_table(const std::vector<IppRow>& rows, unsigned threads) {
    std::printf("\nIPP anchor: imghist cpu on 1 and on %u threads against Intel IPP (one thread); "
                "ratio = IPP time / imghist time, above 1 when imghist is faster. The bounds: one thread making "
                "one increment (or one plain store) per counted sample and nothing else (bare_count.hpp, in the "
                "kernels' order, the faster of the two for 8-bit samples, on the RGBA8 image of the same pattern); IPP / stores alone is the most that a "
                "kernel storing to a counter per sample can reach on one thread (constant images go below it: "
                "runs of equal pixels are counted by one add)\n",
                threads);
    std::printf("\n| case | image | imghist 1 thread median (min), ms | imghist %u threads median (min), ms | "
                "IPP median (min), ms | increments alone median (min), ms | stores alone median (min), ms | "
                "IPP / imghist 1 thread, medians (mins) | IPP / stores alone, medians | IPP / imghist %u threads, "
                "medians (mins) | cross-check |\n",
                threads, threads);
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    bool all_equal = true;
    for (const IppRow& r : rows) {
        all_equal = all_equal && !r.failed;
        std::printf("| %s | %s | %s | %s | %s | %s | %s | %.2fx (%.2fx) | %.2fx | %.2fx (%.2fx) | %s |\n",
                    r.what.c_str(), r.pattern.c_str(), ms(r.one_thread).c_str(), ms(r.threaded).c_str(),
                    ms(r.ipp).c_str(), ms(r.increments).c_str(), ms(r.stores).c_str(),
                    r.ipp.median_ms / r.one_thread.median_ms, r.ipp.min_ms / r.one_thread.min_ms,
                    r.ipp.median_ms / r.stores.median_ms,
                    r.ipp.median_ms / r.threaded.median_ms, r.ipp.min_ms / r.threaded.min_ms, r.check.c_str());
    }
    std::printf("\nRGBA f16: no IPP row: ippiHistogram counts 8u, 16u, 16s and 32f samples only (no 16f).\n");
    std::printf("8-bit counts equal to IPP's, and imghist on 1 thread equal to imghist on %u: %s\n", threads,
                all_equal ? "yes" : "NO");
}

}  // namespace imghist::bench
