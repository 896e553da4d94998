# The SL frontend harness (include from fuzz/CMakeLists.txt after the shared
# settings: needs fmag_fuzz_flags, fmag_fuzz_ir). Seeds: examples/*.sl and test/SL/*.sl.
file(GLOB fmag_fuzz_sl ${PROJECT_SOURCE_DIR}/lib/SL/*.c ${PROJECT_SOURCE_DIR}/lib/Math/*.c
     ${PROJECT_SOURCE_DIR}/lib/Transforms/*.c)
add_executable(slc-fuzz ${CMAKE_CURRENT_LIST_DIR}/slc_fuzz.c ${fmag_fuzz_sl} ${fmag_fuzz_ir})
target_compile_options(slc-fuzz PRIVATE ${fmag_fuzz_flags})
target_link_options(slc-fuzz PRIVATE ${fmag_fuzz_flags})
target_link_libraries(slc-fuzz ${MATH_LIBRARY} Threads::Threads)
