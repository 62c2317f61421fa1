// Camera raw files through LibRaw (built where IMGHIST_IO_LIBRAW is 1): the sensor's values as
// stored, before demosaicing, white balance or scaling. A Bayer mosaic becomes an rgba16 image
// of its 2 x 2 blocks, each colour position one channel (R, G1, B, G2), so that the engine
// counts each one with the 16-bit rules on every backend and no kernel learns about mosaics
// (docs/semantics.md, "Camera raw files"). The embedded preview is never decoded.
#include <libraw/libraw.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "reader_internal.hpp"

namespace imghist::io::reading {

namespace {

// LibRaw reports damaged or missing data through a callback and goes on with what it has
// (zeros): each report is counted, and a file with any is refused.
struct DataErrors {
    int count = 0;
    int offset = 0;  // where LibRaw last saw a problem (-1: the end of the file)
};

void count_data_error(void* data, const char* /*file*/, const int offset) {
    auto* errors = static_cast<DataErrors*>(data);
    ++errors->count;
    errors->offset = offset;
}

std::string libraw_failure(const char* step, int code) {
    return std::string("camera raw file that LibRaw cannot ") + step + ": " + libraw_strerror(code);
}

// The channel (LibRaw's colour: 0 R, 1 G1, 2 B, 3 G2) at each position of the 2 x 2 block,
// row by row; ReadError for anything other than an RGB Bayer pattern repeating every 2 x 2.
std::array<int, 4> bayer_positions(LibRaw& raw) {
    const auto& idata = raw.imgdata.idata;
    const std::string colours(idata.cdesc, strnlen(idata.cdesc, sizeof idata.cdesc));
    if (idata.filters == 9)
        throw ReadError("camera raw file with a Fujifilm X-Trans sensor (6 x 6 colour pattern): imghist counts "
                        "Bayer (2 x 2) mosaics only");
    if (idata.filters < 1000 || colours.rfind("RGB", 0) != 0)
        throw ReadError("camera raw file whose sensor is not an RGB Bayer mosaic (LibRaw: colours '" + colours +
                        "', filter pattern " + std::to_string(idata.filters) +
                        "): imghist counts Bayer (2 x 2) mosaics only");
    std::array<int, 4> at{};
    for (int p = 0; p < 4; ++p) at[std::size_t(p)] = raw.COLOR(p / 2, p % 2);
    std::array<int, 4> seen{};
    for (int c : at) seen[std::size_t(c & 3)] += 1;
    bool repeats = seen == std::array<int, 4>{1, 1, 1, 1};
    for (int row = 0; row < 8; ++row)  // LibRaw's pattern spans 8 rows
        for (int col = 0; col < 2; ++col) repeats = repeats && raw.COLOR(row, col) == at[std::size_t(row % 2 * 2 + col)];
    if (!repeats)
        throw ReadError("camera raw file whose colour pattern does not repeat every 2 x 2 photosites: imghist "
                        "counts Bayer mosaics only");
    return at;
}

// The black level of each channel: LibRaw's common level, its per-colour cblack[0..3], and its
// per-position pattern (cblack[4] x cblack[5] values from cblack[6]). A pattern larger than
// 2 x 2 whose values differ within a channel gives that channel its smallest, with a note.
void black_levels(const libraw_colordata_t& color, const std::array<int, 4>& at, SensorChannels& sensor,
                  std::vector<std::string>& notes) {
    const unsigned rows = color.cblack[4], cols = color.cblack[5];
    const bool pattern = rows > 0 && cols > 0 && rows * cols <= LIBRAW_CBLACK_SIZE - 6;
    for (int c = 0; c < SensorChannels::kChannels; ++c) {
        unsigned lowest = ~0u, highest = 0;
        for (unsigned row = 0; row < (pattern ? std::max(rows, 2u) : 2u); ++row)
            for (unsigned col = 0; col < (pattern ? std::max(cols, 2u) : 2u); ++col) {
                if (at[std::size_t(row % 2 * 2 + col % 2)] != c) continue;
                const unsigned extra = pattern ? color.cblack[6 + row % rows * cols + col % cols] : 0;
                lowest = std::min(lowest, extra);
                highest = std::max(highest, extra);
            }
        sensor.black[c] = color.black + color.cblack[c] + lowest;
        if (highest != lowest)
            notes.push_back(std::string("the black level of channel ") + sensor_channel_name(c) +
                            " varies by position; its smallest value is reported");
    }
    sensor.white = color.maximum;
    for (int c = 0; c < SensorChannels::kChannels; ++c)
        if (sensor.black[c] >= sensor.white)
            throw ReadError("camera raw file whose black level (" + std::to_string(sensor.black[c]) + ", channel " +
                            sensor_channel_name(c) + ") is not below its white level (" +
                            std::to_string(sensor.white) + ")");
}

// How far below saturation a sample counts as under-exposed (FastRawViewer's default).
constexpr unsigned kUnderexposedEv = 8;

// Copies the visible mosaic's whole 2 x 2 blocks into `dst` (rgba16, channel by colour) and
// measures each channel's maximum, clipping at the white level and under-exposure.
void gather_blocks(const libraw_rawdata_t& data, const libraw_image_sizes_t& sizes, const std::array<int, 4>& at,
                   std::uint16_t* dst, SensorChannels& sensor) {
    std::uint16_t offset[SensorChannels::kChannels] = {};  // what the image's samples are less
    for (int c = 0; c < SensorChannels::kChannels && sensor.black_subtracted; ++c) offset[c] = std::uint16_t(sensor.black[c]);
    const std::uint32_t block_cols = sizes.width / 2u, block_rows = sizes.height / 2u;
    const std::size_t pitch = sizes.raw_pitch / 2u;  // in samples
    for (std::uint32_t by = 0; by < block_rows; ++by) {
        const std::uint16_t* rows[2];
        for (std::uint32_t dy = 0; dy < 2; ++dy)
            rows[dy] = data.raw_image + std::size_t(sizes.top_margin + 2u * by + dy) * pitch + sizes.left_margin;
        for (std::uint32_t bx = 0; bx < block_cols; ++bx, dst += 4) {
            int clipped = 0;
            for (int p = 0; p < 4; ++p) {
                const std::uint16_t v = rows[p / 2][2u * bx + std::uint32_t(p % 2)];
                const int c = at[std::size_t(p)];
                dst[c] = v > offset[c] ? std::uint16_t(v - offset[c]) : std::uint16_t(0);
                sensor.maximum[c] = std::max<std::uint32_t>(sensor.maximum[c], v);
                if (v >= sensor.white) ++sensor.clipped[c], ++clipped;
                // 8 EV below saturation, in integers: (v - black) * 2^8 < white - black.
                if (v <= sensor.black[c] || (std::uint64_t(v - sensor.black[c]) << kUnderexposedEv) <
                                                std::uint64_t(sensor.white - sensor.black[c]))
                    ++sensor.underexposed[c];
            }
            sensor.clipped_any += clipped > 0;
            sensor.clipped_all += clipped == 4;
        }
    }
    sensor.blocks = std::uint64_t(block_cols) * block_rows;
}

// Opens and unpacks the file, refusing from the header what check_size() refuses.
void unpack(LibRaw& raw, const std::string& path, const ReadOptions& options, DataErrors& errors) {
    raw.set_dataerror_handler(count_data_error, &errors);
    if (const int rc = raw.open_file(path.c_str()); rc != LIBRAW_SUCCESS) throw ReadError(libraw_failure("open", rc));
    const auto& sizes = raw.imgdata.sizes;
    check_size(sizes.raw_width, sizes.raw_height, options);  // what unpack() allocates
    if (sizes.width < 2 || sizes.height < 2)
        throw ReadError("camera raw file whose visible area (" + std::to_string(sizes.width) + " x " +
                        std::to_string(sizes.height) + ") holds no whole 2 x 2 block");
    (void)bayer_positions(raw);  // refused before the mosaic is decoded
    if (const int rc = raw.unpack(); rc != LIBRAW_SUCCESS) throw ReadError(libraw_failure("decode", rc));
    if (errors.count > 0)
        throw ReadError(std::string("camera raw file with damaged sensor data: LibRaw reports ") +
                        (errors.offset < 0 ? "an unexpected end of file" : "corrupt data near byte " +
                                                                               std::to_string(errors.offset)));
    if (!raw.imgdata.rawdata.raw_image)
        throw ReadError("camera raw file without a colour filter array mosaic (LibRaw gives it as " +
                        std::string(raw.imgdata.rawdata.float_image ? "floating-point" : "colour") +
                        " pixels): imghist counts Bayer mosaics only");
}

}  // namespace

LoadedImage read_camera_raw(const std::string& path, const ReadOptions& options, const PixelAllocator& allocate_pixels) {
    auto raw = std::make_unique<LibRaw>(0);  // about a megabyte: not on the stack
    DataErrors errors;
    unpack(*raw, path, options, errors);
    const std::array<int, 4> at = bayer_positions(*raw);
    LoadedImage out;
    SensorChannels sensor;
    for (int p = 0; p < 4; ++p) sensor.pattern[p] = "RGBG"[at[std::size_t(p)]];
    sensor.bits = std::uint32_t(raw->imgdata.color.raw_bps);
    black_levels(raw->imgdata.rawdata.color, at, sensor, out.notes);
    sensor.black_subtracted = options.subtract_black;
    sensor.ev_per_stop = options.ev_from_white;
    const auto& sizes = raw->imgdata.sizes;
    const std::uint32_t width = sizes.width / 2u, height = sizes.height / 2u;
    out.pixels = allocate_pixels(image_bytes(std::uint64_t(width) * height, 4 * sizeof(std::uint16_t)));
    gather_blocks(raw->imgdata.rawdata, sizes, at, reinterpret_cast<std::uint16_t*>(out.pixels.get()), sensor);
    if (sizes.width % 2 || sizes.height % 2)
        out.notes.push_back("the visible area is " + std::to_string(sizes.width) + " x " +
                            std::to_string(sizes.height) + " photosites: the last odd row or column was not counted");
    if (raw->imgdata.thumbnail.twidth > 0)
        out.notes.push_back("the embedded " + std::to_string(raw->imgdata.thumbnail.twidth) + " x " +
                            std::to_string(raw->imgdata.thumbnail.theight) + " preview was not counted");
    out.source_type = "uint16";
    out.sensor = sensor;
    out.view = ImageView::packed(out.pixels.get(), width, height, PixelFormat::rgba16);
    return out;
}

}  // namespace imghist::io::reading
