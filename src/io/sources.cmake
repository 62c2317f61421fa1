# The file reader's sources (include/imghist/io.hpp, reader_raw.hpp), listed once: src/io builds
# them as imghist::io, fuzz/ compiles them into the reader's fuzzer.
set(IMGHIST_IO_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/reader.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_policy.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_pnm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_tiff.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_raw.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dataset.cpp ${CMAKE_CURRENT_LIST_DIR}/pixel_pool.cpp)
