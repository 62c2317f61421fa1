# imghist_embed(<target> <input> <symbol> [INLINE_INCLUDES])
# Turns a kernel source or SPIR-V file into a C++ byte array at build time, so kernels stay
# real .cl/.comp/.cu files and nothing compiled is committed. The generated file defines
#   extern const unsigned char <symbol>[]; extern const unsigned long long <symbol>_size;
# With INLINE_INCLUDES, lines `#include "contract/<name>"` are replaced by that header's text
# (OpenCL C gets the contract, src/contract/, this way).
set(IMGHIST_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_file.cmake)
function(imghist_embed target input symbol)
  cmake_parse_arguments(ARG "INLINE_INCLUDES" "" "DEPENDS" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cpp)
  set(deps ${input} ${IMGHIST_EMBED_SCRIPT} ${ARG_DEPENDS})
  if(ARG_INLINE_INCLUDES)
    file(GLOB headers ${PROJECT_SOURCE_DIR}/src/contract/*.h)
    list(APPEND deps ${headers})
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${out} -DSYMBOL=${symbol}
            -DINLINE_INCLUDES=${ARG_INLINE_INCLUDES} -DINCLUDE_DIR=${PROJECT_SOURCE_DIR}/src
            -P ${IMGHIST_EMBED_SCRIPT}
    DEPENDS ${deps}
    COMMENT "Embedding ${symbol}"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
  # A custom command's rule belongs to targets of the directory that adds it. When the target
  # lives elsewhere (backends add to `imghist` from their own folders), a target here makes
  # the rule run before the target compiles the generated file.
  get_target_property(target_dir ${target} SOURCE_DIR)
  if(NOT target_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    add_custom_target(${symbol}_embed DEPENDS ${out})
    add_dependencies(${target} ${symbol}_embed)
  endif()
endfunction()
