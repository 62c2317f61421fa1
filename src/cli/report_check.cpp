#include "report_check.hpp"

#include "merge.hpp"

namespace imghist::cli {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw MergeInputError(where + ": " + what); }

std::string names_of(const std::vector<Channel>& channels) {
    std::string names;
    for (Channel c : channels) names += (names.empty() ? "" : ",") + std::string(channel_name(c));
    return names;
}

// The channels must be those of one request (--mode, --alpha) for every format listed: the
// library's channels_for is the one rule of which channels a format gives.
void check_channels(const Result& r, const std::vector<PixelFormat>& formats, const std::string& where) {
    std::vector<Channel> listed;
    for (const ChannelHistogram& c : r.channels) listed.push_back(c.channel);
    for (Mode mode : {Mode::all, Mode::rgb, Mode::luma})
        for (bool alpha : {false, true}) {
            Request request;
            request.mode = mode;
            request.count_alpha = alpha;
            bool every_format = true;
            for (PixelFormat f : formats) every_format = every_format && channels_for(f, request) == listed;
            if (every_format) return;
        }
    std::string formats_text;
    for (PixelFormat f : formats) formats_text += (formats_text.empty() ? "" : ",") + std::string(format_info(f).name);
    fail(where, "channels " + names_of(listed) + " are not what imghist counts in " + formats_text);
}

void check_layouts(const Result& r, const std::string& where) {
    for (const ChannelHistogram& c : r.channels)
        if (!(c.layout == r.channels.front().layout))
            fail(where, "channel " + std::string(channel_name(c.channel)) + " is counted in other bins than channel " +
                            std::string(channel_name(r.channels.front().channel)) +
                            " (imghist counts every channel of an entry in the same bins)");
}

void check_counts(const ChannelHistogram& c, const EntryPixels& pixels, const std::string& where) {
    const std::string name(channel_name(c.channel));
    // Every sample is binned, below, above or NaN (ChannelHistogram::samples: once each).
    const std::uint64_t samples = c.samples() + c.nan;
    if (pixels.exact ? samples != pixels.counted : samples > pixels.counted)
        fail(where, "channel " + name + " counts " + std::to_string(samples) + " samples (bins, below, above, nan) in " +
                        (pixels.exact ? "" : "at most ") + std::to_string(pixels.counted) + " pixels");
    const std::uint64_t clipped = c.clipped_low_count.value_or(0) + c.clipped_high_count.value_or(0);
    if (clipped > c.samples())
        fail(where, "channel " + name + " has " + std::to_string(clipped) + " clipped samples of " +
                        std::to_string(c.samples()));
    // The sample statistics count the finite samples: at most the non-NaN ones (all of them
    // for integer formats, whose every sample is finite).
    if (c.sample_moments && (c.layout.integer ? c.sample_moments->count != c.samples() : c.sample_moments->count > c.samples()))
        fail(where, "channel " + name + "'s sample statistics count " + std::to_string(c.sample_moments->count) +
                        " samples of " + std::to_string(c.samples()));
}

}  // namespace

void check_entry(const Result& r, const std::vector<PixelFormat>& formats, const EntryPixels& pixels,
                 const std::string& where) {
    check_channels(r, formats, where);
    check_layouts(r, where);
    for (const ChannelHistogram& c : r.channels) check_counts(c, pixels, where);
}

}  // namespace imghist::cli
