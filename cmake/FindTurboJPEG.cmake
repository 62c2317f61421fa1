# Finds libjpeg-turbo's TurboJPEG API (turbojpeg.h, libturbojpeg; Debian: libturbojpeg0-dev) and
# defines the imported target TurboJPEG::TurboJPEG. pkg-config's libturbojpeg gives the paths and
# the version where it is in view; otherwise the header and the library are searched for, so an
# installed imghist::io (imghistConfig.cmake loads this file) finds it without pkg-config.
# Sets TurboJPEG_FOUND and TurboJPEG_VERSION (empty without pkg-config).
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_TurboJPEG QUIET libturbojpeg)
endif()
find_path(TurboJPEG_INCLUDE_DIR turbojpeg.h HINTS ${PC_TurboJPEG_INCLUDE_DIRS})
find_library(TurboJPEG_LIBRARY NAMES turbojpeg HINTS ${PC_TurboJPEG_LIBRARY_DIRS})
set(TurboJPEG_VERSION "${PC_TurboJPEG_VERSION}")

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(TurboJPEG REQUIRED_VARS TurboJPEG_LIBRARY TurboJPEG_INCLUDE_DIR
                                  VERSION_VAR TurboJPEG_VERSION)
mark_as_advanced(TurboJPEG_INCLUDE_DIR TurboJPEG_LIBRARY)

if(TurboJPEG_FOUND AND NOT TARGET TurboJPEG::TurboJPEG)
  add_library(TurboJPEG::TurboJPEG UNKNOWN IMPORTED)
  set_target_properties(TurboJPEG::TurboJPEG PROPERTIES IMPORTED_LOCATION "${TurboJPEG_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${TurboJPEG_INCLUDE_DIR}")
endif()
