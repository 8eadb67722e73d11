# kopt_problem_library: a problem's shipped library from one template
# (kernels/common/template) and the problem's description, which `kopt
# export` writes beside the kernels (generated/library.cmake). Called from
# kernels/<problem>/CMakeLists.txt; adds
#   <name>_host     plain C++, no GPU runtime: the last error and HOST_SOURCES
#                   (e.g. importers of engines' weight formats)
#   <name>          the static library: the generated C API, the generated
#                   kernels and GPU_SOURCES
#   <name>_example  the problem's example (example/example.cpp), if it has one
#   <name>_shared   with PYTHON: the same library as a shared object in
#                   BUILD/python/<name>/, beside the package's Python files
#                   (python/<name>/__init__.py and kernels/common/python/
#                   _core.py, which every binding shares): PYTHONPATH=BUILD/python
# and installs the library, its header (and EXTRA_HEADER) and a CMake package
# (find_package(<name> <major>.<minor>)).
#
#   kopt_problem_library(VERSION 1.2.1
#     [EXTENSION <type> <header>]   kernels of the library's own beside the
#                                   dispatch table (kernels/common/kopt_library.h)
#     [EXTRA_HEADER <file>]         public declarations the library adds,
#                                   included at the end of its header
#     [HOST_SOURCES ...] [GPU_SOURCES ...] [PRIVATE_INCLUDES ...]
#     [PYTHON])                     the Python binding (above)
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

# The generated entries whose kernel source reads x and writes y through the
# dtype hooks (KOPT_X_PAIR and KOPT_Y_STORE, problems/common/
# device_io_hooks.hip, as the gen seed does) built once
# more for each other dtype pair of kKoptNativeIo (fp16 to fp16, bf16 to
# bf16): a source per entry and pair that includes the entry under names of
# its own (kopt_entry_pair.h), and their table (${out}/kopt_entry_pairs.inc,
# KOPT_ENTRY_PAIRS lines, included by kopt_dispatch_tables.inc). So one row in
# an engine's dtypes runs the entry's own kernel, with no conversion kernels
# around it. The sources go into `result`.
function(kopt_entry_pairs name kernels generated out result)
  set(sources "")
  set(table "// Written by kopt_problem_library (cmake/KoptLibrary.cmake): the entries built for\n")
  string(APPEND table "// every dtype pair of kKoptNativeIo (kernels/common/kopt_entry_pair.h).\n")
  foreach(kernel ${kernels})
    # Read at configure time: a re-export that changes an entry (or the
    # source it names) configures again, so the pair builds follow the hooks.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${kernel})
    file(STRINGS ${kernel} marker REGEX "^// ---- candidate source: [^ ]+ ----$")
    string(REGEX REPLACE "^// ---- candidate source: ([^ ]+) ----$" "\\1" source "${marker}")
    if(NOT marker OR NOT EXISTS ${generated}/${source})
      continue()
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${generated}/${source})
    # A source uses both hooks (their defaults are the device prelude's) on
    # a line that is no comment.
    file(STRINGS ${generated}/${source} x_hook REGEX "^[^/]*KOPT_X_PAIR\\(")
    file(STRINGS ${generated}/${source} y_hook REGEX "^[^/]*KOPT_Y_STORE\\(")
    if(NOT x_hook OR NOT y_hook)
      continue()
    endif()
    get_filename_component(stem ${kernel} NAME_WE)
    foreach(pair 1 2)
      set(pair_source ${out}/pairs/${stem}_io${pair}.hip)
      file(CONFIGURE OUTPUT ${pair_source} @ONLY CONTENT
           "// Written by kopt_problem_library (cmake/KoptLibrary.cmake): the entry ${stem}\n// reading x and writing y in dtype pair ${pair} of kKoptNativeIo.\n#define KOPT_ENTRY_PAIR ${pair}\n#include \"kopt_entry_pair.h\"\n#include \"${kernel}\"\n")
      list(APPEND sources ${pair_source})
    endforeach()
    string(APPEND table "KOPT_ENTRY_PAIRS(${name}_entry_${stem})\n")
  endforeach()
  file(CONFIGURE OUTPUT ${out}/kopt_entry_pairs.inc @ONLY CONTENT "${table}")
  set(${result} ${sources} PARENT_SCOPE)
