// layout="chw": channel-first arrays, (C, H, W) and batches (N, C, H, W), as torch tensors and
// many ML loaders hold them. Each channel is a plane of rows, counted where it lies as a gray
// image of its own (no copy, host or CUDA); the planes' histograms become the channels of one
// Result, the same as the (H, W, C) image gives. What needs a pixel's samples together (the
// luminance Y of modes "all" and "luma", an alpha threshold) is counted on one packed (H, W, C)
// copy of a host array; a CUDA array is refused there rather than copied behind the user's back.
#include "bindings.hpp"

#include <algorithm>

namespace imghist::python {

namespace {

constexpr Channel kPlaneChannels[4] = {Channel::R, Channel::G, Channel::B, Channel::A};

std::string shape_of(const Array& a) {
    std::string s = "(";
    for (std::size_t d = 0; d < a.ndim(); ++d) s += (d ? ", " : "") + std::to_string(a.shape(d));
    return s + ")";
}

// Plane c of image i (axes: [N,] C, H, W) as an (H, W) array, a view owned by `owner`.
Array plane_of(const Array& a, std::size_t i, std::size_t c, nb::handle owner) {
    const std::size_t lead = a.ndim() - 3;  // 1 for a batch
    const std::int64_t offset =
        (std::int64_t(i) * (lead ? a.stride(0) : 0) + std::int64_t(c) * a.stride(lead)) * std::int64_t(a.itemsize());
    const std::size_t shape[2] = {a.shape(lead + 1), a.shape(lead + 2)};
    const std::int64_t strides[2] = {a.stride(lead + 1), a.stride(lead + 2)};
    return Array(static_cast<const std::byte*>(a.data()) + offset, 2, shape, owner, strides, a.dtype(), a.device_type(),
                 a.device_id());
}

// One (C, H, W) image, or an (N, C, H, W) batch, as gray views of its planes.
PlaneImages planes_of_array(nb::handle images, nb::handle stream, bool batch) {
    PlaneImages p;
    const Array whole = array_of(images, stream, p.planes.where);
    const std::size_t lead = batch ? 1 : 0;
    const char* wanted = batch ? "(N, C, H, W)" : "(C, H, W)";
    if (whole.ndim() != 3 + lead)
        throw InvalidArgument(std::string("layout 'chw' takes a channel-first ") + wanted + " array; got shape " +
                              shape_of(whole));
    p.channels = whole.shape(lead);
    if (p.channels != 1 && p.channels != 3 && p.channels != 4)
        throw InvalidArgument("layout 'chw': shape " + shape_of(whole) + " has " + std::to_string(p.channels) +
                              " channels in axis " + std::to_string(lead) +
                              "; imghist counts 1 (gray), 3 (RGB) or 4 (RGBA) (an (H, W, C) array takes layout=None)");
    p.images = batch ? whole.shape(0) : 1;
    p.batch = batch;
    if (p.images == 0) throw InvalidArgument("histogram_batch needs at least one image; got none");
    for (std::size_t i = 0; i < p.images; ++i)
        for (std::size_t c = 0; c < p.channels; ++c) {
            p.planes.arrays.push_back(plane_of(whole, i, c, images));
            try {  // a plane is a gray image: its rows' samples must be packed, as any image's
                p.planes.views.push_back(view_of(p.planes.arrays.back(), std::nullopt));
            } catch (const InvalidArgument& e) {
                throw InvalidArgument("layout 'chw': a channel's plane cannot be read as it lies (" +
                                      std::string(e.what()) + ")");
            }
        }
    p.format = natural_format(format_info(p.planes.views.front().format).sample, p.channels);
    return p;
}

bool is_sequence(nb::handle images) { return nb::isinstance<nb::list>(images) || nb::isinstance<nb::tuple>(images); }

// histogram_batch([...], layout="chw"): each (C, H, W) array's planes in turn, all of one format
// and in one place, as the images of any batch.
PlaneImages planes_of_sequence(nb::handle images, nb::handle stream) {
    PlaneImages all;
    all.batch = true;
    for (nb::handle item : images) {
        const std::string at = "images[" + std::to_string(all.images) + "]: ";
        PlaneImages one;
        try {
            one = planes_of_array(item, stream, false);
        } catch (const InvalidArgument& e) {
            throw InvalidArgument(at + e.what());
        }
        if (all.images == 0) {
            all.channels = one.channels;
            all.format = one.format;
            all.planes.where = one.planes.where;
        } else if (one.format != all.format || !(one.planes.where == all.planes.where)) {
            throw InvalidArgument(at + "its dtype, channels or device differ from images[0]'s: the images of a batch "
                                       "share them (sizes may differ)");
        }
        for (Array& plane : one.planes.arrays) all.planes.arrays.push_back(std::move(plane));
        for (const ImageView& view : one.planes.views) all.planes.views.push_back(view);
        ++all.images;
    }
    if (all.images == 0) throw InvalidArgument("histogram_batch needs at least one image; got none");
    return all;
}

}  // namespace

bool is_channel_first(const std::optional<std::string>& layout) { return layout && *layout == "chw"; }

PlaneImages planes_of(nb::handle images, nb::handle stream, bool batch) {
    return batch && is_sequence(images) ? planes_of_sequence(images, stream) : planes_of_array(images, stream, batch);
}

bool needs_interleaved(const Request& request, std::size_t channels) {
    return channels > 1 && (request.mode != Mode::rgb || request.alpha_threshold.has_value());
}

nb::object interleaved_copy(nb::handle images, const Placement& where) {
    if (where.cuda)
        throw InvalidArgument("layout 'chw' counts each channel of a CUDA array where it lies; the luminance "
                              "(mode 'all' or 'luma') and alpha_threshold need a pixel's samples together, which "
                              "only an (H, W, C) copy has: count mode='rgb', or pass t.permute(1, 2, 0).contiguous()");
    nb::module_ np = nb::module_::import_("numpy");
    const auto copy = [&](nb::handle a) { return np.attr("ascontiguousarray")(np.attr("moveaxis")(np.attr("asarray")(a), -3, -1)); };
    if (!is_sequence(images)) return copy(images);
    nb::list copies;
    for (nb::handle item : images) copies.append(copy(item));
    return copies;
}

namespace {

// count_batch names an error "images[k]: ..." by the plane's index among all planes: named here
// by the image's index in a batch, and not at all for one image.
std::vector<Result> count_each_plane(Engine& engine, const PlaneImages& p, const Request& request) {
    try {
        return count_batch(engine, p.planes, request);
    } catch (const InvalidArgument& e) {
        std::string what = e.what();
        std::size_t plane = 0;
        if (what.rfind("images[", 0) == 0 && what.find("]: ") != std::string::npos) {
            plane = std::stoul(what.substr(7));
            what = what.substr(what.find("]: ") + 3);
        }
        throw InvalidArgument(p.batch ? "images[" + std::to_string(plane / p.channels) + "]: " + what : what);
    }
}

}  // namespace

std::vector<Result> count_planes(Engine& engine, const PlaneImages& p, const Request& request) {
    const std::vector<Result> planes = count_each_plane(engine, p, request);
    const std::size_t counted = request.count_alpha || p.channels < 4 ? p.channels : 3;  // mode "rgb"
    std::vector<Result> images;
    for (std::size_t i = 0; i < p.images; ++i) {
        const Result* first = &planes[i * p.channels];
        Result r = *first;
        r.format = p.format;
        r.channels.clear();
        for (TileHistogram& t : r.tiles) t.channels.clear();
        for (std::size_t c = 0; c < counted; ++c) {
            const Result& plane = first[c];
            const auto named = [&](ChannelHistogram h) {
                if (p.channels > 1) h.channel = kPlaneChannels[c];
                return h;
            };
            r.channels.push_back(named(plane.channels.at(0)));
            for (std::size_t t = 0; t < r.tiles.size(); ++t) r.tiles[t].channels.push_back(named(plane.tiles[t].channels.at(0)));
            for (const std::string& note : plane.notes)
                if (std::find(r.notes.begin(), r.notes.end(), note) == r.notes.end()) r.notes.push_back(note);
        }
        images.push_back(std::move(r));
    }
    return images;
}

}  // namespace imghist::python
