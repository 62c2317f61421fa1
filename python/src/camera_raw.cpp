// imghist.CameraRawHistogram: the histograms of camera raw files (docs/semantics.md, "Camera raw
// files"). The engine counts a raw file's 2 x 2 blocks as an rgba16 image, so the Result holds
// the sensor's R, G1, B, G2 as R, G, B, A; this class shows them by their own names, with the
// file's levels and clipping, in the command line's JSON schema (src/cli/sensor_report.cpp).
#include "bindings.hpp"

#if defined(IMGHIST_PYTHON_IO)
#include "cli/output.hpp"
#include "io/ev_from_white.hpp"
#endif

#include <cstring>

namespace imghist::python {

namespace {

// A channel of a camera raw file: the ChannelHistogram, shown by its sensor name.
struct CameraRawChannel : ChannelHistogram {};

// "G1" for the G the result holds it as (any other channel keeps its own name).
std::string shown_name(Channel held_as) {
    const int c = io::sensor_channel_of(held_as);
    return c >= 0 ? io::sensor_channel_name(c) : std::string(channel_name(held_as));
}

// A dict keyed by the held channels' names ("R", "G", "B", "A"), keyed by the sensor's instead.
nb::dict shown_keys(const nb::dict& by_held_name) {
    nb::dict shown;
    for (auto [key, value] : by_held_name) {
        const std::string name = nb::cast<std::string>(key);
        std::string as = name;
        for (int c = 0; c < io::SensorChannels::kChannels; ++c)
            if (name == channel_name(io::sensor_held_as(c))) as = io::sensor_channel_name(c);
        shown[as.c_str()] = value;
    }
    return shown;
}

// The other way, for from_dict: "G1" back to "G", "G2" to "A".
nb::dict held_keys(nb::handle by_sensor_name) {
    nb::dict held;
    for (auto [key, value] : nb::cast<nb::dict>(by_sensor_name)) {
        const std::string name = nb::cast<std::string>(key);
        std::string as = name;
        for (int c = 0; c < io::SensorChannels::kChannels; ++c)
            if (name == io::sensor_channel_name(c)) as = channel_name(io::sensor_held_as(c));
        held[as.c_str()] = value;
    }
    return held;
}

const ChannelHistogram& sensor_channel(const Result& r, const std::string& name) {
    std::string have;
    for (const ChannelHistogram& c : r.channels) {
        if (shown_name(c.channel) == name) return c;
        have += (have.empty() ? "" : ", ") + shown_name(c.channel);
    }
    throw nb::key_error(("no channel '" + name + "' in this camera raw histogram (it has " + have + ")").c_str());
}

nb::dict to_dict(const CameraRawResult& r) {
    nb::dict d = result_to_dict(r);
    d["histograms"] = shown_keys(nb::cast<nb::dict>(d["histograms"]));
    if (r.sensor) d["camera_raw"] = sensor_dict(*r.sensor);
    return d;
}

template <class T>
T field(nb::handle d, const char* key) {
    return nb::cast<T>(nb::cast<nb::dict>(d)[key]);
}

// The "camera_raw" object of the command line's JSON, back to SensorChannels.
io::SensorChannels sensor_from(nb::handle d) {
    io::SensorChannels s;
    const std::string pattern = field<std::string>(d, "pattern");
    if (pattern.size() != 4) throw InvalidArgument("CameraRawHistogram.from_dict: 'pattern' must be 4 colours");
    pattern.copy(s.pattern, 4);
    s.bits = field<std::uint32_t>(d, "bits");
    s.black_subtracted = field<std::string>(d, "values") == "black subtracted";
    s.ev_per_stop = field<std::uint32_t>(d, "bins_per_stop");
    s.white = field<std::uint32_t>(d, "white_level");
    s.blocks = field<std::uint64_t>(d, "blocks");
    s.clipped_any = field<std::uint64_t>(d, "clipped_any");
    s.clipped_all = field<std::uint64_t>(d, "clipped_all");
    const nb::handle channels = nb::cast<nb::dict>(d)["channels"];
    for (int c = 0; c < io::SensorChannels::kChannels; ++c) {
        const nb::handle one = nb::cast<nb::dict>(channels)[io::sensor_channel_name(c)];
        s.black[c] = field<std::uint32_t>(one, "black_level");
        s.maximum[c] = field<std::uint32_t>(one, "maximum");
        s.clipped[c] = field<std::uint64_t>(one, "clipped");
        s.underexposed[c] = field<std::uint64_t>(one, "underexposed");
    }
    return s;
}

// Bins on the EV axis from white (io/ev_from_white.hpp: edges from -16 to 0 EV) bin no integer
// values, whatever the format says: their statistics take each bin's middle, as when counted.
void mark_ev_axis(std::vector<ChannelHistogram>& channels) {
#if defined(IMGHIST_PYTHON_IO)  // without the reader no raw file is counted
    for (ChannelHistogram& c : channels)
        if (io::is_ev_from_white_axis(c.layout)) c.layout.integer = false;
#else
    (void)channels;
#endif
}

CameraRawResult from_dict(nb::handle d) {
    nb::dict held;
    for (auto [key, value] : nb::cast<nb::dict>(d)) held[key] = value;
    held["histograms"] = held_keys(held["histograms"]);
    CameraRawResult r{result_from_dict(held), std::nullopt};
    if (held.contains("camera_raw")) r.sensor = sensor_from(held["camera_raw"]);
    mark_ev_axis(r.channels);
    for (TileHistogram& t : r.tiles) mark_ev_axis(t.channels);
    return r;
}

// a + b: camera raw histograms add only to camera raw histograms (as the command line's sums
// keep them apart); the sum has no one file's levels.
const CameraRawResult& addend(nb::handle b) {
    if (!nb::isinstance<CameraRawResult>(b))
        throw MergeError("a camera raw file's histograms (R, G1, B, G2) add only to other camera raw files' "
                         "(imghist.CameraRawHistogram), not to an image's");
    return nb::cast<const CameraRawResult&>(b);
}

std::string repr_of(const CameraRawResult& r) {
    std::string channels;
    for (const ChannelHistogram& c : r.channels) channels += (channels.empty() ? "" : ",") + shown_name(c.channel);
    std::string what = is_sum(r) ? "sum" : std::to_string(r.width) + "x" + std::to_string(r.height) + " blocks";
    if (r.sensor) what = std::string(r.sensor->pattern) + " " + std::to_string(r.sensor->bits) + "-bit " + what;
    const BinLayout* l = r.channels.empty() ? nullptr : &r.channels.front().layout;
    return "<imghist.CameraRawHistogram " + what + " channels=" + channels +
           (l ? " bins=" + std::to_string(l->bins) : std::string()) + " backend=" + r.backend + ">";
}

constexpr const char* kCameraRawDoc = R"(The histograms of a camera raw file (histogram_file, histogram_files).

A Histogram whose channels are the sensor's colour filter positions, named as the imghist
command names them: R, G1 (the green of the red row), B, G2; each counted over the 2 x 2 blocks
of the mosaic, in raw units (or in EV below the white level with ev_from_white=N). camera_raw
is the command line's JSON "camera_raw" object: the pattern ('RGGB'...), bits, the white
level, each channel's black level, measured maximum, clipped and under-exposed samples, and the
blocks clipped in any and in all channels; None for a sum of files. to_dict() is the command's
JSON entry of the file (without 'file'), and from_dict() reads it back. Camera raw histograms
add (+) only to camera raw histograms; the sum has no camera_raw. tile(tx, ty) gives a plain
Histogram (channels R, G, B, A), as the command line's tiles do.)";

void bind_camera_raw_channel(nb::module_& m) {
    nb::class_<CameraRawChannel, ChannelHistogram>(m, "CameraRawChannelHistogram",
                                                  "One channel of a CameraRawHistogram: R, G1, B or G2.")
        .def_prop_ro("name", [](const CameraRawChannel& c) { return shown_name(c.channel); },
                     "Channel name: 'R', 'G1', 'B' or 'G2'.")
        .def("__repr__", [](const CameraRawChannel& c) {
            return "<imghist.CameraRawChannelHistogram " + shown_name(c.channel) +
                   " bins=" + std::to_string(c.layout.bins) + ">";
        });
}

}  // namespace

nb::dict sensor_dict(const io::SensorChannels& sensor) {
    nb::dict channels;
    for (int c = 0; c < io::SensorChannels::kChannels; ++c) {
        nb::dict one;
        one["black_level"] = sensor.black[c];
        one["maximum"] = sensor.maximum[c];
        one["clipped"] = sensor.clipped[c];
        one["underexposed"] = sensor.underexposed[c];
        channels[io::sensor_channel_name(c)] = one;
    }
    nb::dict d;
    d["pattern"] = std::string(sensor.pattern, strnlen(sensor.pattern, sizeof sensor.pattern));
    d["bits"] = sensor.bits;
    d["values"] = sensor.black_subtracted ? "black subtracted" : "as stored";
    d["axis"] = sensor.ev_per_stop ? "EV below white" : "raw units";
    d["bins_per_stop"] = sensor.ev_per_stop;
    d["white_level"] = sensor.white;
    d["channels"] = channels;
    d["blocks"] = sensor.blocks;
    d["clipped_any"] = sensor.clipped_any;
    d["clipped_all"] = sensor.clipped_all;
    return d;
}

nb::object histogram_object(Result result, bool camera_raw, const std::optional<io::SensorChannels>& sensor) {
#if defined(IMGHIST_PYTHON_IO)
    // A file's notes can hold the file's own bytes (a channel's name): Python's str needs UTF-8,
    // so they read as the command prints them.
    for (std::string& note : result.notes) note = cli::display_text(note);
#endif
    if (!camera_raw) return nb::cast(std::move(result));
    return nb::cast(CameraRawResult{std::move(result), sensor});
}

void bind_camera_raw(nb::module_& m) {
    using R = CameraRawResult;
    bind_camera_raw_channel(m);
    nb::class_<R, Result>(m, "CameraRawHistogram", kCameraRawDoc)
        .def_prop_ro("camera_raw", [](const R& r) { return r.sensor ? nb::object(sensor_dict(*r.sensor)) : nb::none(); },
                     "The command line's JSON 'camera_raw' object of the file; None for a sum of files.")
        .def_prop_ro("channels", [](const R& r) {
            nb::list names;
            for (const ChannelHistogram& c : r.channels) names.append(shown_name(c.channel));
            return nb::tuple(names);
        }, "Channel names in order: ('R', 'G1', 'B', 'G2').")
        .def("__getitem__", [](const R& r, const std::string& name) { return CameraRawChannel{sensor_channel(r, name)}; },
             "The channel of that name (R, G1, B, G2); KeyError if absent.")
        .def("__contains__", [](const R& r, nb::handle name) {
            if (!nb::isinstance<nb::str>(name)) return false;
            for (const ChannelHistogram& c : r.channels)
                if (nb::str(shown_name(c.channel).c_str()).equal(name)) return true;
            return false;
        }, nb::arg("name").none())
        .def("__iter__", [](const R& r) {
            nb::list channels;
            for (const ChannelHistogram& c : r.channels) channels.append(CameraRawChannel{c});
            return nb::iter(channels);
        }, "Iterates over the channels (R, G1, B, G2) in order.")
        .def("stats", [](const R& r) {
            nb::dict d;
            for (const ChannelHistogram& c : r.channels) d[shown_name(c.channel).c_str()] = stats_dict(c);
            return d;
        },
             "Statistics per channel: {name: {count, min, max, mean, ...}}, in raw units (or bins).")
        .def("sample_stats", [](const R& r) { return shown_keys(sample_stats_of(static_cast<const Result&>(r))); },
             "With sample_stats=True: {channel: ChannelHistogram.sample_stats()}.")
        .def("__add__", [](const R& a, nb::handle b) {
            R sum = a;
            sum.merge(addend(b));
            sum.sensor.reset();
            return sum;
        }, "Exact sum of two camera raw histograms of the same bins (MergeError otherwise).")
        .def("__iadd__", [](nb::handle self, nb::handle b) {
            R& sum = nb::cast<R&>(self);
            sum.merge(addend(b));
            sum.sensor.reset();
            return nb::borrow(self);
        })
        .def("to_dict", &to_dict, "The command line's JSON entry of the file (without 'file'), channels R, G1, B, G2.")
        .def_static("from_dict", &from_dict, nb::arg("d"), "A CameraRawHistogram from to_dict()'s output or the CLI's JSON.")
        .def("__getstate__", &to_dict)
        .def("__setstate__", [](R& self, nb::handle state) { new (&self) R(from_dict(state)); })
        .def("__repr__", &repr_of);
}

}  // namespace imghist::python
