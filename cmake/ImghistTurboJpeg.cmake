# libjpeg-turbo's TurboJPEG API (Debian: libturbojpeg0-dev) as the imported target
# imghist::turbojpeg, found by header and library rather than pkg-config, so that a copy
# unpacked from the .debs under CMAKE_PREFIX_PATH (the GPU machine's) is found too.
# Sets IMGHIST_TURBOJPEG_FOUND.
if(NOT TARGET imghist::turbojpeg)
  find_path(IMGHIST_TURBOJPEG_INCLUDE_DIR turbojpeg.h)
  find_library(IMGHIST_TURBOJPEG_LIBRARY turbojpeg)
  if(IMGHIST_TURBOJPEG_INCLUDE_DIR AND IMGHIST_TURBOJPEG_LIBRARY)
    add_library(imghist::turbojpeg UNKNOWN IMPORTED)
    set_target_properties(imghist::turbojpeg PROPERTIES IMPORTED_LOCATION "${IMGHIST_TURBOJPEG_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${IMGHIST_TURBOJPEG_INCLUDE_DIR}")
  endif()
endif()
if(TARGET imghist::turbojpeg)
  set(IMGHIST_TURBOJPEG_FOUND ON)
else()
  set(IMGHIST_TURBOJPEG_FOUND OFF)
endif()

# imghist::io's histogram_files for `target` (the GPU JPEG tests and benchmark): the real
# imghist::io where it is built, else its pipeline (src/io/dataset.cpp, which needs nothing of
# OpenImageIO) with the TurboJPEG stand-in reader of tests/support (the GPU machine has no
# OpenImageIO).
function(imghist_link_dataset_pipeline target)
  if(TARGET imghist_io)
    target_link_libraries(${target} PRIVATE imghist_io)
  else()
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/io/dataset.cpp
                   ${PROJECT_SOURCE_DIR}/tests/support/turbojpeg_reader.cpp)
    set_source_files_properties(${PROJECT_SOURCE_DIR}/src/io/dataset.cpp TARGET_DIRECTORY ${target}
                                PROPERTIES COMPILE_DEFINITIONS IMGHIST_IO_GPU_DECODE=1)
  endif()
  target_link_libraries(${target} PRIVATE imghist::turbojpeg)
endfunction()
