# What every optional backend's CMakeLists.txt (src/backends/<name>/) does around its own
# sources, once. Macros, not functions: they run in the backend directory's scope, so
# PARENT_SCOPE reaches the top-level directory.

# A backend's dependency is missing: an error when IMGHIST_<NAME>=ON, else a status line. The
# caller returns afterwards.
macro(imghist_backend_missing name what)
  string(TOUPPER ${name} _upper)
  if(IMGHIST_${_upper} STREQUAL "ON")
    message(FATAL_ERROR "IMGHIST_${_upper}=ON but ${what}")
  endif()
  message(STATUS "${name} backend: off (${what})")
endmacro()

# A backend is built into imghist: its IMGHIST_WITH_<NAME> definition, its runtime linked
# privately, the find_dependency() line for imghistConfig.cmake, the libraries for imghist.pc,
# and IMGHIST_HAVE_<NAME> for the benchmarks and tests.
#   imghist_backend_enable(<name> LINK <targets...> DEPENDENCY <package> PC_LIBS <flags>)
macro(imghist_backend_enable name)
  cmake_parse_arguments(_be "" "DEPENDENCY;PC_LIBS" "LINK" ${ARGN})
  string(TOUPPER ${name} _upper)
  target_compile_definitions(imghist PRIVATE IMGHIST_WITH_${_upper})
  target_link_libraries(imghist PRIVATE ${_be_LINK})
  set_property(GLOBAL APPEND PROPERTY IMGHIST_CONFIG_DEPENDENCIES "find_dependency(${_be_DEPENDENCY})")
  set_property(GLOBAL APPEND PROPERTY IMGHIST_PC_LIBS_PRIVATE "${_be_PC_LIBS}")
  set(IMGHIST_HAVE_${_upper} ON PARENT_SCOPE)
endmacro()

# In tests/ and bench/: add <dir>/<name>/ for every GPU backend that is built and has one.
macro(imghist_add_backend_subdirectories)
  foreach(_b opencl vulkan cuda)
    string(TOUPPER ${_b} _upper)
    if(IMGHIST_HAVE_${_upper} AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${_b}/CMakeLists.txt)
      add_subdirectory(${_b})
    endif()
  endforeach()
endmacro()
