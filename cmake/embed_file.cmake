# Script mode helper of ImghistEmbed.cmake: INPUT -> OUTPUT as a byte array named SYMBOL.
cmake_policy(VERSION 3.25)
if(INLINE_INCLUDES)
  # Replaces each `#include "contract/<name>"` (the contract's headers) and
  # `#include "backends/opencl/<name>"` (the OpenCL kernels' own parts) with that file's text,
  # recursively; a file already inlined becomes empty (its include guard would drop it anyway).
  file(READ ${INPUT} text)
  set(done "")
  set(inlined "#include \"((contract|backends/opencl)/[A-Za-z0-9_.]+)\"")
  while(TRUE)
    string(REGEX MATCH "${inlined}" inc "${text}")
    if(NOT inc)
      break()
    endif()
    string(REGEX REPLACE "${inlined}" "\\1" header "${inc}")
    if(header IN_LIST done)
      set(header_text "")
    else()
      file(READ ${INCLUDE_DIR}/${header} header_text)
      list(APPEND done ${header})
    endif()
    string(FIND "${text}" "${inc}" at)
    string(LENGTH "${inc}" inc_length)
    string(SUBSTRING "${text}" 0 ${at} before)
    math(EXPR after_start "${at} + ${inc_length}")
    string(SUBSTRING "${text}" ${after_start} -1 after)
    set(text "${before}${header_text}${after}")
  endwhile()
  set(tmp ${OUTPUT}.src)
  file(WRITE ${tmp} "${text}")
  set(INPUT ${tmp})
endif()
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUTPUT}
  "// Generated from ${INPUT} by cmake/embed_file.cmake; do not edit.\n"
  "extern const unsigned char ${SYMBOL}[];\nextern const unsigned long long ${SYMBOL}_size;\n"
  "const unsigned char ${SYMBOL}[] = {\n${bytes}0x00};\n"
  "const unsigned long long ${SYMBOL}_size = ${size};\n")
