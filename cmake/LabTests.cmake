# A lab's tests: its graders' own test cases (doctest's discovery), and every other test of the
# lab's, which the lab's tests program writes from what the build made (grader/tests/lab_tests.cpp).

# The lab's tests (grader/tests/lab_tests.cpp): a program compiled for the lab (with its proofs
# table, in the instructor tree) and run by the build, which writes every test of the lab's but its
# graders' own test cases into labs/NN_topic/lab_tests.cmake, read by CTest. It reads where the
# build put each implementation (built-<kind>.txt) and what else the tests run (lab-tests.txt).
function(_add_lab_tests lab)
  get_property(topic GLOBAL PROPERTY WORKBOOK_${lab}_TOPIC)
  get_property(lab_build_folder GLOBAL PROPERTY WORKBOOK_${lab}_BUILD_FOLDER)
  get_property(kinds GLOBAL PROPERTY WORKBOOK_${lab}_KINDS)
  set(program lab_tests_${lab})
  add_executable(${program} "${PROJECT_SOURCE_DIR}/grader/tests/lab_proofs.cpp")
  target_link_libraries(${program} PRIVATE workbook_lab_tests_main)
  workbook_include_root(harness harness_root)
  target_include_directories(${program} PRIVATE "${harness_root}")
  target_compile_options(${program} PRIVATE -O0)  # it runs once a build, for milliseconds
  set(solution_ptx "")
  if(TARGET lab${lab}_solution_ptx)
    target_include_directories(${program} PRIVATE "${PROJECT_SOURCE_DIR}/solutions/${lab}/proofs")
    target_compile_definitions(${program} PRIVATE WORKBOOK_PROOFS_TABLE)
    set(solution_ptx "$<TARGET_OBJECTS:lab${lab}_solution_ptx>")
  endif()
  find_program(WORKBOOK_COMPUTE_SANITIZER compute-sanitizer HINTS "${CUDAToolkit_BIN_DIR}")
  set(sanitizer "${WORKBOOK_COMPUTE_SANITIZER}")
  if(NOT sanitizer)
    set(sanitizer "")
  endif()
  set(lines "topic\t${topic}" "source\t${PROJECT_SOURCE_DIR}" "workbook_audit\t$<TARGET_FILE:workbook_audit>"
      "static_checks\t$<TARGET_FILE:static_checks>" "ptxas\t${CUDAToolkit_BIN_DIR}/ptxas" "compute_sanitizer\t${sanitizer}"
      "solution_ptx\t${solution_ptx}" "scratch\t${lab_build_folder}")
  list(JOIN lines "\n" content)
  file(GENERATE OUTPUT "${lab_build_folder}/lab-tests.txt" CONTENT "${content}\n")
  list(TRANSFORM kinds REPLACE "(.+)" "${lab_build_folder}/built-\\1.txt" OUTPUT_VARIABLE built_files)
  set(tests "${lab_build_folder}/lab_tests.cmake")
  add_custom_command(OUTPUT "${tests}" COMMAND ${program} "${CMAKE_BINARY_DIR}" ${lab} "${tests}"
    DEPENDS ${program} judge_${lab} "${lab_build_folder}/lab-tests.txt" ${built_files}
    COMMENT "Writing ${lab}'s tests" VERBATIM)
  add_custom_target(${program}_written ALL DEPENDS "${tests}")
  file(WRITE "${lab_build_folder}/lab_tests_include.cmake"
    "if(EXISTS \"${tests}\")\n  include(\"${tests}\")\nelse()\n"
    "  add_test(${lab}_tests_NOT_BUILT ${lab}_tests_NOT_BUILT)\nendif()\n")
  get_property(lab_source_folder GLOBAL PROPERTY WORKBOOK_${lab}_SOURCE_FOLDER)
  set_property(DIRECTORY "${lab_source_folder}" APPEND PROPERTY TEST_INCLUDE_FILES "${lab_build_folder}/lab_tests_include.cmake")
endfunction()

# `kind`, built, and every test case of its grader its own CTest test, labelled gpu, the lab and
# the kind: the solution's must pass (its steps and its bars': each bar admits the step's witness
# and rejects the previous step's solution), the starter's fail cleanly (--expect-reject).
function(_add_lab_implementation lab kind source expect)
  _build_lab_implementation(${lab} ${kind} "${source}")
  set(grader grade_${lab}_${kind})
  string(SUBSTRING "${lab}" 0 2 number)
  set(spec "${number}.*")
  set(extra_args "")
  if(kind STREQUAL "solution")
    set(spec "")  # its bars' test cases too: elsewhere they mean nothing
  endif()
  if(expect STREQUAL "reject")
    set(extra_args "--expect-reject")
  endif()
  doctest_discover_tests(${grader} TEST_SPEC ${spec} TEST_PREFIX "${lab}.${kind}/" TEST_LIST ${grader}_TESTS
    EXTRA_ARGS ${extra_args} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  # Labels are a list, which doctest_discover_tests() would split into arguments: set by a script
  # of our own, which CTest runs after doctest's has defined the tests.
  set(labels_script "${CMAKE_CURRENT_BINARY_DIR}/${grader}_labels.cmake")
  file(WRITE "${labels_script}"
    "if(DEFINED ${grader}_TESTS)\n"
    "  set_tests_properties(\${${grader}_TESTS} PROPERTIES LABELS \"gpu;${lab};${kind}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_script}")
endfunction()