endfunction()

# The generated kernels this platform's build compiles (into `result`): all
# but the tuned entries that generated/platforms.cmake, which `kopt export`
# writes beside dispatch.inc, lists as not for this platform (an entry serves
# the platforms of its targets, as dispatch.inc's sections do). The library
# then carries no kernel it never launches, and the AMD build none tuned for
# NVIDIA alone (such an entry may need scratch on gfx906; export writes the
# one that does not as a gfx906 entry beside it).
function(kopt_platform_kernels generated kernels result)
  if(NOT EXISTS ${generated}/platforms.cmake)
    message(FATAL_ERROR "${generated}/platforms.cmake is missing: run kopt export for the problem")
  endif()
  include(${generated}/platforms.cmake)
  set(kept ${kernels})
  foreach(file ${KOPT_LIBRARY_NOT_FOR_${KOPT_GPU_PLATFORM}})
    list(REMOVE_ITEM kept ${generated}/${file})
  endforeach()
  set(${result} ${kept} PARENT_SCOPE)
endfunction()

function(kopt_problem_library)
  cmake_parse_arguments(ARG "PYTHON" "VERSION;EXTRA_HEADER" "EXTENSION;HOST_SOURCES;GPU_SOURCES;PRIVATE_INCLUDES" ${ARGN})
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT EXISTS ${dir}/generated/library.cmake)
    message(FATAL_ERROR "${dir}/generated/library.cmake is missing: run kopt export for the problem")
  endif()
  include(${dir}/generated/library.cmake)
  set(name ${KOPT_LIBRARY_NAME})
  string(REPLACE "." ";" version_parts ${ARG_VERSION})
  list(GET version_parts 0 KOPT_LIBRARY_VERSION_MAJOR)
  list(GET version_parts 1 KOPT_LIBRARY_VERSION_MINOR)
  if(ARG_EXTENSION)
    list(GET ARG_EXTENSION 0 KOPT_LIBRARY_EXTENSION)
    list(GET ARG_EXTENSION 1 extension_header)
    set(KOPT_LIBRARY_EXTENSION_INCLUDE "#include \"${extension_header}\"\n")
  else()
    set(KOPT_LIBRARY_EXTENSION KoptNoExtension)
    set(KOPT_LIBRARY_EXTENSION_INCLUDE "")
  endif()
  set(KOPT_LIBRARY_EXTRA_INCLUDE "")
  if(ARG_EXTRA_HEADER)
    get_filename_component(extra_name ${ARG_EXTRA_HEADER} NAME)
    set(KOPT_LIBRARY_EXTRA_INCLUDE "\n#include \"${extra_name}\"\n")
  endif()

  set(out ${CMAKE_CURRENT_BINARY_DIR}/api)
  set(template ${PROJECT_SOURCE_DIR}/kernels/common/template)
  configure_file(${template}/kopt_library.h.in ${out}/include/${name}.h @ONLY)
  configure_file(${template}/kopt_library_errors.h.in ${out}/${name}_errors.h @ONLY)
  configure_file(${template}/kopt_library_errors.cpp.in ${out}/${name}_errors.cpp @ONLY)
  configure_file(${template}/kopt_library_internal.h.in ${out}/${name}_internal.h @ONLY)
  configure_file(${template}/kopt_library_api.cpp.in ${out}/${name}_api.cpp @ONLY)
  set(public_includes $<BUILD_INTERFACE:${out}/include> $<INSTALL_INTERFACE:include>)
  if(ARG_EXTRA_HEADER)
    get_filename_component(extra_dir ${dir}/${ARG_EXTRA_HEADER} DIRECTORY)
    list(APPEND public_includes $<BUILD_INTERFACE:${extra_dir}>)
  endif()

  add_library(${name}_host STATIC ${out}/${name}_errors.cpp ${ARG_HOST_SOURCES})
  target_include_directories(${name}_host PUBLIC ${public_includes} PRIVATE ${out})
  target_compile_features(${name}_host PRIVATE cxx_std_17)
  set_target_properties(${name}_host PROPERTIES POSITION_INDEPENDENT_CODE ON)

  file(GLOB generated_kernels CONFIGURE_DEPENDS ${dir}/generated/*.hip)
  kopt_platform_kernels(${dir}/generated "${generated_kernels}" kernels)
  kopt_entry_pairs(${name} "${kernels}" ${dir}/generated ${out} entry_pairs)
  kopt_kernel_sources(${out}/${name}_api.cpp ${ARG_GPU_SOURCES} ${kernels} ${entry_pairs})
  add_library(${name} STATIC ${out}/${name}_api.cpp ${ARG_GPU_SOURCES} ${kernels} ${entry_pairs})
  target_include_directories(${name} PUBLIC ${public_includes}
                             PRIVATE ${out} ${dir} ${dir}/generated ${ARG_PRIVATE_INCLUDES})
  kopt_kernel_library(${name} ${ARG_VERSION})
  target_link_libraries(${name} PUBLIC ${name}_host)

  if(EXISTS ${dir}/example/example.cpp)
    kopt_kernel_sources(${dir}/example/example.cpp)
    add_executable(${name}_example ${dir}/example/example.cpp)
    target_link_libraries(${name}_example PRIVATE ${name})
    target_compile_options(${name}_example PRIVATE ${KOPT_HIP_FLAGS})
    target_include_directories(${name}_example PRIVATE ${PROJECT_SOURCE_DIR}/kernels/common)
    set_target_properties(${name}_example PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  endif()

  install(TARGETS ${name} ${name}_host EXPORT ${name}Targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library)
  install(FILES ${out}/include/${name}.h ${ARG_EXTRA_HEADER} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          COMPONENT library)
  install(EXPORT ${name}Targets NAMESPACE kopt:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/${name}
          COMPONENT library)
  configure_package_config_file(${template}/kopt_libraryConfig.cmake.in
                                ${CMAKE_CURRENT_BINARY_DIR}/${name}Config.cmake
                                INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/${name})
  # The library's own version (its C API), apart from the kopt tool's: any
  # release of the same major version is compatible.
  write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/${name}ConfigVersion.cmake
                                   VERSION ${ARG_VERSION} COMPATIBILITY SameMajorVersion)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${name}Config.cmake
                ${CMAKE_CURRENT_BINARY_DIR}/${name}ConfigVersion.cmake
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/${name} COMPONENT library)

  if(ARG_PYTHON)
    # The static library's objects (position-independent: kernels, C API)
    # linked whole into a shared object that ctypes loads, so no kernel is
    # compiled twice; the host part (the last error, the importers, which
    # nothing in the kernel library calls) compiled in, so every C function
    # is there. (The host archive itself cannot be linked whole: the kernel
    # library already links it as a plain archive.)
    add_library(${name}_shared SHARED ${out}/${name}_errors.cpp ${ARG_HOST_SOURCES})
    target_include_directories(${name}_shared PRIVATE ${out})
    target_compile_features(${name}_shared PRIVATE cxx_std_17)
    target_link_libraries(${name}_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${name}>")
    set(package ${PROJECT_BINARY_DIR}/python/${name})
    set_target_properties(${name}_shared PROPERTIES OUTPUT_NAME ${name} LIBRARY_OUTPUT_DIRECTORY ${package}
                                                    VERSION ${ARG_VERSION})
    add_custom_command(TARGET ${name}_shared POST_BUILD
                       COMMAND ${CMAKE_COMMAND} -E copy ${dir}/python/${name}/__init__.py
                               ${PROJECT_SOURCE_DIR}/kernels/common/python/_core.py ${package}/)
    # Its own component: the library package (C/C++) does not need it, and a
    # build of the examples alone does not build it.
    install(TARGETS ${name}_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT python OPTIONAL)
  endif()
endfunction()
