# Script mode helper of ImghistEmbed.cmake: INPUT -> OUTPUT as a byte array named SYMBOL.
if(INLINE_INCLUDES)
  file(STRINGS ${INPUT} lines)
  file(READ ${INPUT} text)
  string(REGEX MATCHALL "#include \"imghist/[A-Za-z0-9_.]+\"" includes "${text}")
  foreach(inc IN LISTS includes)
    string(REGEX REPLACE "#include \"(imghist/[A-Za-z0-9_.]+)\"" "\\1" header "${inc}")
    file(READ ${INCLUDE_DIR}/${header} header_text)
    string(REPLACE "${inc}" "${header_text}" text "${text}")
  endforeach()
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
