# The compile-and-run harness (include from fuzz/CMakeLists.txt after the shared
# settings: needs fmag_fuzz_flags, fmag_fuzz_ir, fmag_fuzz_vm, fmag_fuzz_asm,
# fmag_fuzz_gen). It includes tools/fmag-e2e/fmag-e2e.c for the generator and the checks.
file(GLOB fmag_fuzz_e2e ${PROJECT_SOURCE_DIR}/lib/CodeGen/*.c ${PROJECT_SOURCE_DIR}/lib/Transforms/*.c
     ${PROJECT_SOURCE_DIR}/lib/Math/*.c
     # the option parser fmag-e2e.c uses (not Compile.c: that is the API's driver)
     ${PROJECT_SOURCE_DIR}/tools/common/Options.c ${PROJECT_SOURCE_DIR}/tools/common/Diag.c
     ${PROJECT_SOURCE_DIR}/tools/common/ReadFile.c ${PROJECT_SOURCE_DIR}/tools/common/FileKind.c)
add_executable(e2e-fuzz ${CMAKE_CURRENT_LIST_DIR}/e2e_fuzz.c ${fmag_fuzz_e2e} ${fmag_fuzz_ir}
               ${fmag_fuzz_vm} ${fmag_fuzz_asm})
target_compile_options(e2e-fuzz PRIVATE ${fmag_fuzz_flags})
target_include_directories(e2e-fuzz PRIVATE ${PROJECT_SOURCE_DIR}/lib/CodeGen ${PROJECT_SOURCE_DIR}/tools/common)
target_link_options(e2e-fuzz PRIVATE ${fmag_fuzz_flags})
target_link_libraries(e2e-fuzz ${MATH_LIBRARY} Threads::Threads)
target_include_directories(e2e-fuzz PRIVATE ${fmag_fuzz_gen}) # SoftFma.inc (CMakeLists.txt)
