# The SPIR-V reader harnesses (include from fuzz/CMakeLists.txt after the shared
# settings: needs fmag_fuzz_flags, fmag_fuzz_ir). Seeds: fuzz/run.sh assembles
# test/SPIRV's modules.
if(TARGET fmagSPIRV)
  file(GLOB fmag_fuzz_spirv ${PROJECT_SOURCE_DIR}/lib/SPIRV/*.c ${PROJECT_SOURCE_DIR}/lib/Math/*.c
       ${PROJECT_SOURCE_DIR}/lib/Transforms/*.c)
  foreach(t spirv-import-fuzz spirv-mutate-fuzz)
    string(REPLACE "-" "_" src ${t})
    add_executable(${t} ${CMAKE_CURRENT_LIST_DIR}/${src}.c ${fmag_fuzz_spirv} ${fmag_fuzz_ir})
    target_include_directories(${t} PRIVATE ${PROJECT_BINARY_DIR}/lib/SPIRV/gen)
    target_compile_options(${t} PRIVATE ${fmag_fuzz_flags})
    target_link_options(${t} PRIVATE ${fmag_fuzz_flags})
    target_link_libraries(${t} ${MATH_LIBRARY} Threads::Threads)
  endforeach()
endif()
