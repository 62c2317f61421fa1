// Counts past 2^32 must be exact: a constant image of more than 2^32 pixels.
// The pixels come from calloc, so untouched zero pages cost no physical memory.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "imghist/imghist.hpp"

namespace imghist {
namespace {

// Backends to run it on: "cpu" by default; IMGHIST_LARGE_BACKENDS=cpu,cuda,... on a GPU machine.
std::vector<std::string> large_backends() {
    const char* env = std::getenv("IMGHIST_LARGE_BACKENDS");
    std::string list = env ? env : "cpu";
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= list.size()) {
        std::size_t end = list.find(',', pos);
        if (end == std::string::npos) end = list.size();
        if (end > pos) out.push_back(list.substr(pos, end - pos));
        pos = end + 1;
    }
    return out;
}

TEST(LargeCounts, ConstantImageOfMoreThan2To32Pixels) {
    constexpr std::uint32_t width = 65536, height = 65537;  // 2^32 + 65536 pixels
    constexpr std::uint64_t pixels = std::uint64_t(width) * height;
    std::unique_ptr<void, decltype(&std::free)> data(std::calloc(pixels, 1), &std::free);
    ASSERT_NE(data, nullptr) << "could not reserve " << pixels << " bytes";
    const ImageView view = ImageView::packed(data.get(), width, height, PixelFormat::gray8);
    for (const std::string& name : large_backends()) {
        SCOPED_TRACE(name);
        const Result r = create_engine(name)->compute(view);
        ASSERT_EQ(r.channels.size(), 1u);
        EXPECT_EQ(r.channels[0].counts[0], pixels);
        std::uint64_t others = 0;
        for (std::size_t k = 1; k < r.channels[0].counts.size(); ++k) others += r.channels[0].counts[k];
        EXPECT_EQ(others, 0u);
    }
}

}  // namespace
}  // namespace imghist
