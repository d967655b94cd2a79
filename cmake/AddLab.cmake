# add_lab(<NN_topic> TOPIC <topic> [MUTANTS <name>...] [WIDE_LOADS <kernel-name-part>...]
#         [GIVEN <file>...] [RACE_MUTANT <name>] [GRADER_LIBRARIES <target>...]
#         [VENDOR_MUTANT <name>] [RACE_TEST_CASES <doctest filter>])
#
# One call per lab builds, from the files the layout in DESIGN.md puts in fixed places:
#   lab<NN_topic>_interface   labs/NN_topic/<topic>.h (header only)
#   lab<NN_topic>_baseline    grader/baselines/<topic>_baseline.cu
#   lab<NN_topic>_<impl>      one static library per implementation of the interface: starter
#                             (labs/NN_topic/<topic>.cu), solution (solutions/NN_topic/<topic>.cu,
#                             when solutions/ exists) and mutant_<name> (grader/mutants/NN_topic/<name>.cu)
#   grade_<NN_topic>_<impl>   the lab's grader (grader/labs/NN_topic.cpp) linked with that library
#   lab<NN_topic>_given       GIVEN files of labs/NN_topic/ that the student reads but does not edit
#                             (diagnostic kernels), linked into every implementation
# and registers every test case of every grader as its own CTest test, labelled gpu, the lab's
# name and the implementation's kind. The solution must pass; the starter and the mutants must be
# rejected (--expect-reject: every test case fails, cleanly). With solutions/ present it also adds
# the static checks of the compiled solution (CPU only): no spills, 16-byte loads and stores in the
# kernels whose demangled names contain a WIDE_LOADS part, and the starter's exported symbols equal
# to the solution's. RACE_MUTANT names the mutant whose defect is a shared-memory race: two tests
# labelled `sanitize` run compute-sanitizer's racecheck on it (it must report a hazard) and on the
# solution (it must report none), on the steps RACE_TEST_CASES selects (default: all).
# GRADER_LIBRARIES are linked into the grader alone (lab 04's cuBLAS, the line to beat). Student code must use no vendor library, which the static test checks
# on the starter and the solution; VENDOR_MUTANT names a mutant that does (it alone links cuBLAS),
# and a second static test proves the check catches it.
function(add_lab lab)
  cmake_parse_arguments(PARSE_ARGV 1 LAB "" "TOPIC;RACE_MUTANT;VENDOR_MUTANT;RACE_TEST_CASES"
                        "MUTANTS;WIDE_LOADS;GIVEN;GRADER_LIBRARIES")
  if(NOT LAB_TOPIC)
    message(FATAL_ERROR "add_lab(${lab}): TOPIC is required")
  endif()
  set(id "lab${lab}")
  set(root "${PROJECT_SOURCE_DIR}")

  add_library(${id}_interface INTERFACE)
  target_include_directories(${id}_interface INTERFACE "${root}/labs/${lab}")
  target_link_libraries(${id}_interface INTERFACE workbook_lab_support)
  if(LAB_GIVEN)
    list(TRANSFORM LAB_GIVEN PREPEND "${root}/labs/${lab}/")
    add_library(${id}_given STATIC ${LAB_GIVEN})
    target_include_directories(${id}_given PUBLIC "${root}/labs/${lab}")
    target_link_libraries(${id}_given PUBLIC workbook_lab_support)
    target_link_libraries(${id}_interface INTERFACE ${id}_given)
  endif()

  add_library(${id}_baseline STATIC "${root}/grader/baselines/${LAB_TOPIC}_baseline.cu")
  target_include_directories(${id}_baseline PUBLIC "${root}/grader/baselines")
  target_link_libraries(${id}_baseline PUBLIC ${id}_interface)

  add_library(${id}_grader OBJECT "${root}/grader/labs/${lab}.cpp")
  target_include_directories(${id}_grader PRIVATE "${root}/grader/oracles")
  target_link_libraries(${id}_grader PUBLIC ${id}_baseline workbook_harness doctest::doctest ${LAB_GRADER_LIBRARIES})

  _add_lab_implementation(${lab} starter "${root}/labs/${lab}/${LAB_TOPIC}.cu" reject)
  if(WORKBOOK_HAVE_SOLUTIONS)
    _add_lab_implementation(${lab} solution "${root}/solutions/${lab}/${LAB_TOPIC}.cu" pass)
    set(wide_args "")
    foreach(part IN LISTS LAB_WIDE_LOADS)
      list(APPEND wide_args "--wide=${part}")
    endforeach()
    # The solution again, as Hopper PTX with the same flags: ptxas reports its resources from it.
    add_library(${id}_solution_ptx OBJECT "${root}/solutions/${lab}/${LAB_TOPIC}.cu")
    target_link_libraries(${id}_solution_ptx PRIVATE ${id}_interface)
    set_target_properties(${id}_solution_ptx PROPERTIES CUDA_PTX_COMPILATION ON CUDA_ARCHITECTURES 90-virtual)
    add_custom_target(${id}_static_inputs ALL DEPENDS ${id}_solution_ptx)
    add_test(NAME "${lab}.static: compiled solution"
      COMMAND static_checks "--starter=$<TARGET_FILE:${id}_starter>" "--solution=$<TARGET_FILE:${id}_solution>"
              "--ptx=$<TARGET_OBJECTS:${id}_solution_ptx>" "--ptxas=${CUDAToolkit_BIN_DIR}/ptxas" ${wide_args}
              "--student-library=$<TARGET_FILE:${id}_starter>" "--student-library=$<TARGET_FILE:${id}_solution>"
              "--student-source=${root}/labs/${lab}/${LAB_TOPIC}.cu" "--student-source=${root}/solutions/${lab}/${LAB_TOPIC}.cu")
    set_tests_properties("${lab}.static: compiled solution" PROPERTIES LABELS "cpu;${lab};static")
  endif()
  foreach(mutant IN LISTS LAB_MUTANTS)
    _add_lab_implementation(${lab} mutant_${mutant} "${root}/grader/mutants/${lab}/${mutant}.cu" reject)
  endforeach()
  if(LAB_VENDOR_MUTANT)
    set(vendor_id "${id}_mutant_${LAB_VENDOR_MUTANT}")
    target_link_libraries(${vendor_id} PRIVATE CUDA::cublas)
    set(name "${lab}.static: the vendor check catches mutant_${LAB_VENDOR_MUTANT}")
    add_test(NAME "${name}"
      COMMAND static_checks "--test-case=*vendor*" --expect-vendor "--student-library=$<TARGET_FILE:${vendor_id}>"
              "--student-source=${root}/grader/mutants/${lab}/${LAB_VENDOR_MUTANT}.cu")
    set_tests_properties("${name}" PROPERTIES LABELS "cpu;${lab};static")
  endif()
  if(LAB_RACE_MUTANT)
    string(SUBSTRING "${lab}" 0 2 number)
    if(NOT LAB_RACE_TEST_CASES)
      set(LAB_RACE_TEST_CASES "${number}.*")
    endif()
    _add_racecheck_test(${lab} mutant_${LAB_RACE_MUTANT} race "${LAB_RACE_TEST_CASES}")
    if(WORKBOOK_HAVE_SOLUTIONS)
      _add_racecheck_test(${lab} solution clean "${LAB_RACE_TEST_CASES}")
    endif()
  endif()
