# Shared build settings for every dcsim target.

function(sim_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion -Wnon-virtual-dtor)
  if(SIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

function(sim_set_sanitizers target)
  if(SIM_FUZZ)
    # Libraries get coverage instrumentation without libFuzzer's main; fuzz/ links it.
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link,address,undefined
                                             -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  elseif(SIM_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# sim_add_library(NAME SOURCES ... DEPS ...): a layer library with the project's settings.
function(sim_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  sim_set_warnings(${name})
  sim_set_sanitizers(${name})
endfunction()

# sim_add_module(NAME SOURCES ... DEPS ...): one of dcsim's shared modules (sim/config/module.hpp),
# loaded on first use by the command that needs it. It lands beside the dcsim executable
# (SIM_MODULE_DIR), where the loader looks, and exports only the symbols marked visible.
function(sim_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} MODULE ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${SIM_MODULE_DIR}
                        CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  if(NOT SIM_SANITIZE AND NOT SIM_FUZZ)
    # Every symbol resolved when linking, not at the first dlopen (sanitizer runtimes are
    # resolved against the executable's).
    target_link_options(${name} PRIVATE -Wl,-z,defs)
  endif()
  sim_set_warnings(${name})
  sim_set_sanitizers(${name})
endfunction()

# sim_add_test(NAME SOURCES ... DEPS ... LABELS ... [SLOW Suite.Case ...]): a GoogleTest
# executable whose cases are registered with ctest one by one and carry the given labels (unit,
# golden, ...). The cases named in SLOW also carry the label `slow`: they run in the ci preset
# and are left out under the sanitizers, where they take tens of seconds each (CI's asan-ubsan
# job runs -LE "golden|slow").
function(sim_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS;SLOW" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE SIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  # Helpers shared by several suites live in tests/support/ ("support/....hpp").
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  sim_set_warnings(${name})
  sim_set_sanitizers(${name})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  gtest_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                       PROPERTIES LABELS "${ARG_LABELS}" DISCOVERY_TIMEOUT 60)
  if(ARG_SLOW)
    # Discovered tests get their properties in a ctest script included after the discovery's
    # (a list-valued LABELS does not survive gtest_discover_tests' PROPERTIES).
    set(slow_script ${CMAKE_CURRENT_BINARY_DIR}/${name}_slow_labels.cmake)
    file(WRITE ${slow_script}
         "set_tests_properties(${ARG_SLOW} PROPERTIES LABELS \"${ARG_LABELS};slow\")\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${slow_script})
  endif()
endfunction()

# sim_add_benchmark(NAME SOURCES ... DEPS ...): a Google Benchmark program (never part of ctest).
function(sim_add_benchmark name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark)
  sim_set_warnings(${name})
endfunction()

# sim_check_not_linked(FORBIDDEN lib TARGETS t ...): fails the configuration when any of the
# targets links `lib`, directly or through its dependencies. Called once every target exists
# (end of the top-level CMakeLists.txt); it keeps layering rules from eroding silently.
function(sim_check_not_linked)
  cmake_parse_arguments(ARG "" "FORBIDDEN" "TARGETS" ${ARGN})
  foreach(top IN LISTS ARG_TARGETS)
    get_target_property(queue ${top} LINK_LIBRARIES)
    set(seen "")
    while(queue)
      list(POP_FRONT queue dep)
      if(NOT TARGET "${dep}" OR dep IN_LIST seen)
        continue()
      endif()
      list(APPEND seen ${dep})
      if(dep STREQUAL ARG_FORBIDDEN)
        message(FATAL_ERROR "${top} links ${ARG_FORBIDDEN} (through its dependencies); it must "
                            "link only the layers below it")
      endif()
      get_target_property(more ${dep} INTERFACE_LINK_LIBRARIES)
      if(more)
        list(APPEND queue ${more})
      endif()
    endwhile()
  endforeach()
endfunction()
