// What OpenImageIO's side of the reader shares (reader_oiio.cpp, reader_tiff.cpp): only files
// built into libimghist_oiio.so (or imghist::io) include it.
#pragma once

#include <OpenImageIO/imageio.h>

#include <cstddef>
#include <string>

#include "imghist/io.hpp"

namespace imghist::io::reading {

// Reads channels [chbegin, chend) of the first subimage in `type`, packed: through OpenImageIO,
// and TIFF around its losses (reader_tiff.cpp).
bool read_pixels(OIIO_NAMESPACE::ImageInput& in, const std::string& path, const OIIO_NAMESPACE::ImageSpec& spec,
                 int chbegin, int chend, OIIO_NAMESPACE::TypeDesc type, std::byte* dst);

}  // namespace imghist::io::reading
