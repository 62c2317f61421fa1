# The file reader's sources (include/imghist/io.hpp, reader_raw.hpp), listed once: src/io builds
# them as imghist::io, src/cli as the command's reader and its OpenImageIO module, fuzz/ compiles
# them into the reader's fuzzer.
# The reader without OpenImageIO's readers, which it reaches through oiio() (oiio_readers.hpp).
set(IMGHIST_IO_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/reader.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_policy.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_pnm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_camera_raw.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_raw.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dataset.cpp ${CMAKE_CURRENT_LIST_DIR}/ev_from_white.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pixel_pool.cpp)
# OpenImageIO's readers (with libtiff): linked in, or the command's module libimghist_oiio.so.
set(IMGHIST_IO_OIIO_SOURCES ${CMAKE_CURRENT_LIST_DIR}/reader_oiio.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_tiff.cpp)
# The whole reader, OpenImageIO's readers linked in.
set(IMGHIST_IO_SOURCES ${IMGHIST_IO_CORE_SOURCES} ${IMGHIST_IO_OIIO_SOURCES} ${CMAKE_CURRENT_LIST_DIR}/oiio_linked.cpp)

# The optional decoders imghist reads with itself (libpng, TurboJPEG, LibRaw, libheif) for
# `target`, as IMGHIST_LIBPNG, IMGHIST_TURBOJPEG, IMGHIST_LIBRAW and IMGHIST_LIBHEIF ask; sets the variables of each below in
# the caller's scope.
macro(imghist_io_use_own_decoders target)
  imghist_io_use_libpng(${target})
  imghist_io_use_turbojpeg(${target})
  imghist_io_use_libraw(${target})
  imghist_io_use_libheif(${target})
endmacro()

# Sets `out` to ON where the optional decoder `option` (IMGHIST_LIBPNG, ...: ON, OFF or AUTO)
# asks for its library and `found` says it was found, else OFF; ON without it fails the
# configure, naming `library`.
function(imghist_io_decoder_usable option found library out)
  string(TOUPPER "${${option}}" mode)
  set(${out} OFF PARENT_SCOPE)
  if(mode STREQUAL "AUTO" OR ${option})
    if(${found})
      set(${out} ON PARENT_SCOPE)
    elseif(NOT mode STREQUAL "AUTO")
      message(FATAL_ERROR "${option}=ON but ${library} is not found")
    endif()
  endif()
endfunction()

# Adds an optional decoder's source, its definition (IMGHIST_IO_LIBPNG=1, ...) and its library.
function(imghist_io_add_decoder target source definition library)
  target_sources(${target} PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${source})
  target_compile_definitions(${target} PRIVATE ${definition}=1)
  target_link_libraries(${target} PRIVATE ${library})
endfunction()

# PNG decoding with libpng (reader_png.cpp) for `target`, as IMGHIST_LIBPNG (ON, OFF or AUTO) asks:
# without it OpenImageIO decodes every PNG. Sets IMGHIST_IO_LIBPNG (ON/OFF) in the caller's scope.
function(imghist_io_use_libpng target)
  find_package(PNG QUIET)
  imghist_io_decoder_usable(IMGHIST_LIBPNG PNG_FOUND "libpng (libpng-dev)" use)
  set(IMGHIST_IO_LIBPNG ${use} PARENT_SCOPE)
  if(use)
    imghist_io_add_decoder(${target} reader_png.cpp IMGHIST_IO_LIBPNG PNG::PNG)
  endif()
endfunction()

