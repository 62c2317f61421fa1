#include "core/cpu_isa.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace imghist::cpu {
namespace {

struct Knob {
    Isa isa;
    std::string error;
};

const Knob& knob() {
    static const Knob k = [] {
        const char* env = std::getenv("IMGHIST_CPU_ISA");
        if (env == nullptr || *env == '\0') return Knob{best_isa(), {}};
        if (const auto isa = parse_isa(env)) return Knob{std::min(*isa, best_isa()), {}};
        return Knob{best_isa(), std::string("IMGHIST_CPU_ISA=") + env +
                                    ": expected scalar, sse2, ssse3, avx2 or avx512"};
    }();
    return k;
}

std::atomic<int> forced{-1};  // an Isa, or -1: the knob

#if defined(__x86_64__)
// F16C (half conversion) came with AVX2 on every x86 CPU, but is checked all the same; by CPUID
// leaf 1 (ECX bit 29), as Clang's __builtin_cpu_supports does not know the name.
bool has_f16c() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
}
#endif

}  // namespace

const char* isa_name(Isa isa) {
    constexpr const char* kNames[] = {"scalar", "sse2", "ssse3", "avx2", "avx512"};
    return kNames[int(isa)];
}

std::optional<Isa> parse_isa(std::string_view name) {
    for (const Isa isa : kAllIsas)
        if (name == isa_name(isa)) return isa;
    return std::nullopt;
}

Isa best_isa() {
    static const Isa best = [] {
#if defined(__x86_64__)
        __builtin_cpu_init();  // may run before libgcc's own constructor
        const bool avx2 = __builtin_cpu_supports("avx2") && has_f16c() && __builtin_cpu_supports("bmi") &&
                          __builtin_cpu_supports("bmi2");
        if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
            __builtin_cpu_supports("avx512vbmi2"))
            return Isa::avx512;
        if (avx2) return Isa::avx2;
        if (__builtin_cpu_supports("ssse3")) return Isa::ssse3;
        return Isa::sse2;
#elif defined(__SSE2__)
        return Isa::sse2;
#else
        return Isa::scalar;
#endif
    }();
    return best;
}

Isa isa() {
    const int f = forced.load(std::memory_order_relaxed);
    return f >= 0 ? Isa(f) : knob().isa;
}

const std::string& isa_knob_error() { return knob().error; }

void force_isa(std::optional<Isa> isa) {
    forced.store(isa ? int(std::min(*isa, best_isa())) : -1, std::memory_order_relaxed);
}

}  // namespace imghist::cpu
