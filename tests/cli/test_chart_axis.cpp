// The chart's x axis (src/cli/chart_axis.cpp): the bars' extents and the ticks, checked against
// the edges for edge bins, EV bins and the uniform defaults; then charts drawn by the command,
// read back as pixels.
#include <gtest/gtest.h>

#include <OpenImageIO/imageio.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "chart_axis.hpp"
#include "cli_support.hpp"
#include "imghist/request.hpp"

namespace imghist::cli {
namespace {

namespace OIIO = OIIO_NAMESPACE;

BinLayout edge_layout(SampleType sample, const std::vector<double>& edges) {
    BinSpec spec;
    spec.edges = edges;
    return resolve_layout(sample, spec);
}

std::vector<double> tick_positions(const ChartAxis& axis) {
    std::vector<double> at;
    for (const AxisTick& t : axis.ticks) at.push_back(t.at);
    return at;
}

std::vector<std::string> tick_labels(const ChartAxis& axis) {
    std::vector<std::string> labels;
    for (const AxisTick& t : axis.ticks) labels.push_back(t.label);
    return labels;
}

// --edges 0,0.1,0.5,1,4,64 on float data: each bar spans its own edges on a value axis, so
// [0, 0.1) is 0.1 / 64 of the width (it was drawn as 1 / 5 of it, under an axis of 0 to 64).
TEST(ChartAxis, EdgeBinsSpanTheirEdges) {
    const std::vector<double> edges = {0, 0.1, 0.5, 1, 4, 64};
    const ChartAxis axis = chart_axis(edge_layout(SampleType::f32, edges), SampleType::f32);
    EXPECT_EQ(axis.kind, AxisKind::value);
    ASSERT_EQ(axis.bounds.size(), edges.size());
    for (std::size_t k = 0; k < edges.size(); ++k) {
        EXPECT_EQ(axis.bounds[k], double(float(edges[k]))) << k;  // the fp32 edges the bins count
        EXPECT_NEAR(axis.fraction_of_bin(double(k)), double(float(edges[k])) / 64, 1e-12) << k;
    }
    EXPECT_NEAR(axis.fraction_of_bin(4.5), (4 + 64) / 2.0 / 64, 1e-12);  // halfway along the last bar
    EXPECT_EQ(tick_positions(axis), (std::vector<double>{0, 10, 20, 30, 40, 50, 60}));
    EXPECT_EQ(tick_labels(axis), (std::vector<std::string>{"0", "10", "20", "30", "40", "50", "60"}));
    EXPECT_NEAR(axis.fraction_of(10), 10.0 / 64, 1e-12);
    EXPECT_EQ(axis.title, "value  (5 edge bins over [0, 64))");
}

// --ev=-12:8:8: 160 bars of 1/8 stop each on an EV axis, ticks at whole stops labelled in EV
// (it was labelled 0 to 250 in values, with "150" at the bin of 0.82).
TEST(ChartAxis, EvBinsOnAStopAxis) {
    const BinLayout layout = edge_layout(SampleType::f32, ev_edges(-12, 8, 8));
    const ChartAxis axis = chart_axis(layout, SampleType::f32);
    EXPECT_EQ(axis.kind, AxisKind::ev);
    ASSERT_EQ(axis.bounds.size(), 161u);
    for (std::size_t k = 0; k <= 160; ++k) {
        EXPECT_NEAR(axis.bounds[k], -12 + k / 8.0, 1e-6) << k;
        EXPECT_NEAR(axis.fraction_of_bin(double(k)), k / 160.0, 1e-6) << k;
    }
    EXPECT_EQ(tick_positions(axis), (std::vector<double>{-12, -8, -4, 0, 4, 8}));
    EXPECT_EQ(tick_labels(axis), (std::vector<std::string>{"-12", "-8", "-4", "0", "4", "8"}));
    // 0.82 is -0.286 EV: left of the "0" tick, which stands at 1.0, 12/20 of the width along.
    EXPECT_NEAR(axis.fraction_of(0), 0.6, 1e-12);
    const double bar_of_082 = std::floor((std::log2(0.82) + 12) * 8);
    EXPECT_LT(axis.fraction_of_bin(bar_of_082 + 1), axis.fraction_of(0));
    EXPECT_GT(axis.fraction_of_bin(bar_of_082 + 1), axis.fraction_of(-1));
    EXPECT_EQ(axis.title.rfind("EV", 0), 0u) << axis.title;
    // Every 1, 2, 4 ... stops for at most 8 steps; whole stops only, from the first inside the edges.
    const ChartAxis wide = chart_axis(edge_layout(SampleType::f32, ev_edges(-16, 16, 2)), SampleType::f32);
    EXPECT_EQ(wide.kind, AxisKind::ev);
    EXPECT_EQ(tick_positions(wide), (std::vector<double>{-16, -12, -8, -4, 0, 4, 8, 12, 16}));
    const ChartAxis half = chart_axis(edge_layout(SampleType::f32, ev_edges(-12.5, 8, 2)), SampleType::f32);
    EXPECT_EQ(tick_positions(half), (std::vector<double>{-12, -8, -4, 0, 4, 8}));
    const ChartAxis narrow = chart_axis(edge_layout(SampleType::f32, ev_edges(-3, 3, 16)), SampleType::f32);
    EXPECT_EQ(tick_positions(narrow), (std::vector<double>{-3, -2, -1, 0, 1, 2, 3}));
}

// Geometric edges are EV bins whatever made them; edges that start at 0 or are not evenly
// spaced in log2 stay on a value axis.
TEST(ChartAxis, OnlyEvenLog2SpacingIsAnEvAxis) {
    EXPECT_EQ(chart_axis(edge_layout(SampleType::u16, {1, 2, 4, 8, 16}), SampleType::u16).kind, AxisKind::ev);
    EXPECT_EQ(chart_axis(edge_layout(SampleType::u16, {0, 2, 4, 8, 16}), SampleType::u16).kind, AxisKind::value);
    EXPECT_EQ(chart_axis(edge_layout(SampleType::f32, {1, 2, 4, 8, 17}), SampleType::f32).kind, AxisKind::value);
    BinSpec uniform;
    uniform.bins = 16;
    uniform.range = std::pair{1.0, 2.0};
    EXPECT_EQ(chart_axis(resolve_layout(SampleType::f32, uniform), SampleType::f32).kind, AxisKind::value);
}

// The defaults: 8-bit values at the centres of their bins, quarters; the float rule's top bin
// (1.0 and above) one bin wide right of 1.0.
TEST(ChartAxis, UniformDefaults) {
    const ChartAxis u8 = chart_axis(resolve_layout(SampleType::u8, {}), SampleType::u8);
    EXPECT_EQ(u8.bounds.front(), 0);
    EXPECT_EQ(u8.bounds.back(), 256);
    EXPECT_EQ(tick_positions(u8), (std::vector<double>{0.5, 64.5, 128.5, 192.5, 255.5}));
    EXPECT_EQ(tick_labels(u8), (std::vector<std::string>{"0", "64", "128", "192", "255"}));
    EXPECT_EQ(u8.title, "8-bit value");
    const ChartAxis f = chart_axis(resolve_layout(SampleType::f32, {}), SampleType::f32);
    ASSERT_EQ(f.bounds.size(), 258u);
    EXPECT_EQ(f.bounds[256], 1.0);
    EXPECT_EQ(f.bounds[257], 257.0 / 256);
    EXPECT_NEAR(f.fraction_of(1.0), 256.0 / 257, 1e-12);
    EXPECT_EQ(tick_labels(f), (std::vector<std::string>{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}));
    EXPECT_EQ(f.title, "value  (last bin: 1.0 and above)");
}

// --- the charts the command draws, read back ---------------------------------------------------

namespace fs = std::filesystem;

class ChartPngTest : public cli_test::ScratchDirTest {
protected:
    // A 4 x 4 gray_f32 raw file of `value`, charted with `args`; returns the chart's pixels (RGB8).
    static std::vector<unsigned char> chart_of(float value, std::vector<std::string> args, int& width, int& height) {
        const std::string raw = path("v.raw"), png = path("chart.png");
        std::string bytes;
        for (int i = 0; i < 16; ++i) bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
        std::ofstream(raw, std::ios::binary) << bytes;
        fs::remove(png);
        args.insert(args.end(), {"--raw", "gray_f32:4x4", "--plot", png, raw});
        const cli_test::CommandRun r = run(args);
        EXPECT_EQ(r.status, 0) << r.err;
        auto in = OIIO::ImageInput::open(png);
        if (!in) return {};
        width = in->spec().width;
        height = in->spec().height;
        std::vector<unsigned char> pixels(std::size_t(width) * height * 3);
        EXPECT_TRUE(in->read_image(0, 0, 0, 3, OIIO::TypeDesc::UINT8, pixels.data()));
        return pixels;
    }
};

// The plot area of the chart (src/cli/plot_draw.hpp, rendered at twice its size): 76 to 930
// across, 84 to 436 down. Whether the pixel at `fraction` across, just above the base, is lit
// (a bar) rather than the plot's dark background.
bool lit_at(const std::vector<unsigned char>& px, int width, double fraction) {
    const int x = int(std::lround((76 + 854 * fraction) * 2)), y = (436 - 6) * 2;
    const unsigned char* p = &px[(std::size_t(y) * width + x) * 3];
    return p[0] > 70 && p[1] > 70 && p[2] > 70;  // the fill is ~90, the background 22, grid lines 56
}

TEST_F(ChartPngTest, EdgeBarsAreDrawnAtTheirEdges) {
    if (!IMGHIST_CLI_HAS_PLOT) GTEST_FAIL() << "built without cairo: the plot tests cannot run";
    int w = 0, h = 0;
    // Every sample is 10: only [4, 64) holds pixels, a bar from 4/64 of the width to its end.
    const auto px = chart_of(10.0f, {"--edges", "0,0.1,0.5,1,4,64"}, w, h);
    ASSERT_EQ(w, 1920);
    ASSERT_EQ(h, 1080);
    EXPECT_FALSE(lit_at(px, w, 0.03));
    for (double f : {0.08, 0.3, 0.5, 0.79, 0.97}) EXPECT_TRUE(lit_at(px, w, f)) << f;
}

TEST_F(ChartPngTest, EvBarsAreDrawnOnTheStopAxis) {
    if (!IMGHIST_CLI_HAS_PLOT) GTEST_FAIL() << "built without cairo: the plot tests cannot run";
    int w = 0, h = 0;
    // Every sample is 0.82 (-0.29 EV): one 1/8-stop bar just left of 0 EV, 12/20 of the width.
    const auto px = chart_of(0.82f, {"--ev=-12:8:8"}, w, h);
    ASSERT_EQ(w, 1920);
    const double bar = std::floor((std::log2(0.82) + 12) * 8);
    EXPECT_TRUE(lit_at(px, w, (bar + 0.5) / 160));
    EXPECT_FALSE(lit_at(px, w, (bar - 2) / 160));
    EXPECT_FALSE(lit_at(px, w, (bar + 4) / 160));
}

}  // namespace
}  // namespace imghist::cli
