# The file reader's sources (include/imghist/io.hpp, reader_raw.hpp), listed once: src/io builds
# them as imghist::io, fuzz/ compiles them into the reader's fuzzer.
set(IMGHIST_IO_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/reader.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_policy.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_pnm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_tiff.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_camera_raw.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_raw.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dataset.cpp ${CMAKE_CURRENT_LIST_DIR}/ev_from_white.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pixel_pool.cpp)

# JPEG decoding with TurboJPEG (reader_jpeg.cpp) for `target`, as IMGHIST_TURBOJPEG (ON, OFF or
# AUTO) asks: without it OpenImageIO decodes JPEGs. Sets IMGHIST_IO_TURBOJPEG (ON/OFF) and
# IMGHIST_IO_TURBOJPEG_NAME ("TurboJPEG 2.1.5") in the caller's scope.
function(imghist_io_use_turbojpeg target)
  set(IMGHIST_IO_TURBOJPEG OFF PARENT_SCOPE)
  string(TOUPPER "${IMGHIST_TURBOJPEG}" mode)
  if(NOT mode STREQUAL "AUTO" AND NOT IMGHIST_TURBOJPEG)
    return()
  endif()
  find_package(TurboJPEG QUIET)
  if(NOT TurboJPEG_FOUND)
    if(NOT mode STREQUAL "AUTO")
      message(FATAL_ERROR "IMGHIST_TURBOJPEG=ON but libturbojpeg (libturbojpeg0-dev) is not found")
    endif()
    return()
  endif()
  target_sources(${target} PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/reader_jpeg.cpp)
  string(STRIP "TurboJPEG ${TurboJPEG_VERSION}" name)  # no version without pkg-config
  target_compile_definitions(${target} PRIVATE IMGHIST_IO_TURBOJPEG=1 IMGHIST_IO_TURBOJPEG_NAME="${name}")
  target_link_libraries(${target} PRIVATE TurboJPEG::TurboJPEG)
  set(IMGHIST_IO_TURBOJPEG ON PARENT_SCOPE)
  set(IMGHIST_IO_TURBOJPEG_NAME "${name}" PARENT_SCOPE)
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
