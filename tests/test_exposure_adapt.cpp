// The exposure's adaptation from frame to frame (docs/semantics.md, "Adaptation over frames"):
// frames worked by hand in numbers fp32 holds exactly, a long sequence against the contract's
// steps written out here, and bad settings.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"

namespace imghist {
namespace {

std::optional<Exposure> metered(double average_ev) {
    Exposure e;
    e.average_ev = average_ev;
    return e;
}

// key 0.25: key_ev is -2 exactly. Brightening 4 stops/s, darkening 2, exponential within 2 stops.
ExposureControl hand_control() {
    ExposureControl control;
    control.metering.key = 0.25;
    control.speed_up = 4;
    control.speed_down = 2;
    control.distance = 2;
    return control;
}

TEST(ExposureAdapt, FramesWorkedByHand) {
    const ExposureControl control = hand_control();
    const float dt = 0.125f;  // steps of 0.5 stop up, 0.25 down; rates 1/4 up, 1/8 down
    ExposureState s = adapt(ExposureState{}, metered(-6), control, dt);
    EXPECT_TRUE(s.started && s.metered);
    EXPECT_EQ(s.ev, 4.0f) << "the first metered frame takes its target: -2 - (-6)";
    EXPECT_EQ(s.scale, 16.0f);
    s = adapt(s, metered(2), control, dt);  // target -4: 8 stops away, linear at 0.25 a frame
    EXPECT_EQ(s.target_ev, -4.0f);
    EXPECT_EQ(s.ev, 3.75f);
    s = adapt(s, metered(-10), control, dt);  // target 8: 4.25 up, linear at 0.5 a frame
    EXPECT_EQ(s.ev, 4.25f);
    s = adapt(s, std::nullopt, control, dt);  // nothing metered: kept
    EXPECT_FALSE(s.metered);
    EXPECT_EQ(s.ev, 4.25f);
    EXPECT_EQ(s.target_ev, 8.0f);
    s = adapt(s, metered(-6.5), control, dt);  // target 4.5, 0.25 away: a quarter of it
    EXPECT_EQ(s.ev, 4.3125f);
    s = adapt(s, metered(-6.5), control, dt);  // 0.1875 away: a quarter again
    EXPECT_EQ(s.ev, 4.359375f);
    EXPECT_EQ(s.scale, std::exp2(4.359375f));
    s = adapt(s, metered(-6.5), control, 0.0f);  // no time: no move
    EXPECT_EQ(s.ev, 4.359375f);
    s = adapt(s, metered(-7), control, 10.0f);  // a long frame reaches the target, never past it
    EXPECT_EQ(s.ev, 5.0f);
}

TEST(ExposureAdapt, ClampsAndCompensationCurve) {
    ExposureControl control = hand_control();
    control.min_ev = -8;
    control.max_ev = 4;
    control.compensation = 0.5f;
    control.curve = {{-4, 1}, {0, 0}, {4, -1}};
    const auto target = [&](double average) { return adapt(ExposureState{}, metered(average), control, 0.1f).target_ev; };
    EXPECT_EQ(target(-20), 7.5f);  // clamped to -8, the curve's first stops (1) below its points
    EXPECT_EQ(target(-2), 1.0f);   // halfway from (-4, 1) to (0, 0): 0.5, plus 0.5
    EXPECT_EQ(target(1), -2.75f);  // a quarter from (0, 0) to (4, -1): -0.25, plus 0.5
    EXPECT_EQ(target(10), -6.5f);  // clamped to 4, the last stops (-1) above the points
    EXPECT_EQ(adapt(ExposureState{}, metered(-20), control, 0.1f).average_ev, -20.0f) << "kept before the clamp";
}

// The contract's steps, one fp32 operation each (this file is built with -ffp-contract=off); no
// division but the settings' two reciprocals, in double.
float contract_frame(float ev, bool started, float average, const ExposureControl& c, float dt) {
    const float clamped = std::fmin(std::fmax(average, c.min_ev), c.max_ev);
    float curve = 0;
    if (!c.curve.empty()) {
        curve = clamped <= c.curve.front().ev ? c.curve.front().stops : c.curve.back().stops;
        for (std::size_t i = 0; i + 1 < c.curve.size(); ++i)
            if (c.curve[i].ev <= clamped && clamped < c.curve[i + 1].ev) {
                const float inverse_width = float(1.0 / (double(c.curve[i + 1].ev) - double(c.curve[i].ev)));
                const float t = (clamped - c.curve[i].ev) * inverse_width;
                curve = c.curve[i].stops + t * (c.curve[i + 1].stops - c.curve[i].stops);
            }
    }
    const float target = (float(std::log2(c.metering.key)) - clamped) + (c.compensation + curve);
    if (!started) return target;
    const float delta = target - ev;
    const float step = (delta > 0 ? c.speed_up : c.speed_down) * dt;
    const float move = delta * std::fmin(step * float(1.0 / c.distance), 1.0f);
    return ev + (delta > 0 ? std::fmin(step, move) : std::fmax(-step, move));
}

TEST(ExposureAdapt, ASequenceFollowsTheContractBitForBit) {
    ExposureControl control;
    control.min_ev = -10.3f;
    control.max_ev = 6.1f;
    control.compensation = -0.37f;
    control.curve = {{-7.1f, 0.9f}, {-1.3f, 0.1f}, {2.2f, -0.45f}};
    std::mt19937 random(52);
    std::uniform_real_distribution<float> scene(-14, 9), frame_time(0.004f, 0.05f);
    ExposureState state;
    float ev = 0;
    for (int frame = 0; frame < 600; ++frame) {
        // A walk from a dark room into sunlight and back, with noise, and a dropped metering now and then.
        const float average = (frame < 300 ? -9.0f + frame * 0.05f : 6.0f - (frame - 300) * 0.05f) + scene(random) * 0.1f;
        const float dt = frame_time(random);
        if (frame % 97 == 13) {
            state = adapt(state, std::nullopt, control, dt);
            EXPECT_EQ(state.ev, ev) << frame;
            continue;
        }
        ev = contract_frame(ev, state.started, average, control, dt);
        state = adapt(state, metered(average), control, dt);
        ASSERT_EQ(state.ev, ev) << "frame " << frame;
        EXPECT_EQ(state.scale, std::exp2(ev));
    }
}

void expect_refused(const ExposureControl& control, float dt, const std::string& names) {
    try {
        (void)adapt(ExposureState{}, metered(0), control, dt);
        ADD_FAILURE() << "accepted; expected an error naming " << names;
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
}

TEST(ExposureAdapt, BadSettingsGiveOneClearError) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    ExposureControl c;
    for (float bad : {0.0f, -1.0f, nan, INFINITY}) {
        c = {};
        c.speed_up = bad;
        expect_refused(c, 0.1f, "speed_up");
        c = {};
        c.speed_down = bad;
        expect_refused(c, 0.1f, "speed_down");
        c = {};
        c.distance = bad;
        expect_refused(c, 0.1f, "distance");
        expect_refused(ExposureControl{}, bad == 0 ? -0.5f : bad, "time");
    }
    c = {};
    c.min_ev = c.max_ev = 1;
    expect_refused(c, 0.1f, "min_ev");
    c = {};
    c.curve = {{1, 0}, {1, 1}};
    expect_refused(c, 0.1f, "strictly increasing");
    c.curve = {{1, nan}};
    expect_refused(c, 0.1f, "not finite");
    c.curve.assign(17, {});
    for (int i = 0; i < 17; ++i) c.curve[i].ev = float(i);
    expect_refused(c, 0.1f, "more than 16");
    c = {};
    c.metering.low_percent = 96;
    expect_refused(c, 0.1f, "percentiles");
    EXPECT_THROW((void)adapt(ExposureState{}, metered(nan), ExposureControl{}, 0.1f), InvalidArgument);
    EXPECT_THROW((void)adapt(ExposureState{}, metered(1e39), ExposureControl{}, 0.1f), InvalidArgument);
}

}  // namespace
}  // namespace imghist
