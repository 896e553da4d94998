# Installation and export: `cmake --install build --prefix P` installs the public headers,
# the layer libraries, libfmag.so and libfmag.a, the user tools, the CMake package (lib/cmake/FMAG, targets
# FMAG::fmag and FMAG::<Layer>) and lib/pkgconfig/fmag.pc. docs/API.md, "Installing".
#
# Layout decision: every lib/ folder stays one static library (FMAG::IR, FMAG::VM, ...),
# compiled position-independent with hidden visibility, and libfmag.so is those same
# objects linked into one shared library that exports only what include/fmag/*.h
# declares (the headers push default visibility). FMAG::fmag is the whole library: the
# static layers by default, libfmag.so with -DBUILD_SHARED_LIBS=ON. libfmag.so is built
# either way because the Python module (python/fmag) loads it with ctypes.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FMAG_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/FMAG)
set_property(GLOBAL PROPERTY FMAG_LAYER_LIBS "")

# Called by fmag_add_library for every lib/ folder: export it as FMAG::<Layer>.
function(fmag_export_library name)
  string(REGEX REPLACE "^fmag" "" layer ${name})
  set_target_properties(${name} PROPERTIES
    EXPORT_NAME ${layer}
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden)
  # In the build tree the library's header view (cmake/FMAGLayers.cmake) instead.
  target_include_directories(${name} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(TARGETS ${name} EXPORT FMAGTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY FMAG_LAYER_LIBS ${name})
endfunction()

# Called once every library and tool exists.
function(fmag_install_package)
  get_property(layers GLOBAL PROPERTY FMAG_LAYER_LIBS)
  # Static link order (a library before the ones it calls) for fmag.pc and FMAG::fmag.
  set(order fmagAPI fmagShader fmagSPIRV fmagSL fmagMath fmagCodeGen fmagSuperopt fmagTransforms
            fmagAsmParser fmagGPU fmagIR fmagVM)
  set(ordered)
  foreach(l ${order})
    if(l IN_LIST layers)
      list(APPEND ordered ${l})
    endif()
  endforeach()
  foreach(l ${layers}) # a layer added later and not in the list above goes first
    if(NOT l IN_LIST ordered)
      list(PREPEND ordered ${l})
    endif()
  endforeach()

  # libfmag.so: every layer's objects, only the public API exported.
  set(shared_ok OFF)
  # The archives go in by path between --whole-archive flags (not as targets: CMake would
  # add each one's dependencies after the flags, twice).
  if(NOT FMAG_FUZZ)
    set(shared_ok ON)
    add_library(fmag_shared SHARED ${PROJECT_SOURCE_DIR}/cmake/fmag_shared.c)
    set(archives)
    foreach(l ${ordered})
      list(APPEND archives $<TARGET_FILE:${l}>)
    endforeach()
    add_dependencies(fmag_shared ${ordered})
    target_link_libraries(fmag_shared PRIVATE -Wl,--whole-archive ${archives} -Wl,--no-whole-archive)
    target_link_libraries(fmag_shared PRIVATE ${MATH_LIBRARY} Threads::Threads ${CMAKE_DL_LIBS})
    # Shared system libraries a layer needs (expat for lib/MaterialX).
    get_property(dyn GLOBAL PROPERTY FMAG_SHARED_DYNAMIC_LIBS)
    if(dyn)
      target_link_libraries(fmag_shared PRIVATE ${dyn})
    endif()
    # Third-party archives a layer needs (shaderc for lib/Shader, the GLSL/HLSL input) go into
    # libfmag.so too, their symbols kept local so that only FMAG's API is exported.
    get_property(extra GLOBAL PROPERTY FMAG_SHARED_EXTRA_LIBS)
    if(extra)
      set(names)
      foreach(a ${extra})
        if(a MATCHES "\\.a$")
          get_filename_component(n ${a} NAME)
          list(APPEND names ${n})
        endif()
      endforeach()
      string(REPLACE ";" ":" names "${names}")
      target_link_libraries(fmag_shared PRIVATE -Wl,--exclude-libs,${names}
                            -Wl,--start-group ${extra} -Wl,--end-group stdc++)
    endif()
    target_include_directories(fmag_shared INTERFACE
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
      $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    set_target_properties(fmag_shared PROPERTIES
      OUTPUT_NAME fmag EXPORT_NAME shared
      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
    install(TARGETS fmag_shared EXPORT FMAGTargets
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()

  # libfmag.a: the same layers as one archive, so that the conventional `-lfmag` of
  # fmag.pc links statically too (`pkg-config --static`, with -static or where only the
  # archive is present). Third-party archives stay out: fmag.pc's Requires.private and
  # Libs.private name them.
  if(shared_ok)
    set(objects)
    foreach(l ${ordered})
      list(APPEND objects $<TARGET_OBJECTS:${l}>)
    endforeach()
    add_library(fmag_static STATIC ${objects})
    set_target_properties(fmag_static PROPERTIES
      OUTPUT_NAME fmag ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
    install(TARGETS fmag_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()

  add_library(fmag INTERFACE)
  set_target_properties(fmag PROPERTIES EXPORT_NAME fmag)
  if(BUILD_SHARED_LIBS AND shared_ok)
    target_link_libraries(fmag INTERFACE fmag_shared)
  else()
    target_link_libraries(fmag INTERFACE ${ordered})
  endif()
  # fmag.pc, the conventional way whatever BUILD_SHARED_LIBS says: `Libs: -lfmag` finds
  # libfmag.so (which carries shaderc inside, its symbols hidden); what the static
  # libfmag.a needs besides comes with --static, from Libs.private as -l names: no
  # absolute paths and no linker-specific flags, so the file moves with its prefix
  # (pkg-config --define-prefix) and works with any linker. The third-party archives
  # are named there rather than through Requires.private (Debian ships
  # shaderc_combined.pc and spirv.pc): pkg-config prints Libs.private before the
  # required packages' libraries, which would put -lstdc++ before the C++ archives that
  # need it and break a static link; and spirv.pc requires glslang and SPIRV-Tools for a
  # plain shared link too, which libfmag.so does not need.
  set(pc_libs "-lfmag")
  set(pc_private "")
  get_property(extra GLOBAL PROPERTY FMAG_SHARED_EXTRA_LIBS)
  if(extra) # shaderc's archives, for lib/Shader's GLSL/HLSL input (C++: libstdc++)
    # A static link has no --start-group: each archive before the ones it calls.
    set(dep_order shaderc_combined SPIRV SPIRV-Tools-opt SPIRV-Tools glslang
                  MachineIndependent OSDependent HLSL OGLCompiler GenericCodeGen)
    set(found)
    foreach(a ${extra})
      get_filename_component(n ${a} NAME_WE)
      string(REGEX REPLACE "^lib" "" n ${n})
      list(APPEND found ${n})
    endforeach()
    foreach(n ${dep_order} ${found}) # known ones in dependency order, others after
      if(n IN_LIST found AND NOT pc_private MATCHES "-l${n} ")
        string(APPEND pc_private "-l${n} ")
      endif()
    endforeach()
    string(APPEND pc_private "-lstdc++ ")
  endif()
  get_property(pc_more GLOBAL PROPERTY FMAG_PC_PRIVATE_LIBS)
  foreach(l ${pc_more})
    string(APPEND pc_private "${l} ")
  endforeach()
  string(APPEND pc_private "-lm -lpthread")
  if(CMAKE_DL_LIBS)
    string(APPEND pc_private " -l${CMAKE_DL_LIBS}")
  endif()
  install(TARGETS fmag EXPORT FMAGTargets)

  # Headers: the public ones and the generated Version.h.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/fmag DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES ${PROJECT_BINARY_DIR}/include/fmag/Version.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fmag)

  # Tools: the user tools of SPEC §6 always; the test drivers (every other executable
  # under tools/: fmag-difftest, fmag-e2e, fmag-xdiff, fmag-accuracy, fmag-remez) are
  # built for the test suite and installed only with -DFMAG_INSTALL_DEV_TOOLS=ON, so
  # an embedder's bin/ holds what the README documents.
  set(user_tools slc fmag-opt fmag-as fmag-run superopt)
  file(GLOB dirs LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/tools/*)
  foreach(d ${dirs})
    if(IS_DIRECTORY ${d} AND EXISTS ${d}/CMakeLists.txt)
      get_property(ts DIRECTORY ${d} PROPERTY BUILDSYSTEM_TARGETS)
      foreach(t ${ts})
        get_target_property(type ${t} TYPE)
        if(type STREQUAL "EXECUTABLE" AND (t IN_LIST user_tools OR FMAG_INSTALL_DEV_TOOLS))
          install(TARGETS ${t} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
        endif()
      endforeach()
    endif()
  endforeach()

  # The Python module; it finds libfmag.so three folders up (P/lib).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/fmag
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/python3/site-packages
    PATTERN "__pycache__" EXCLUDE)

  install(EXPORT FMAGTargets NAMESPACE FMAG:: DESTINATION ${FMAG_INSTALL_CMAKEDIR})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/FMAGConfig.cmake.in
    ${PROJECT_BINARY_DIR}/cmake/FMAGConfig.cmake INSTALL_DESTINATION ${FMAG_INSTALL_CMAKEDIR})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/FMAGConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/FMAGConfig.cmake
    ${PROJECT_BINARY_DIR}/cmake/FMAGConfigVersion.cmake DESTINATION ${FMAG_INSTALL_CMAKEDIR})

  set(FMAG_PC_LIBS "${pc_libs}")
  set(FMAG_PC_PRIVATE "${pc_private}")
  set(FMAG_PC_PREFIX "@FMAG_PC_PREFIX@")
  # The prefix is substituted at install time so that --prefix P is what fmag.pc names.
  configure_file(${PROJECT_SOURCE_DIR}/cmake/fmag.pc.in ${PROJECT_BINARY_DIR}/cmake/fmag.pc.in2 @ONLY)
  install(CODE "
    file(READ \"${PROJECT_BINARY_DIR}/cmake/fmag.pc.in2\" pc)
    string(REPLACE \"@FMAG_PC_PREFIX@\" \"\${CMAKE_INSTALL_PREFIX}\" pc \"\${pc}\")
    file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/fmag.pc\" \"\${pc}\")
    message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/fmag.pc\")
  ")
endfunction()
