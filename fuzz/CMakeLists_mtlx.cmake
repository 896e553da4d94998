# The MaterialX reader harness (include from fuzz/CMakeLists.txt after the shared
# settings: needs fmag_fuzz_flags, fmag_fuzz_ir; expat from the system). Seeds:
# test/MaterialX/*.mtlx and test/MaterialX/Inputs/*.mtlx.
find_package(EXPAT)
if(EXPAT_FOUND)
  file(GLOB fmag_fuzz_mtlx ${PROJECT_SOURCE_DIR}/lib/MaterialX/*.c ${PROJECT_SOURCE_DIR}/lib/Math/*.c
       ${PROJECT_SOURCE_DIR}/lib/Transforms/*.c)
  add_executable(mtlx-fuzz ${CMAKE_CURRENT_LIST_DIR}/mtlx_fuzz.c ${fmag_fuzz_mtlx} ${fmag_fuzz_ir})
  target_compile_options(mtlx-fuzz PRIVATE ${fmag_fuzz_flags})
  target_link_options(mtlx-fuzz PRIVATE ${fmag_fuzz_flags})
  target_link_libraries(mtlx-fuzz ${EXPAT_LIBRARIES} ${MATH_LIBRARY} Threads::Threads)
endif()
