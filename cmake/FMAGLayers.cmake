# Layer visibility: a library compiles against the public headers of the libraries it
# links (directly or through them) and no others, so a missing link edge is a compile
# error instead of a surprise at link time or in a smaller embedding.
#
# The headers stay together in include/fmag/ (that is what gets installed). In the build
# tree every library has its own include folder, build/layers/<lib>/fmag/, holding
# symbolic links to the headers it owns (the table below); fmag_add_library puts that
# folder in the library's PUBLIC include directories, so it reaches exactly the targets
# that link the library. lib/ gets no global include directory (the top-level
# include_directories comes after the libraries: tools, tests and benchmarks see every
# header). The header-only Bits.h and the generated Version.h are in every library's
# view (build/layers/base). docs/Architecture.md, "Layers and dependencies".

# include/fmag/ header -> the library that owns it. A new public header goes here too:
# configuring fails while one is missing.
set(FMAG_LAYER_HEADERS_fmagVM VM.h)
set(FMAG_LAYER_HEADERS_fmagIR IR.h Context.h FloatText.h Sugar.def IntOps.def)
set(FMAG_LAYER_HEADERS_fmagAsmParser Asm.h)
set(FMAG_LAYER_HEADERS_fmagTransforms Transforms.h Passes.def PeepholeRules.h)
set(FMAG_LAYER_HEADERS_fmagCodeGen CodeGen.h)
set(FMAG_LAYER_HEADERS_fmagMath Math.h)
set(FMAG_LAYER_HEADERS_fmagSL SL.h)
set(FMAG_LAYER_HEADERS_fmagSuperopt Superopt.h SuperoptRules.h)
set(FMAG_LAYER_HEADERS_fmagGPU GPU.h)
set(FMAG_LAYER_HEADERS_fmagSPIRV SPIRV.h)
set(FMAG_LAYER_HEADERS_fmagShader Shader.h)
set(FMAG_LAYER_HEADERS_fmagMaterialX MaterialX.h)
set(FMAG_LAYER_HEADERS_fmagAPI fmag.h)
set(FMAG_LAYER_HEADERS_base Bits.h) # header-only: no link edge needed
set(FMAG_LAYER_LIBS fmagVM fmagIR fmagAsmParser fmagTransforms fmagCodeGen fmagMath fmagSL
                    fmagSuperopt fmagGPU fmagSPIRV fmagShader fmagMaterialX fmagAPI base)

# Every header has exactly one owner.
file(GLOB fmag_public_headers RELATIVE ${PROJECT_SOURCE_DIR}/include/fmag
     ${PROJECT_SOURCE_DIR}/include/fmag/*)
foreach(h ${fmag_public_headers})
  set(owners)
  foreach(l ${FMAG_LAYER_LIBS})
    if(h IN_LIST FMAG_LAYER_HEADERS_${l})
      list(APPEND owners ${l})
    endif()
  endforeach()
  list(LENGTH owners n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "include/fmag/${h} is owned by ${n} libraries (${owners}); list it "
                        "once in cmake/FMAGLayers.cmake (FMAG_LAYER_HEADERS_<library>)")
  endif()
endforeach()

# build/layers/<lib>/fmag/<header> -> include/fmag/<header>, rebuilt at every configure so
# that a header taken off a list disappears from the view.
function(fmag_layer_view lib)
  set(dir ${PROJECT_BINARY_DIR}/layers/${lib})
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir}/fmag)
  foreach(h ${FMAG_LAYER_HEADERS_${lib}})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/fmag/${h} ${dir}/fmag/${h} SYMBOLIC)
  endforeach()
endfunction()

fmag_layer_view(base)
file(CREATE_LINK ${PROJECT_BINARY_DIR}/include/fmag/Version.h
     ${PROJECT_BINARY_DIR}/layers/base/fmag/Version.h SYMBOLIC)

# Called by fmag_add_library: the library's own view and the base one, passed on to
# whatever links it (build tree only; an installed FMAG has every header in one folder).
function(fmag_layer_includes lib)
  fmag_layer_view(${lib})
  target_include_directories(${lib} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/layers/${lib}>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/layers/base>)
endfunction()

# The CTest `layer-includes` (called once every library exists): for every library and
# every public header, `#include "fmag/<header>"` compiled with the library's own include
# directories must succeed exactly when the header's owner is the library, one it links
# (directly or transitively) or base. cmake/CheckLayers.cmake runs the compiles.
function(fmag_add_layer_test)
  set(rows "")
  foreach(l ${FMAG_LAYER_LIBS})
    if(NOT TARGET ${l})
      continue()
    endif()
    # the fmag libraries l links, transitively
    set(closure ${l})
    set(todo ${l})
    while(todo)
      list(POP_FRONT todo t)
      get_target_property(deps ${t} LINK_LIBRARIES)
      foreach(d ${deps})
        if(TARGET ${d} AND d MATCHES "^fmag" AND NOT d IN_LIST closure)
          list(APPEND closure ${d})
          list(APPEND todo ${d})
        endif()
      endforeach()
    endwhile()
    set(visible ${FMAG_LAYER_HEADERS_base})
    foreach(d ${closure})
      list(APPEND visible ${FMAG_LAYER_HEADERS_${d}})
    endforeach()
    string(REPLACE ";" "," visible "${visible}")
    string(APPEND rows "${l}|${visible}|$<JOIN:$<TARGET_PROPERTY:${l},INCLUDE_DIRECTORIES>,,>\n")
  endforeach()
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/layers/layers.txt CONTENT "${rows}")
  add_test(NAME layer-includes
    COMMAND ${CMAKE_COMMAND} -DCC=${CMAKE_C_COMPILER} -DTABLE=${PROJECT_BINARY_DIR}/layers/layers.txt
            -DHEADERS=${PROJECT_SOURCE_DIR}/include/fmag -DWORK=${PROJECT_BINARY_DIR}/layers/check
            -P ${PROJECT_SOURCE_DIR}/cmake/CheckLayers.cmake)
endfunction()
