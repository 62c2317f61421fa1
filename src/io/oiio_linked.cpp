// OpenImageIO's readers linked into the program (imghist::io, the Python module, the tests).
#include "oiio_readers.hpp"

const imghist::io::reading::OiioReaders& imghist::io::reading::find_oiio_readers() { return *imghist_oiio_readers(); }
