// The GPU backends' tuning as data (src/gpu/tuning.hpp): the one parser and printer on a small
// struct, then every backend's table and device families (printed by
// TuningPolicies.PrintEveryBackendAndFamily: --gtest_filter=TuningPolicies.*).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "backends/cuda/cuda_tune.hpp"
#include "backends/opencl/opencl_tuning.hpp"
#include "backends/vulkan/vk_tuning.hpp"
#include "gpu/tuning.hpp"
#include "imghist/error.hpp"

namespace imghist::gpu {
namespace {

constexpr const char* kVariable = "IMGHIST_TEST_TUNE";

// Sets `variable` for its lifetime (unset: null).
class ScopedEnv {
public:
    ScopedEnv(const char* variable, const char* value) : variable_(variable) {
        if (value != nullptr) ::setenv(variable, value, 1);
        else ::unsetenv(variable);
    }
    ~ScopedEnv() { ::unsetenv(variable_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* variable_;
};

enum class Mode { fast, exact };

struct Demo {
    unsigned wg = 256;
    std::uint64_t size = 0;
    int pick = -1;
    bool on = true;
    Mode mode = Mode::fast;
    int steps = 4;
    std::int64_t reserve = -1;

    bool operator==(const Demo&) const = default;
};

const TuningTable<Demo>& demo_table() {
    static const TuningTable<Demo> table{
        kVariable,
        {
            number("wg", &Demo::wg, "work-group size", Range{.min = 32, .max = 1024, .power_of_two = true}),
            number("size", &Demo::size, "bytes"),
            tristate("pick", &Demo::pick, "a choice left to the backend"),
            flag("on", &Demo::on, "a switch"),
            choice("mode", &Demo::mode, {{"fast", Mode::fast}, {"exact", Mode::exact}}, "how"),
            number("steps", &Demo::steps, "steps, clamped", Range{.min = 4, .max = 60, .multiple = 4, .clamp = true}),
            number("reserve", &Demo::reserve, "bytes kept", Range{.automatic = -1}),
        },
        {
            {"acme cpu", {.type = DeviceMatch::Type::not_gpu, .vendor = "ACME"}, "wg=64,mode=exact"},
            {"big", {.name = "big"}, "steps=8"},
        },
        nullptr};
    return table;
}

Demo parsed(std::string_view text) {
    Demo d;
    apply(demo_table(), d, kVariable, text);
    return d;
}

// The message of the InvalidArgument that parsing `text` throws ("" if none).
std::string error_of(std::string_view text) {
    try {
        parsed(text);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "";
}

TEST(Tuning, SplitsKeyValueListsSkippingEmptyItems) {
    const auto knobs = split_knobs(kVariable, "mode=exact,,wg=1024,");
    ASSERT_EQ(knobs.size(), 2u);
    EXPECT_EQ(knobs[0].key, "mode");
    EXPECT_EQ(knobs[0].value, "exact");
    EXPECT_EQ(knobs[1].number(), 1024u);
    EXPECT_THROW(knobs[0].number(), InvalidArgument) << "'exact' is not a number";
    EXPECT_TRUE(split_knobs(kVariable, "").empty());
}

TEST(Tuning, PrintsEveryFieldAndParsesItBack) {
    const Demo defaults;
    EXPECT_EQ(print(demo_table(), defaults), "wg=256,size=0,pick=auto,on=1,mode=fast,steps=4,reserve=auto");
    EXPECT_EQ(parsed(print(demo_table(), defaults)), defaults);
    Demo d;
    d.wg = 32;
    d.size = 123456789012345;
    d.pick = 0;
    d.on = false;
    d.mode = Mode::exact;
    d.steps = 60;
    d.reserve = 0;
    EXPECT_EQ(print(demo_table(), d), "wg=32,size=123456789012345,pick=0,on=0,mode=exact,steps=60,reserve=0");
    EXPECT_EQ(parsed(print(demo_table(), d)), d);
}

TEST(Tuning, ReadsEachKindOfField) {
    EXPECT_EQ(parsed("pick=7").pick, 1) << "any number but 0 is on";
    EXPECT_EQ(parsed("pick=0,pick=auto").pick, -1) << "the last value wins";
    EXPECT_FALSE(parsed("on=0").on);
    EXPECT_TRUE(parsed("on=0,on=2").on);
    EXPECT_EQ(parsed("mode=exact").mode, Mode::exact);
    EXPECT_EQ(parsed("steps=0").steps, 4) << "clamped into [4, 60]";
    EXPECT_EQ(parsed("steps=1000").steps, 60);
    EXPECT_EQ(parsed("steps=13").steps, 12) << "rounded down to a multiple of 4";
    EXPECT_EQ(parsed("reserve=0").reserve, 0);
    EXPECT_EQ(parsed("reserve=auto").reserve, -1);
    EXPECT_EQ(parsed("wg=1024").wg, 1024u);
    EXPECT_EQ(parsed("wg=32").wg, 32u);
}

TEST(Tuning, ErrorsNameTheVariableAndTheKey) {
    EXPECT_EQ(error_of("wg"), "IMGHIST_TEST_TUNE: 'wg' is not key=value");
    EXPECT_EQ(error_of("color=red"),
              "IMGHIST_TEST_TUNE: unknown key 'color' (keys: wg, size, pick, on, mode, steps, reserve)");
    EXPECT_EQ(error_of("size=-1"), "IMGHIST_TEST_TUNE: 'size' needs a number, got '-1'");
    EXPECT_EQ(error_of("size=1234567890123456789"), "IMGHIST_TEST_TUNE: 'size' needs a number, got '1234567890123456789'")
        << "more than 18 digits";
    EXPECT_EQ(error_of("on=yes"), "IMGHIST_TEST_TUNE: 'on' needs a number, got 'yes'");
    EXPECT_EQ(error_of("pick=maybe"), "IMGHIST_TEST_TUNE: 'pick' needs a number, got 'maybe'");
    EXPECT_EQ(error_of("mode=slow"), "IMGHIST_TEST_TUNE: mode is fast or exact");
    EXPECT_EQ(error_of("wg=auto"), "IMGHIST_TEST_TUNE: 'wg' needs a number, got 'auto'") << "wg has no automatic value";
}

TEST(Tuning, RangesRejectWhatTheyDoNotAllow) {
    const std::string wg = "IMGHIST_TEST_TUNE: wg is a power of two from 32 to 1024";
    EXPECT_EQ(error_of("wg=48"), wg) << "not a power of two";
    EXPECT_EQ(error_of("wg=16"), wg) << "below the minimum";
    EXPECT_EQ(error_of("wg=2048"), wg) << "above the maximum";
    EXPECT_EQ(error_of("wg=0"), wg) << "0 is no automatic value here";
    EXPECT_EQ(error_of("wg=4294967296"), wg) << "not truncated to the member's 32 bits";
    EXPECT_EQ(error_of("reserve=9999999999999999"), "") << "an int64 holds 18 digits";

    Demo d;
    const TuningTable<Demo> multiple{
        kVariable, {number("wg", &Demo::wg, "", Range{.min = 32, .max = 1024, .multiple = 32})}, {}, nullptr};
    EXPECT_THROW(apply(multiple, d, kVariable, "wg=48"), InvalidArgument);
    try {
        apply(multiple, d, kVariable, "wg=1056");
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "IMGHIST_TEST_TUNE: wg is a multiple of 32 from 32 to 1024");
    }
    apply(multiple, d, kVariable, "wg=96");
    EXPECT_EQ(d.wg, 96u);
    const TuningTable<Demo> automatic{
        kVariable, {number("wg", &Demo::wg, "", Range{.max = 32, .power_of_two = true, .automatic = 0})}, {}, nullptr};
    apply(automatic, d, kVariable, "wg=auto");
    EXPECT_EQ(d.wg, 0u) << "auto is stored as the automatic value";
    EXPECT_EQ(print(automatic, d), "wg=auto");
    d.wg = 16;
    try {
        apply(automatic, d, kVariable, "wg=0");
        ADD_FAILURE() << "wg=0 is no work-group size, and only auto spells the automatic value";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "IMGHIST_TEST_TUNE: wg is a power of two up to 32, or auto (write wg=auto for the default)");
    }
    EXPECT_EQ(d.wg, 16u) << "a refused knob changes nothing";
    const TuningTable<Demo> clamped{
        kVariable, {number("wg", &Demo::wg, "", Range{.max = 32, .clamp = true, .automatic = 0})}, {}, nullptr};
    apply(clamped, d, kVariable, "wg=0");
    EXPECT_EQ(d.wg, 0u) << "a clamping knob takes its automatic value as a number";
    EXPECT_THROW(apply(automatic, d, kVariable, "wg=3"), InvalidArgument);
    try {
        apply(automatic, d, kVariable, "wg=64");
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "IMGHIST_TEST_TUNE: wg is a power of two up to 32, or auto");
    }
}

TEST(Tuning, FamiliesMatchOnTypeVendorAndName) {
    const auto& families = demo_table().families;
    EXPECT_EQ(family_for(families, {"acme corp.", "x", false}), &families[0]) << "vendor in any case";
    EXPECT_EQ(family_for(families, {"acme corp.", "big x", true}), &families[1]) << "a GPU is not the cpu family";
    EXPECT_EQ(family_for(families, {"acme corp.", "BIG", false}), &families[0]) << "the first family that matches";
    EXPECT_EQ(family_for(families, {"other", "small", false}), nullptr);
    EXPECT_EQ(families[0].match.describe(), "devices that are not GPUs, vendor contains 'ACME'");
    EXPECT_EQ(families[1].match.describe(), "every device, name contains 'big'");
}

TEST(Tuning, DefaultsThenTheFamilyThenTheEnvironment) {
    ScopedEnv unset(kVariable, nullptr);
    EXPECT_EQ(resolve(demo_table(), {"nobody", "gpu", true}), Demo{});
    Demo acme;
    acme.wg = 64;
    acme.mode = Mode::exact;
    EXPECT_EQ(resolve(demo_table(), {"ACME", "cpu", false}), acme);
    {
        ScopedEnv env(kVariable, "mode=fast,on=0");
        Demo expected = acme;
        expected.mode = Mode::fast;
        expected.on = false;
        EXPECT_EQ(resolve(demo_table(), {"ACME", "cpu", false}), expected);
    }
    {
        ScopedEnv env(kVariable, "mode=quick");
        EXPECT_THROW(resolve(demo_table(), {"ACME", "cpu", false}), InvalidArgument);
    }
    const TuningTable<Demo> broken{kVariable, demo_table().fields, {{"broken", {}, "colour=red"}}, nullptr};
    try {
        resolve(broken, {"any", "any", true});
        ADD_FAILURE() << "an unknown key in a family";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("IMGHIST_TEST_TUNE (family 'broken'): unknown key 'colour'"),
                  std::string::npos)
            << e.what();
    }
}

// A device that `match` covers.
DeviceIdentity member_of(const DeviceMatch& match) {
    return {match.vendor, match.name, match.type != DeviceMatch::Type::not_gpu};
}

// Prints `table`'s fields and families, and checks what every backend's table must hold.
template <class T>
void print_and_check(const char* backend, const TuningTable<T>& table) {
    SCOPED_TRACE(backend);
    ScopedEnv unset(table.variable, nullptr);
    const T defaults{};
    std::cout << backend << " (" << table.variable << "):\n";
    for (const Field<T>& f : table.fields) std::cout << "  " << f.key << "=" << f.write(defaults) << "  " << f.help << "\n";
    T reparsed{};
    apply(table, reparsed, table.variable, print(table, defaults));
    EXPECT_EQ(reparsed, defaults) << "the defaults round-trip through print and parse";
    EXPECT_EQ(resolve(table, {"no vendor", "no device", true}), defaults) << "a device of no family";
    if (table.families.empty()) std::cout << "  no family: every device takes the defaults\n";
    for (const Family& family : table.families) {
        SCOPED_TRACE(family.name);
        const T tuned = with_family(table, &family);  // throws on an unknown key
        std::cout << "  family '" << family.name << "' (" << family.match.describe() << "): " << family.overrides
                  << "\n    -> " << print(table, tuned) << "\n";
        EXPECT_NE(tuned, defaults) << "a family that changes nothing";
        T back{};
        apply(table, back, table.variable, print(table, tuned));
        EXPECT_EQ(back, tuned);
        const DeviceIdentity device = member_of(family.match);
        EXPECT_EQ(family_for(table.families, device), &family);
        EXPECT_EQ(resolve(table, device), tuned);
        const std::string all_defaults = print(table, defaults);
        ScopedEnv env(table.variable, all_defaults.c_str());
        EXPECT_EQ(resolve(table, device), defaults) << "the environment overrides the family";
    }
}

TEST(TuningPolicies, ZeroIsNoWorkGroupSize) {
    for (const char* knobs : {"wg=0", "gpc=0", "groups=0", "copies=0", "loads=0"}) {
        SCOPED_TRACE(knobs);
        ocl::Tune t{};
        EXPECT_THROW(apply(ocl::tuning_table(), t, "IMGHIST_OPENCL_TUNE", knobs), InvalidArgument);
    }
    ocl::Tune t{};
    apply(ocl::tuning_table(), t, "IMGHIST_OPENCL_TUNE", "wg=auto,gpc=auto,wg=64");
    EXPECT_EQ(t.wg, 64u);
}

TEST(TuningPolicies, PrintEveryBackendAndFamily) {
    print_and_check("opencl", ocl::tuning_table());
    print_and_check("vulkan", vk::tuning_table());
    print_and_check("cuda", cuda_detail::tuning_table());
}

}  // namespace
}  // namespace imghist::gpu