endfunction()

# compute-sanitizer's racecheck on one grader, correctness checks only (small shapes: racecheck
# runs kernels a hundred times slower). grader/tests/racecheck.sh runs it and reads its summary.
function(_add_racecheck_test lab kind expect test_cases)
  find_program(WORKBOOK_COMPUTE_SANITIZER compute-sanitizer HINTS "${CUDAToolkit_BIN_DIR}")
  if(NOT WORKBOOK_COMPUTE_SANITIZER)
    message(STATUS "compute-sanitizer not found: no racecheck tests for ${lab}")
    return()
  endif()
  if(expect STREQUAL "race")
    set(name "${lab}.sanitize: racecheck finds the race in ${kind}")
  else()
    set(name "${lab}.sanitize: racecheck finds no race in the ${kind}")
  endif()
  add_test(NAME "${name}"
    COMMAND "${PROJECT_SOURCE_DIR}/grader/tests/racecheck.sh" ${expect} "${WORKBOOK_COMPUTE_SANITIZER}"
            "$<TARGET_FILE:grade_${lab}_${kind}>" --correctness-only "--test-case=${test_cases}")
  set_tests_properties("${name}" PROPERTIES LABELS "gpu;${lab};sanitize" SKIP_RETURN_CODE 77 TIMEOUT 120)
endfunction()

function(_add_lab_implementation lab kind source expect)
  set(id "lab${lab}")
  add_library(${id}_${kind} STATIC "${source}")
  target_link_libraries(${id}_${kind} PUBLIC ${id}_interface)

  set(grader grade_${lab}_${kind})
  add_executable(${grader})
  target_link_libraries(${grader} PRIVATE workbook_grader_main ${id}_grader ${id}_${kind})

  # Step test cases are named "NN.k ...". The solution also runs "NN_topic bars ...", which checks
  # that each bar rejects the previous step's solution: elsewhere that means nothing.
  string(SUBSTRING "${lab}" 0 2 number)
  set(spec "${number}.*")
  set(extra_args "")
  if(kind STREQUAL "solution")
    set(spec "")
  endif()
  if(expect STREQUAL "reject")
    set(extra_args "--expect-reject")
  endif()
  string(REGEX REPLACE "_.*" "" kind_label "${kind}")  # mutant_skip_tail -> mutant
  doctest_discover_tests(${grader}
    TEST_SPEC ${spec}
    TEST_PREFIX "${lab}.${kind}/"
    TEST_LIST ${grader}_TESTS
    EXTRA_ARGS ${extra_args}
    PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  # Labels are a list, and doctest_discover_tests() splits a list given in PROPERTIES into separate
  # arguments. So they are set by a script of our own, which CTest runs after doctest's has defined
  # the tests (and the variable listing them).
  set(labels_script "${CMAKE_CURRENT_BINARY_DIR}/${grader}_labels.cmake")
  file(WRITE "${labels_script}"
    "if(DEFINED ${grader}_TESTS)\n"
    "  set_tests_properties(\${${grader}_TESTS} PROPERTIES LABELS \"gpu;${lab};${kind_label}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_script}")
endfunction()
