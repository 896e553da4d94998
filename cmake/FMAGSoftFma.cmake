# gen/SoftFma.inc for lib/VM/EmitSource.c: the software fma of gpu/fmag_interp.glsl (its
# one source) as C string lines, by utils/glsl_snippet.py at configure time. Used by
# lib/VM/CMakeLists.txt and by the wasm build (web/CMakeLists.txt), which compiles
# lib/VM's sources itself. Adds the folder to `target`'s private include directories.
function(fmag_soft_fma_inc target src_root out_dir)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  execute_process(COMMAND ${Python3_EXECUTABLE} ${src_root}/utils/glsl_snippet.py
                          ${src_root}/gpu/fmag_interp.glsl fmag_soft_fma ${out_dir}/SoftFma.inc
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "utils/glsl_snippet.py failed on gpu/fmag_interp.glsl")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${src_root}/gpu/fmag_interp.glsl ${src_root}/utils/glsl_snippet.py)
  target_include_directories(${target} PRIVATE ${out_dir})
endfunction()
