// PGM/PPM with 8- and 16-bit samples, read by imghist itself.
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "reader_internal.hpp"

namespace imghist::io::reading {

namespace {

// Why here: OpenImageIO 2.4 rescales 16-bit PNM samples through float and loses the last bit of some
// values (binary 65280 reads as 65279, ASCII v >= 32769 as v - 1), and takes headers with
// maxval 0 or above 65535. P2/P3 (ASCII) and P5/P6 (binary) are read here instead; P1/P4
// (bitmaps) and PF/Pf (float) stay with OpenImageIO's reader.

struct PnmHeader {
    bool ascii = false;
    int channels = 1;
    std::uint64_t width = 0, height = 0;
    unsigned maxval = 0;
};

// Magic, width, height and maxval, separated by whitespace and '#' comments, then exactly one
// whitespace character before the samples.
PnmHeader read_pnm_header(std::istream& f) {
    PnmHeader h;
    char magic[2] = {};
    f.read(magic, 2);
    h.ascii = magic[1] == '2' || magic[1] == '3';
    h.channels = (magic[1] == '3' || magic[1] == '6') ? 3 : 1;
    std::uint64_t fields[3] = {};
    const char* names[3] = {"width", "height", "maxval"};
    for (int i = 0; i < 3; ++i) {
        int c = f.get();
        while (c != EOF && (std::isspace(c) || c == '#')) {
            if (c == '#')
                while (c != EOF && c != '\n') c = f.get();
            c = f.get();
        }
        if (c == EOF || !std::isdigit(c))
            throw ReadError(std::string("invalid PNM header: no ") + names[i]);
        for (; c != EOF && std::isdigit(c); c = f.get()) {
            fields[i] = fields[i] * 10 + std::uint64_t(c - '0');
            if (fields[i] > (std::uint64_t(1) << 40)) throw ReadError(std::string("invalid PNM header: ") + names[i] + " too large");
        }
        if (c == EOF || !std::isspace(c)) throw ReadError(std::string("invalid PNM header after the ") + names[i]);
    }
    h.width = fields[0];
    h.height = fields[1];
    if (fields[2] < 1 || fields[2] > 65535)
        throw ReadError("invalid PNM header: maxval " + std::to_string(fields[2]) + " (must be 1 to 65535)");
    h.maxval = unsigned(fields[2]);
    return h;
}

// Samples are stored as read when maxval is 255 or 65535. Other maxvals are rescaled to the full
// range of the sample type imghist counts them in (8-bit up to maxval 255, else 16-bit), by
// round(v * full / maxval) in integers, with a note that says so.
struct PnmScale {
    unsigned maxval, full;
    std::uint32_t operator()(std::uint32_t v) const {
        return maxval == full ? v : std::uint32_t((std::uint64_t(v) * full + maxval / 2) / maxval);
    }
};

template <typename Out>
void read_pnm_samples(std::istream& f, const PnmHeader& h, std::uint64_t samples, std::uint64_t data_bytes,
                      Out* dst) {
    const PnmScale scale{h.maxval, std::numeric_limits<Out>::max()};
    const auto store = [&](std::uint64_t i, std::uint32_t v) {
        if (v > h.maxval)
            throw ReadError("invalid PNM sample " + std::to_string(v) + " above maxval " + std::to_string(h.maxval));
        dst[i] = Out(scale(v));
    };
    const std::string short_file = "cannot read pixels (pnm): the file ends before its last pixel";
    if (h.ascii) {
        // Each sample takes at least one digit and one separator: refuse a short file before counting.
        if (data_bytes + 1 < 2 * samples) throw ReadError(short_file);
        std::istreambuf_iterator<char> it(f), end;
        for (std::uint64_t i = 0; i < samples; ++i) {
            while (it != end && std::isspace(static_cast<unsigned char>(*it))) ++it;
            if (it == end) throw ReadError(short_file);
            if (!std::isdigit(static_cast<unsigned char>(*it)))
                throw ReadError("invalid PNM sample: '" + std::string(1, *it) + "' where a number belongs");
            std::uint32_t v = 0;
            for (; it != end && std::isdigit(static_cast<unsigned char>(*it)); ++it) v = std::min<std::uint32_t>(v * 10 + std::uint32_t(*it - '0'), 1u << 20);
            store(i, v);
        }
        return;
    }
    const std::size_t bytes_per_sample = h.maxval > 255 ? 2 : 1;
    std::vector<unsigned char> raw(bytes_per_sample * std::size_t(std::min<std::uint64_t>(samples, 1 << 20)));
    for (std::uint64_t done = 0; done < samples;) {
        const std::size_t n = std::size_t(std::min<std::uint64_t>(samples - done, raw.size() / bytes_per_sample));
        if (!f.read(reinterpret_cast<char*>(raw.data()), std::streamsize(n * bytes_per_sample))) throw ReadError(short_file);
        for (std::size_t i = 0; i < n; ++i)
            store(done + i, bytes_per_sample == 2 ? std::uint32_t((raw[2 * i] << 8) | raw[2 * i + 1]) : raw[i]);
        done += n;
    }
}

}  // namespace

bool is_pnm_read_here(const unsigned char* head, std::size_t n) {
    return n >= 2 && head[0] == 'P' && head[1] && std::strchr("2356", head[1]);
}

LoadedImage read_pnm(const std::string& path, std::uint64_t file_size, const ReadOptions& options,
                     const PixelAllocator& allocate_pixels) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw ReadError("cannot open: " + path_error(errno));
    const PnmHeader h = read_pnm_header(f);
    check_size(h.width, h.height, options);
    const bool wide = h.maxval > 255;
    const SampleType sample = wide ? SampleType::u16 : SampleType::u8;
    LoadedImage out;
    out.source_type = wide ? "uint16" : "uint8";
    const unsigned full = wide ? 65535 : 255;
    if (h.maxval != full)
        out.notes.push_back("the file's maxval is " + std::to_string(h.maxval) + "; samples were rescaled to 0.." +
                            std::to_string(full) + " as round(v * " + std::to_string(full) + " / " +
                            std::to_string(h.maxval) + ") (maxval " + std::to_string(h.maxval) + ")");
    const PixelFormat format = format_for(sample, h.channels);
    const std::uint64_t pixels = h.width * h.height;
    const std::uint64_t samples = pixels * std::uint64_t(h.channels);
    const std::uint64_t data_at = std::uint64_t(f.tellg());
    const std::uint64_t data_bytes = file_size > data_at ? file_size - data_at : 0;
    // Short files are refused from their size, before the pixels are allocated.
    if (!h.ascii && data_bytes < samples * (wide ? 2 : 1))
        throw ReadError("cannot read pixels (pnm): the file ends before its last pixel (" + std::to_string(h.width) +
                        " x " + std::to_string(h.height) + " pixels need " + std::to_string(samples * (wide ? 2 : 1)) +
                        " bytes, the file has " + std::to_string(data_bytes) + ")");
    out.pixels = allocate_pixels(image_bytes(pixels, format_info(format).pixel_bytes()));
    if (wide) read_pnm_samples(f, h, samples, data_bytes, reinterpret_cast<std::uint16_t*>(out.pixels.get()));
    else read_pnm_samples(f, h, samples, data_bytes, reinterpret_cast<std::uint8_t*>(out.pixels.get()));
    out.view = ImageView::packed(out.pixels.get(), std::uint32_t(h.width), std::uint32_t(h.height), format);
    return out;
}

}  // namespace imghist::io::reading
