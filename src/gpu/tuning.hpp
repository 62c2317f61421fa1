// A GPU backend's tuning as data. The backend describes its tuning struct by a table of fields
// (key, one line of help, how a value is read and written) and lists device families whose
// overrides are "key=value,..." text. One parser and one printer serve every backend.
//
// A backend's tuning for a device: the struct's defaults (measured on an H200), then the
// overrides of the first family that matches the device, then the environment variable
// (IMGHIST_<NAME>_TUNE, for benchmarks and tests). tests/gpu/test_tuning.cpp prints every
// backend's fields and families (TuningPolicies.PrintEveryBackendAndFamily).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace imghist::gpu {

// What a family policy matches a device on.
struct DeviceIdentity {
    std::string vendor, name;
    bool gpu = true;
};

// Which devices a family covers: every condition that is set must hold.
struct DeviceMatch {
    enum class Type { any, gpu, not_gpu };
    Type type = Type::any;
    const char* vendor = "";  // a substring of DeviceIdentity::vendor, any case; "" for any
    const char* name = "";    // a substring of DeviceIdentity::name, any case; "" for any

    bool matches(const DeviceIdentity& device) const;
    std::string describe() const;
};

struct Family {
    const char* name;
    DeviceMatch match;
    const char* overrides;  // "key=value,...", over the struct's defaults
};

// One "key=value" item and where it came from (the variable, or a family), for messages.
struct Knob {
    std::string source, key, value;

    bool is_auto() const { return value == "auto"; }
    // The value as an unsigned decimal number; throws InvalidArgument naming the source and key.
    std::uint64_t number() const;
    // Throws InvalidArgument "<source>: <key> is <rule>".
    [[noreturn]] void reject(const std::string& rule) const;
};

// The items of `text`, in order (empty items skipped); throws InvalidArgument on an item
// without '='.
std::vector<Knob> split_knobs(const std::string& source, std::string_view text);
// Throws InvalidArgument: `knob`'s key is none of `keys` (listed in the message).
[[noreturn]] void unknown_key(const Knob& knob, const std::vector<const char*>& keys);

// The rule of a number field. Outside [min, max], or not a power of two / a multiple where
// asked, a value is rejected, or with `clamp` clamped into the range and rounded down to the
// multiple. `automatic` is the member's "decide for me" value: "auto" sets it, it prints as
// "auto", and as a number it passes unchecked.
struct Range {
    std::uint64_t min = 0, max = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t multiple = 1;
    bool power_of_two = false;
    bool clamp = false;
    std::optional<std::int64_t> automatic;
};

// `knob`'s value under `range` (whose max is lowered to `type_max`, the member's largest).
std::int64_t read_number(const Knob& knob, const Range& range, std::uint64_t type_max);
std::string write_number(std::int64_t value, const Range& range);

// One field of a tuning struct T.
template <class T>
struct Field {
    const char* key;
    const char* help;
    std::function<void(T&, const Knob&)> read;
    std::function<std::string(const T&)> write;
};

template <class T>
struct TuningTable {
    const char* variable;  // IMGHIST_<NAME>_TUNE
    std::vector<Field<T>> fields;
    std::vector<Family> families;  // the first that matches a device applies
    // After a text is applied: values that follow from others (may be null).
    void (*finish)(T&) = nullptr;
};

// An unsigned number; `member` may be any integer type.
template <class T, class M>
Field<T> number(const char* key, M T::*member, const char* help, Range range = {}) {
    const auto type_max = std::uint64_t(std::numeric_limits<M>::max());
    return {key, help, [=](T& t, const Knob& k) { t.*member = M(read_number(k, range, type_max)); },
            [=](const T& t) { return write_number(std::int64_t(t.*member), range); }};
}

// 0 or 1 (any other number counts as 1).
template <class T>
Field<T> flag(const char* key, bool T::*member, const char* help) {
    return {key, help, [=](T& t, const Knob& k) { t.*member = k.number() != 0; },
            [=](const T& t) { return std::string(t.*member ? "1" : "0"); }};
}

// -1 (auto: the backend decides), 0 or 1 (any other number counts as 1).
template <class T>
Field<T> tristate(const char* key, int T::*member, const char* help) {
    return {key, help, [=](T& t, const Knob& k) { t.*member = k.is_auto() ? -1 : k.number() != 0 ? 1 : 0; },
            [=](const T& t) { return std::string(t.*member < 0 ? "auto" : t.*member != 0 ? "1" : "0"); }};
}

// One of `names` (an enum, or an int standing for one).
template <class T, class M>
Field<T> choice(const char* key, M T::*member, std::vector<std::pair<const char*, M>> names, const char* help) {
    auto read = [=](T& t, const Knob& k) {
        for (const auto& [name, value] : names)
            if (k.value == name) return void(t.*member = value);
        std::string rule;
        for (std::size_t i = 0; i < names.size(); ++i)
            rule += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i].first);
        k.reject(rule);
    };
    auto write = [=](const T& t) {
        for (const auto& [name, value] : names)
            if (t.*member == value) return std::string(name);
        return std::to_string(static_cast<long long>(t.*member));
    };
    return {key, help, read, write};
}

// Applies "key=value,..." to `t`; throws InvalidArgument naming `source` and the key.
template <class T>
void apply(const TuningTable<T>& table, T& t, const std::string& source, std::string_view text) {
    for (const Knob& k : split_knobs(source, text)) {
        const Field<T>* field = nullptr;
        for (const Field<T>& f : table.fields)
            if (field == nullptr && k.key == f.key) field = &f;
        if (field == nullptr) {
            std::vector<const char*> keys;
            for (const Field<T>& f : table.fields) keys.push_back(f.key);
            unknown_key(k, keys);
        }
        field->read(t, k);
    }
    if (table.finish != nullptr) table.finish(t);
}

// "key=value,..." of every field, in the table's order: apply() of it gives `t` back.
template <class T>
std::string print(const TuningTable<T>& table, const T& t) {
    std::string s;
    for (const Field<T>& f : table.fields) s += (s.empty() ? "" : ",") + std::string(f.key) + "=" + f.write(t);
    return s;
}

const Family* family_for(const std::vector<Family>& families, const DeviceIdentity& device);
std::string family_source(const char* variable, const Family& family);
// The environment variable's text, or null where it is unset.
const char* environment(const char* variable);

// The defaults with `family`'s overrides (none for null).
template <class T>
T with_family(const TuningTable<T>& table, const Family* family) {
    T t{};
    if (family != nullptr) apply(table, t, family_source(table.variable, *family), family->overrides);
    return t;
}

// The tuning for `device`: defaults, its family, then the environment variable.
template <class T>
T resolve(const TuningTable<T>& table, const DeviceIdentity& device) {
    T t = with_family(table, family_for(table.families, device));
    if (const char* env = environment(table.variable)) apply(table, t, table.variable, env);
    return t;
}

}  // namespace imghist::gpu
