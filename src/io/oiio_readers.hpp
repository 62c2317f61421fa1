// OpenImageIO's part of the reader, reached through one table of functions so that it can live
// in a module of its own (libimghist_oiio.so) that the command loads only when a file needs it:
// loading OpenImageIO and its 260 libraries costs about 0.3 s of CPU, more than reading a small
// file. imghist::io links the table in directly (oiio_linked.cpp); the command links
// oiio_loader.cpp instead, which finds the module beside itself.
#pragma once

#include <string>

#include "imghist/io.hpp"

namespace imghist::io::reading {

struct OiioReaders {
    // The file read by OpenImageIO's `reader` (the name choose_reader() gives).
    LoadedImage (*read)(const std::string& path, const std::string& reader, const ReadOptions& options,
                        const PixelAllocator& allocate_pixels);
    // OpenImageIO's "tiff:tif,tiff;jpeg:jpg,..." list of every reader compiled into it.
    std::string (*extension_list)();
    // "OpenImageIO 2.4.7".
    std::string (*version)();
    // The decoder threads OpenImageIO may start for one file.
    void (*set_threads)(unsigned threads);
};

// OpenImageIO's readers, configured (process-wide settings, the threads last asked for) on the
// first call; where they live in a module, the first call loads it, and a module that cannot be
// loaded is a ReadError.
const OiioReaders& oiio();
// Whether oiio() has been called: asking loads nothing.
bool oiio_loaded();

// Where the table comes from: oiio_linked.cpp or oiio_loader.cpp (one of them is linked).
const OiioReaders& find_oiio_readers();

}  // namespace imghist::io::reading

// The module's one entry point (reader_oiio.cpp).
extern "C" const imghist::io::reading::OiioReaders* imghist_oiio_readers();
