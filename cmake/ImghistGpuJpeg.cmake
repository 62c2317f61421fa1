# What the GPU JPEG tests and benchmark (tests/cuda/test_cuda_jpeg.cpp,
# bench/cuda/jpeg_dataset_bench.cpp) share: TurboJPEG (cmake/FindTurboJPEG.cmake) to make and
# read their JPEGs, and io::histogram_files. Sets IMGHIST_TURBOJPEG_FOUND.
find_package(TurboJPEG QUIET)
set(IMGHIST_TURBOJPEG_FOUND ${TurboJPEG_FOUND})

# io::histogram_files for `target`: the real imghist::io where it is built, else its pipeline
# (src/io/dataset.cpp, which needs nothing of OpenImageIO) with the TurboJPEG stand-in reader
# of tests/support (the GPU machine has no OpenImageIO).
function(imghist_link_dataset_pipeline target)
  if(TARGET imghist_io)
    target_link_libraries(${target} PRIVATE imghist_io)
  else()
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/io/dataset.cpp ${PROJECT_SOURCE_DIR}/src/io/pixel_pool.cpp
                   ${PROJECT_SOURCE_DIR}/tests/support/turbojpeg_reader.cpp)
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
    set_source_files_properties(${PROJECT_SOURCE_DIR}/src/io/dataset.cpp TARGET_DIRECTORY ${target}
                                PROPERTIES COMPILE_DEFINITIONS IMGHIST_IO_GPU_DECODE=1)
  endif()
  target_link_libraries(${target} PRIVATE TurboJPEG::TurboJPEG)
endfunction()
