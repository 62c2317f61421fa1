# The command's file reader (reader.hpp, reader_raw.hpp), listed once: src/cli builds it as the
# imghist_cli_reader library, fuzz/ compiles it into the reader's fuzzer.
set(IMGHIST_CLI_READER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/reader.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_policy.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_pnm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_tiff.cpp ${CMAKE_CURRENT_LIST_DIR}/reader_raw.cpp)
