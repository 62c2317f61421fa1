// Sample statistics in Python (docs/semantics.md, "Sample statistics"): ChannelHistogram and
// Histogram .sample_stats() with the exact sums as fractions.Fraction, Histogram.normalize() for
// torchvision's Normalize, and the "sample_stats" member of to_dict / from_dict (the command
// line's JSON: the sums as exact decimal strings).
#include "bindings.hpp"

#include <cmath>

namespace imghist::python {

namespace {
nb::object fraction(const ExactNumber& x) {
    static nb::object make = nb::module_::import_("fractions").attr("Fraction");
    return make(nb::str(x.to_string().c_str()));
}
nb::object number_or_none(const std::optional<double>& v) { return v ? nb::object(nb::float_(*v)) : nb::object(nb::none()); }

[[noreturn]] void bad(const std::string& what) { throw InvalidArgument("Histogram.from_dict: " + what); }

double finite_member(nb::handle d, const char* key, const std::string& where) {
    PyObject* v = PyDict_GetItemString(d.ptr(), key);
    double x = 0;
    if (!v || PyBool_Check(v) || !nb::try_cast(nb::handle(v), x) || !std::isfinite(x))
        bad(where + ": '" + key + "' must be a finite number");
    return x;
}
}  // namespace

nb::object sample_stats_of(const ChannelHistogram& c) {
    const std::optional<SampleStats> s = c.sample_stats();
    if (!s) return nb::none();
    nb::dict d, linear, nearest;
    d["count"] = s->count;
    d["sum"] = fraction(c.sample_moments->sum);
    d["sum_of_squares"] = fraction(c.sample_moments->sum_of_squares);
    d["mean"] = number_or_none(s->mean);
    d["variance"] = number_or_none(s->variance);
    d["sample_variance"] = number_or_none(s->sample_variance);
    d["stddev"] = number_or_none(s->stddev);
    d["sample_stddev"] = number_or_none(s->sample_stddev);
    d["min"] = number_or_none(s->min);
    d["max"] = number_or_none(s->max);
    for (const SamplePercentile& p : s->percentiles) {
        linear[nb::float_(p.percent)] = p.linear;
        nearest[nb::float_(p.percent)] = p.nearest_rank;
    }
    d["median"] = linear.contains(nb::float_(50.0)) ? nb::object(linear[nb::float_(50.0)]) : nb::object(nb::none());
    d["percentiles"] = linear;
    d["nearest_rank"] = nearest;
    return d;
}

nb::dict sample_stats_of(const Result& r) {
    nb::dict d;
    for (const ChannelHistogram& c : r.channels) d[std::string(channel_name(c.channel)).c_str()] = sample_stats_of(c);
    return d;
}

// mean and stddev of the colour channels (gray alone for gray images) in units of value / scale,
// each rounded once from the exact sums: the pooled statistics of every counted sample.
nb::dict normalize_of(const Result& r, std::optional<double> scale) {
    const FormatInfo& fi = format_info(r.format);
    const double unit = scale.value_or(fi.sample == SampleType::u8 ? 255.0 : fi.sample == SampleType::u16 ? 65535.0 : 1.0);
    if (!(unit > 0) || !std::isfinite(unit)) throw InvalidArgument("normalize: scale must be a positive finite number");
    nb::list means, stds;
    for (const ChannelHistogram& c : r.channels) {
        if (c.channel == Channel::Y || c.channel == Channel::A) continue;
        if (!c.sample_moments)
            throw InvalidArgument("normalize() needs the sample statistics: count with sample_stats=True");
        const std::optional<SampleNormalization> found = sample_stats_normalization(*c.sample_moments, unit);
        if (!found) throw InvalidArgument("normalize(): channel " + std::string(channel_name(c.channel)) + " has no finite sample");
        means.append(found->mean);
        stds.append(found->stddev);
    }
    nb::dict d;
    d["mean"] = nb::tuple(means);
    d["std"] = nb::tuple(stds);
    return d;
}

void put_sample_stats(nb::dict& d, const ChannelHistogram& c) {
    if (!c.sample_moments) return;
    const SampleMoments& m = *c.sample_moments;
    const SampleStats s = *c.sample_stats();
    nb::dict j;
    j["count"] = m.count;
    j["sum"] = m.sum.to_string();
    j["sum_of_squares"] = m.sum_of_squares.to_string();
    for (const auto& [key, v] : {std::pair{"mean", s.mean}, {"variance", s.variance}, {"sample_variance", s.sample_variance},
                                 {"stddev", s.stddev}, {"sample_stddev", s.sample_stddev}, {"min", s.min}, {"max", s.max}})
        j[key] = v ? json_number(*v) : nb::object(nb::none());
    nb::list percentiles;
    for (const SamplePercentile& p : s.percentiles) {
        nb::dict e;
        e["p"] = json_number(p.percent);
        e["nearest_rank"] = json_number(p.nearest_rank);
        e["linear"] = json_number(p.linear);
        percentiles.append(e);
    }
    j["percentiles"] = percentiles;
    d["sample_stats"] = j;
}

void sample_stats_from(nb::handle channel, ChannelHistogram& c, const std::string& name) {
    PyObject* found = PyDict_GetItemString(channel.ptr(), "sample_stats");
    if (!found) return;
    const nb::handle d(found);
    const std::string where = "channel " + name + " sample_stats";
    if (!nb::isinstance<nb::dict>(d)) bad(where + " must be a dict");
    SampleMoments m;
    PyObject* count = PyDict_GetItemString(d.ptr(), "count");
    if (!count || PyBool_Check(count) || !nb::try_cast(nb::handle(count), m.count)) bad(where + ": 'count' must be an integer");
    for (const auto& [key, field] : {std::pair{"sum", &m.sum}, {"sum_of_squares", &m.sum_of_squares}}) {
        PyObject* text = PyDict_GetItemString(d.ptr(), key);
        std::optional<ExactNumber> v;
        if (text && PyUnicode_Check(text)) v = ExactNumber::parse(nb::cast<std::string>(nb::handle(text)));
        if (!v) bad(where + ": '" + key + "' must be an exact decimal string");
        *field = *v;
    }
    if (m.count > 0) {
        m.min = finite_member(d, "min", where);
        m.max = finite_member(d, "max", where);
    }
    c.sample_moments = m;
    PyObject* list = PyDict_GetItemString(d.ptr(), "percentiles");
    if (!list || !PyList_Check(list)) bad(where + ": 'percentiles' must be a list");
    for (nb::handle p : nb::handle(list))
        c.sample_percentiles.push_back({finite_member(p, "p", where), finite_member(p, "nearest_rank", where),
                                        finite_member(p, "linear", where)});
}

}  // namespace imghist::python