# JPEG decoding with TurboJPEG (reader_jpeg.cpp) for `target`, as IMGHIST_TURBOJPEG (ON, OFF or
# AUTO) asks: without it OpenImageIO decodes JPEGs. Sets IMGHIST_IO_TURBOJPEG (ON/OFF) and
# IMGHIST_IO_TURBOJPEG_NAME ("TurboJPEG 2.1.5") in the caller's scope.
function(imghist_io_use_turbojpeg target)
  find_package(TurboJPEG QUIET)
  imghist_io_decoder_usable(IMGHIST_TURBOJPEG TurboJPEG_FOUND "libturbojpeg (libturbojpeg0-dev)" use)
  set(IMGHIST_IO_TURBOJPEG ${use} PARENT_SCOPE)
  if(use)
    imghist_io_add_decoder(${target} reader_jpeg.cpp IMGHIST_IO_TURBOJPEG TurboJPEG::TurboJPEG)
    string(STRIP "TurboJPEG ${TurboJPEG_VERSION}" name)  # no version without pkg-config
    target_compile_definitions(${target} PRIVATE IMGHIST_IO_TURBOJPEG_NAME="${name}")
    set(IMGHIST_IO_TURBOJPEG_NAME "${name}" PARENT_SCOPE)
  endif()
endfunction()

# Camera raw files through LibRaw (reader_libraw.cpp) for `target`, as IMGHIST_LIBRAW (ON, OFF or
# AUTO) asks, found with pkg-config as libraw_r (LibRaw's thread-safe build: --decode-in-process
# reads files on several threads): without it camera raw files are refused. Sets
# IMGHIST_IO_LIBRAW (ON/OFF) and IMGHIST_IO_LIBRAW_VERSION in the caller's scope.
function(imghist_io_use_libraw target)
  set(IMGHIST_IO_LIBRAW OFF PARENT_SCOPE)
  string(TOUPPER "${IMGHIST_LIBRAW}" mode)
  if(NOT mode STREQUAL "AUTO" AND NOT IMGHIST_LIBRAW)
    return()
  endif()
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(LIBRAW QUIET IMPORTED_TARGET libraw_r)
  endif()
  if(NOT LIBRAW_FOUND)
    if(NOT mode STREQUAL "AUTO")
      message(FATAL_ERROR "IMGHIST_LIBRAW=ON but LibRaw (libraw-dev, pkg-config libraw_r) is not found")
    endif()
    return()
  endif()
  target_sources(${target} PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/reader_libraw.cpp)
  target_compile_definitions(${target} PRIVATE IMGHIST_IO_LIBRAW=1)
  target_link_libraries(${target} PRIVATE PkgConfig::LIBRAW)
  set(IMGHIST_IO_LIBRAW ON PARENT_SCOPE)
  set(IMGHIST_IO_LIBRAW_VERSION "${LIBRAW_VERSION}" PARENT_SCOPE)
endfunction()

# HEIC/HEIF and AVIF through libheif (reader_heif.cpp) for `target`, as IMGHIST_LIBHEIF (ON, OFF
# or AUTO) asks, found with pkg-config as libheif: without it they are OpenImageIO's (8-bit,
# with --untrusted-readers). Sets IMGHIST_IO_LIBHEIF (ON/OFF) and IMGHIST_IO_LIBHEIF_VERSION.
function(imghist_io_use_libheif target)
  set(IMGHIST_IO_LIBHEIF OFF PARENT_SCOPE)
  string(TOUPPER "${IMGHIST_LIBHEIF}" mode)
  if(NOT mode STREQUAL "AUTO" AND NOT IMGHIST_LIBHEIF)
    return()
  endif()
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(LIBHEIF QUIET IMPORTED_TARGET libheif)
  endif()
  if(NOT LIBHEIF_FOUND)
    if(NOT mode STREQUAL "AUTO")
      message(FATAL_ERROR "IMGHIST_LIBHEIF=ON but libheif (libheif-dev) is not found")
    endif()
    return()
  endif()
  target_sources(${target} PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/reader_heif.cpp)
  target_compile_definitions(${target} PRIVATE IMGHIST_IO_LIBHEIF=1)
  target_link_libraries(${target} PRIVATE PkgConfig::LIBHEIF)
  set(IMGHIST_IO_LIBHEIF ON PARENT_SCOPE)
  set(IMGHIST_IO_LIBHEIF_VERSION "${LIBHEIF_VERSION}" PARENT_SCOPE)
endfunction()
