// TIFF pixels read around OpenImageIO 2.4's losses: one scanline or tile at a time, and 64-bit
// samples with libtiff, so every decoding error is reported.
#include <tiffio.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "reader_internal.hpp"
#include "reader_oiio_internal.hpp"

namespace imghist::io::reading {

namespace OIIO = OIIO_NAMESPACE;

namespace {

// 64-bit TIFF samples (double) read by OpenImageIO 2.4 come back as zeros, or are not written
// at all, for a single scanline, a partial last strip and every tile. They are read here with
// libtiff, one strip or tile at a time, so every decoding error is reported.
bool read_tiff_64bit(const std::string& path, const OIIO::ImageSpec& spec, int chbegin, int chend, std::byte* dst) {
    std::unique_ptr<TIFF, void (*)(TIFF*)> tif(TIFFOpen(path.c_str(), "r"), [](TIFF* t) { if (t) TIFFClose(t); });
    if (!tif) throw ReadError("cannot read pixels (tiff): libtiff cannot open the file");
    std::uint16_t planar = PLANARCONFIG_CONTIG, samples = 1;
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLESPERPIXEL, &samples);
    if (samples != spec.nchannels) throw ReadError("cannot read pixels (tiff): the header's channel count changed");
    const bool separate = planar == PLANARCONFIG_SEPARATE;
    const std::size_t sample_bytes = 8, out_pixel = std::size_t(chend - chbegin) * sample_bytes;
    const std::size_t block_channels = separate ? 1 : std::size_t(samples);
    std::uint32_t bw = std::uint32_t(spec.width), bh = 1;
    const bool tiled = TIFFIsTiled(tif.get());
    if (tiled) {
        TIFFGetField(tif.get(), TIFFTAG_TILEWIDTH, &bw);
        TIFFGetField(tif.get(), TIFFTAG_TILELENGTH, &bh);
    } else {
        TIFFGetFieldDefaulted(tif.get(), TIFFTAG_ROWSPERSTRIP, &bh);
        bh = std::min<std::uint32_t>(std::max<std::uint32_t>(bh, 1), std::uint32_t(spec.height));
    }
    const std::size_t block_row = std::size_t(bw) * block_channels * sample_bytes;
    std::vector<unsigned char> block(block_row * bh);
    for (int plane = separate ? chbegin : 0; plane < (separate ? chend : 1); ++plane) {
        for (std::uint32_t by = 0; by < std::uint32_t(spec.height); by += bh) {
            for (std::uint32_t bx = 0; bx < std::uint32_t(spec.width); bx += bw) {
                const tmsize_t got =
                    tiled ? TIFFReadEncodedTile(tif.get(), TIFFComputeTile(tif.get(), bx, by, 0, std::uint16_t(plane)),
                                                block.data(), tmsize_t(block.size()))
                          : TIFFReadEncodedStrip(tif.get(), TIFFComputeStrip(tif.get(), by, std::uint16_t(plane)),
                                                 block.data(), tmsize_t(block.size()));
                const std::uint32_t rows = std::min(bh, std::uint32_t(spec.height) - by);
                const std::uint32_t cols = std::min(bw, std::uint32_t(spec.width) - bx);
                if (got < 0 || std::size_t(got) < (tiled ? block.size() : std::size_t(rows) * block_row))
                    throw ReadError("cannot read pixels (tiff): decoding error in the strip or tile at row " +
                                    std::to_string(by));
                for (std::uint32_t r = 0; r < rows; ++r)
                    for (std::uint32_t x = 0; x < cols; ++x) {
                        std::byte* out = dst + ((std::size_t(by) + r) * std::size_t(spec.width) + bx + x) * out_pixel;
                        const unsigned char* in = block.data() + std::size_t(r) * block_row + std::size_t(x) * block_channels * sample_bytes;
                        if (separate) std::memcpy(out + std::size_t(plane - chbegin) * sample_bytes, in, sample_bytes);
                        else std::memcpy(out, in + std::size_t(chbegin) * sample_bytes, out_pixel);
                    }
            }
        }
    }
    return true;
}

}  // namespace

// Reads channels [chbegin, chend) of the first subimage in `type`, packed.
bool read_pixels(OIIO::ImageInput& in, const std::string& path, const OIIO::ImageSpec& spec, int chbegin, int chend, OIIO::TypeDesc type,
                 std::byte* dst) {
    if (std::string(in.format_name()) != "tiff") return in.read_image(0, 0, chbegin, chend, type, dst);
    if (type.size() == 8) return read_tiff_64bit(path, spec, chbegin, chend, dst);
    // OpenImageIO 2.4 decompresses several zip strips or tiles at once on its own and drops their
    // decoding errors, returning zeros for the broken ones. One scanline or one tile at a time goes
    // through libtiff, which reports them.
    const std::size_t pixel_bytes = std::size_t(chend - chbegin) * type.size();
    const std::size_t row_bytes = std::size_t(spec.width) * pixel_bytes;
    bool ok = true;
    if (spec.tile_width > 0 && spec.tile_height > 0) {
        for (int ty = 0; ok && ty < spec.height; ty += spec.tile_height) {
            for (int tx = 0; ok && tx < spec.width; tx += spec.tile_width) {
                const int xend = std::min(spec.width, tx + spec.tile_width);
                const int yend = std::min(spec.height, ty + spec.tile_height);
                std::byte* at = dst + std::size_t(ty) * row_bytes + std::size_t(tx) * pixel_bytes;
                ok = in.read_tiles(0, 0, spec.x + tx, spec.x + xend, spec.y + ty, spec.y + yend, spec.z, spec.z + 1,
                                   chbegin, chend, type, at, OIIO::stride_t(pixel_bytes), OIIO::stride_t(row_bytes)) &&
                     !in.has_error();
            }
        }
    } else {
        for (int y = 0; ok && y < spec.height; ++y)
            ok = in.read_scanlines(0, 0, spec.y + y, spec.y + y + 1, spec.z, chbegin, chend, type,
                                   dst + std::size_t(y) * row_bytes) &&
                 !in.has_error();
    }
    return ok;
}

}  // namespace imghist::io::reading
