// A backend's tuning knobs from an environment variable, "key=value,key=value": benchmarks
// and tests pick kernel variants with them (docs/performance.md lists each backend's keys).
// The defaults are what measured best; users never need these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace imghist {

struct TuneKnob {
    std::string variable;  // where it came from, for messages
    std::string key, value;

    // The value as an unsigned decimal number; throws InvalidArgument naming the variable and key.
    std::uint64_t number() const;
    // Throws InvalidArgument: the key is not one of `keys` (listed in the message).
    [[noreturn]] void unknown(const char* keys) const;
};

// The knobs in `variable`, in order (none when it is unset or empty); throws InvalidArgument on
// an item without '='.
std::vector<TuneKnob> tune_knobs(const char* variable);

}  // namespace imghist
