# Two functions make a lab's targets and tests, one for each tree (docs/guide.md, "Layout"):
#
# add_lab(<NN_topic> TOPIC <topic> [GIVEN <file>...] [GRADER_LIBRARIES <target>...] [HOPPER_SPECIFIC])
#   in labs/NN_topic/CMakeLists.txt, what grades a student, and all a student's copy builds:
#   lab<NN_topic>_interface   labs/NN_topic/<topic>.h (header only)
#   lab<NN_topic>_given       GIVEN files of labs/NN_topic/ that the student reads but does not edit
#   lab<NN_topic>_baseline    grader/labs/NN_topic/baseline.cu
#   lab<NN_topic>_grader      grader/labs/NN_topic/grader.cpp and the folder's other .cpp/.cu files
#                             (device-side checks), compiled once; GRADER_LIBRARIES are linked
#                             into it (lab 04's cuBLAS, the line to beat) and into the planners
#   lab<NN_topic>_planner_functions, and judge_<NN_topic>'s stand-ins: the functions the header's
#                             `// TODO(NN.k)` lines declare, as the planner serves them and as the
#                             judge asks for them, written by the build from the header
#                             (grader/protocol/student_functions.cpp)
#   judge_<NN_topic>          the lab's judge (grader/judge/judge.h): the grader with the stand-ins
#                             in place of any implementation (grade)
#   lab<NN_topic>_starter     labs/NN_topic/<topic>.cu, and grade_<NN_topic>_starter: the grader
#                             linked with it (with a submission, lab<NN_topic>_submission too); and
#                             plan_<NN_topic>_starter, its planner (grader/planner/planner.h: the file
#                             with the planner's list of functions, nothing of the grader's)
#   and the starter's tests: every step rejected cleanly (--expect-reject), linked and judged, the
#   #include check of its source, its GPU code, the benchmark plot's
#   columns, its planner serving every function it defines, the judge's front (CPU).
#
# add_lab_proofs(<NN_topic> [MUTANTS <name>...] [DEFENCE_MUTANTS <name|defence|steps[|also-without][|honest]>...]
#         [MUTANT_CONTROLS <name|steps>...] [INCLUDE_MUTANTS <name|finding>...]
#         [JUDGED_HOST_MUTANTS <name|clears|fails or name|reject>...]
#         [BOUNDARY_MUTANTS <name|steps|honest or name|steps|refusal text>...]
#         [JUDGED_DEFENCE_MUTANTS <name|defence|steps>...] [JUDGED_CLOSED_MUTANTS <name|defence|steps>...]
#         [RESIDUE_MUTANTS <name|steps>...]
#         [MEMCHECK_MUTANT <name>] [RACECHECK_MUTANT <name>] [SYNCCHECK_MUTANT <name>]
#         [WIDE_LOADS <kernel-name-part>...] [SANITIZE_STEPS <id,id...>] [REPEAT_STEPS <id,id...>])
#   called by add_lab_proofs_from_table() with the arguments the lab's proofs table,
#   solutions/NN_topic/proofs/proofs.h, prints (grader/tests/proofs_table.h; each kind's field is the
#   part of the string form here), the instructor tree: what proves the grader, built
#   only where solutions/ is (never in a student's copy or a submission's build):
#   lab<NN_topic>_solution    solutions/NN_topic/<topic>.cu, and grade_<NN_topic>_solution, which
#                             also links lab<NN_topic>_proofs, every .cu directly in proofs/: the
#                             witnesses (witness.cu: the textbook form of each step's idea, registered
#                             by step id, witness_registry.h) and a lab's reference measurements
#                             (reference_values.h: lab 01's latencies)
#   lab<NN_topic>_mutant_<name>   proofs/mutants/<name>.cu, and its grader; a MUTANT's planner too
#                             (plan_<NN_topic>_mutant_<name>), unless it calls the grader's baseline
#   Every target of an implementation is written to the lab's own build folder (labs/NN_topic/),
#   where ./workbook finds the graders and the audits find the objects.
#
# Every test case of every grader is its own CTest test, labelled gpu, the lab's name and the
# implementation's kind. The solution must pass; the starter and the MUTANTS must be rejected
# (--expect-reject: every test case fails, cleanly), linked into their graders and judged by the
# lab's judge alike (label judge; the starter judged must fail naming its TODOs). The solution's grader also runs the two tests of
# the lab's bars, generated from its steps table: each bar admits the step's witness by 5% and
# rejects the previous step's solution.
#
# A DEFENCE_MUTANT cheats in one way that one defence (grader/harness/defences.h) exists to catch,
# on the steps it is fast enough to clear. Two tests prove the defence: with every defence on, each
# of those steps must fail naming it ("[defence]"); with that defence off (--without), the mutant must
# clear them, or it proves nothing. also-without: defences off in both tests, comma-separated (where
# two defences catch one cheat, each is proved with the other off). honest: the mutant cheats on what
# other GPUs would do, not on speed (a block waiting on the order blocks start); with its defence off
# it must be graded as honest work (correct, no other defence tripped: it passes or misses its bar
# alone), since whether it is fast enough for the bar depends on the GPU's, not on the defence.
#
# A MUTANT_CONTROL shows that a mutant fails for its one named defect, not for something else in
# it: the mutant's source built again with WORKBOOK_MUTANT_CONTROL defined, which fixes only that
# defect (a fence put back, a word read whole), must pass the correctness of those steps on the
# shapes --correctness-only checks (up to 2^20 + 1 ints in lab 06, where the look-back mutants fail
# for most seeds; the NOTES record the controls correct at every size, 2^28 included, when graded
# in full, where they then fail on speed alone).
#
# Each *CHECK_MUTANT names a mutant whose defect compute-sanitizer's tool finds: a `sanitize` test
# runs the tool on it (it must report an error) and on the solution (it must report none), over the
# correctness half of the SANITIZE_STEPS (default: all), with exact-size allocations. The lab also
# gets the static checks of the compiled solution (CPU only): no spills, 16-byte loads and stores in
# the kernels whose demangled names contain a WIDE_LOADS part, the starter's exported symbols equal
# to the solution's. A `repeat` test grades the solution's REPEAT_STEPS (default: all), judged, five
# times, with five seeds: the verdicts must agree.
# An INCLUDE_MUTANT's #include lines leave the lab: a CPU test checks that `workbook_audit includes`
# refuses it (never compiled) with a finding that contains the text after the bar. Every lab also
# gets CPU tests that its starter's and solution's #include lines pass. A JUDGED_HOST_MUTANT's host
# code cheats; judged, its tricks run in its planner: it must get its honest copy's verdicts (the
# steps it clears, then those it fails), or fail every step ("reject").
# A BOUNDARY_MUTANT cheats in a way the trust boundary closes by itself, with no defence of the
# grader's to catch it (work on a stream the timer does not see or left running past the call,
# launches past workbook::launch, someone else's kernels, the copy engines doing a kernel's work):
# judged, as a student's file is, it must gain nothing on its steps: "honest", each is graded on its
# own kernels' time (passes or misses its bar, and trips no defence: work that escaped the timer
# would trip [ceiling]), or each fails with the planner's refusal, whose text is given.
# A JUDGED_DEFENCE_MUTANT is a DEFENCE_MUTANT whose defence works differently judged: one that reads
# the student's machine code ([block-order], [stage-reuse]), where the judge reads the dump the build
# wrote beside the file's library (machine_code.h) rather than its own program, or one that reads
# the judge's replays ([work-launches], which times them launch by launch). Judged as a student's
# file is, it must fail on its steps naming the defence.
# A JUDGED_CLOSED_MUTANT cheats in a way one defence makes impossible rather than detects (inputs
# computed from a seed the judge no longer gives, state kept in the module's globals, which the judge
# sets back before every call): with the defence on there is nothing to find, the cheat just does not
# work, and the mutant must fail each of its steps (for whatever its kernels then do: too slow);
# with the defence off (--without) it must clear them. Judged, as a student's file is: those
# defences are the judge's.
# A RESIDUE_MUTANT's kernels copy an answer the grader left in device memory (its own baseline's or
# reference's product, in a scratch array): judged with WORKBOOK_PROOF_SCRATCH_LOG, the judge tells
# its planner where the scratch arrays lie (buffers.cu), as no student is told. With every defence
# on it must be graded on its own honest kernels (--expect-honest: the scratch held another call's
# product, of inputs since drawn afresh); with [remembered-work] off (inputs kept, so the scratch
# holds this call's product) it copies it and [ceiling] must catch it: the second test proves the
# copy works where an answer sits, so the first shows none sits within a kernel's reach.
# HOPPER_SPECIFIC: every implementation is compiled for sm_90a, Hopper's architecture-specific target
# (lab 04's setmaxnreg), in place of sm_90 where the build has it; a Hopper GPU runs that code, any
# other the code for its own target.
#
# Every implementation of the lab, the student's included, is compiled to the same GPU code: the
# build's CMAKE_CUDA_ARCHITECTURES (cmake/Architectures.cmake), with sm_90a for HOPPER_SPECIFIC.
# The build writes that list to labs/NN_topic/gpu_code.architectures; after compiling a student's
# file, ./workbook checks its object carries exactly that code (workbook_audit gpu-code), and a
# CPU test checks the starter's and the solution's.
function(add_lab lab)
  cmake_parse_arguments(PARSE_ARGV 1 LAB "HOPPER_SPECIFIC" "TOPIC" "GIVEN;GRADER_LIBRARIES")
  if(NOT LAB_TOPIC)
    message(FATAL_ERROR "add_lab(${lab}): TOPIC is required")
  endif()
  # The topic is written once, in the folder's name: the runner and the graders read it there.
  string(REGEX REPLACE "^[0-9][0-9]_" "" folder_topic "${lab}")
  if(NOT LAB_TOPIC STREQUAL folder_topic)
    message(FATAL_ERROR "add_lab(${lab} TOPIC ${LAB_TOPIC}): the topic is the folder's name after NN_, '${folder_topic}' "
                        "(labs/${lab}/${folder_topic}.cu is the file a student writes): rename one or the other")
  endif()
  if(LAB_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_lab(${lab}): unknown arguments ${LAB_UNPARSED_ARGUMENTS} (the proofs' go in the lab's "
                        "proofs table, solutions/${lab}/proofs/proofs.h)")
  endif()
  set(id "lab${lab}")
  set(root "${PROJECT_SOURCE_DIR}")
  set(grading "${root}/grader/labs/${lab}")
  # What add_lab_proofs() needs of the lab, which its own folder cannot see.
  set_property(GLOBAL PROPERTY WORKBOOK_${lab}_TOPIC "${LAB_TOPIC}")
  set_property(GLOBAL PROPERTY WORKBOOK_${lab}_HOPPER_SPECIFIC "${LAB_HOPPER_SPECIFIC}")
  set_property(GLOBAL PROPERTY WORKBOOK_${lab}_BUILD_FOLDER "${CMAKE_CURRENT_BINARY_DIR}")
  set_property(GLOBAL PROPERTY WORKBOOK_${lab}_GRADER_LIBRARIES "${LAB_GRADER_LIBRARIES}")

  add_library(${id}_interface INTERFACE)
  target_include_directories(${id}_interface INTERFACE "${root}/labs/${lab}")
  target_link_libraries(${id}_interface INTERFACE workbook_lab_support)
  if(LAB_GIVEN)
    list(TRANSFORM LAB_GIVEN PREPEND "${root}/labs/${lab}/")
    add_library(${id}_given STATIC ${LAB_GIVEN})
    target_include_directories(${id}_given PUBLIC "${root}/labs/${lab}")
    target_link_libraries(${id}_given PUBLIC workbook_lab_support)
    _dump_machine_code(${id}_given)
    target_link_libraries(${id}_interface INTERFACE ${id}_given)
  endif()

  add_library(${id}_baseline STATIC "${grading}/baseline.cu")
  target_include_directories(${id}_baseline PUBLIC "${grading}")
  target_link_libraries(${id}_baseline PUBLIC ${id}_interface)

  file(GLOB grader_sources CONFIGURE_DEPENDS "${grading}/*.cpp" "${grading}/*.cu")
  list(REMOVE_ITEM grader_sources "${grading}/baseline.cu")
  add_library(${id}_grader OBJECT ${grader_sources})
  target_link_libraries(${id}_grader PUBLIC ${id}_baseline workbook_harness doctest::doctest ${LAB_GRADER_LIBRARIES})

  # The functions a student writes, as the header's `// TODO(NN.k)` lines declare them, written once
  # there: from those lines the build writes the planner's list of them and the judge's stand-ins
  # (grader/protocol/student_functions.cpp), both compiled against the header.
  set(header "${root}/labs/${lab}/${LAB_TOPIC}.h")
  set(functions "${CMAKE_CURRENT_BINARY_DIR}/student_functions")
  add_custom_command(OUTPUT "${functions}/planner_functions.cpp" "${functions}/judged_calls.cpp"
    COMMAND workbook_student_functions "${header}" "labs/${lab}/${LAB_TOPIC}.h" "${functions}/planner_functions.cpp"
            "${functions}/judged_calls.cpp"
    DEPENDS workbook_student_functions "${header}"
    COMMENT "Reading the functions labs/${lab}/${LAB_TOPIC}.h marks TODO" VERBATIM)
  add_library(${id}_planner_functions OBJECT "${functions}/planner_functions.cpp")
  target_link_libraries(${id}_planner_functions PUBLIC ${id}_interface workbook_planner)

  # The lab's judge (grader/judge/judge.h): its grader with the judge's stand-ins in place of an
  # implementation. It links no student code, so one judge grades every implementation of the lab:
  # each call goes to the implementation's planner (plan_NN_topic_<kind>, --planner) and is replayed
  # with the kernels of its object (--device-code).
  add_executable(judge_${lab} "${functions}/judged_calls.cpp")
  target_link_libraries(judge_${lab} PRIVATE workbook_grader_main ${id}_grader ${id}_baseline workbook_harness workbook_core
                        workbook_lab_support)

  # The student's code: this checkout's starter, and in a submission's build (./workbook grade
  # --submission) the student's file as `submission` too. Its grader is built but never run by the
  # build (no test discovery): a student's file is graded by the lab's judge, with its host code in
  # its planner (plan_<NN_topic>_submission); the judge lists the steps. The student's file of this
  # build (students_kind) is the submission's where there is one, else the starter: a student's own
  # checkout. It alone is compiled as a student's (_compile_students_file).
  set(students_kind starter)
  if(WORKBOOK_SUBMISSION AND EXISTS "${WORKBOOK_SUBMISSION}/labs/${lab}/${LAB_TOPIC}.cu")
    set(students_kind submission)
  endif()
  _add_lab_implementation(${lab} starter "${root}/labs/${lab}/${LAB_TOPIC}.cu" reject)
  # The GPU code every implementation of the lab is compiled to, which a student's object must carry.
  set(gpu_code "${CMAKE_CURRENT_BINARY_DIR}/gpu_code.architectures")
  file(GENERATE OUTPUT "${gpu_code}" CONTENT "$<TARGET_PROPERTY:${id}_starter,CUDA_ARCHITECTURES>\n")
  if(students_kind STREQUAL "submission")
    _build_lab_implementation(${lab} submission "${WORKBOOK_SUBMISSION}/labs/${lab}/${LAB_TOPIC}.cu")
  endif()
  # The #include check's test (CPU): the starter's lines stay inside the lab and the toolkit.
  add_test(NAME "${lab}.static: the starter's #include lines pass the #include check"
    COMMAND workbook_audit includes "--lab-folder=${root}/labs/${lab}" "--student-headers=${root}/include"
            "--internals=${root}/grader" "${root}/labs/${lab}/${LAB_TOPIC}.cu")
  # In a student's checkout the starter is the student's file, compiled under the limit: it must
  # carry the build's GPU code, not what nvcc falls back to when it cannot see a GPU: the file the
  # judge loads, its GPU half's fat binary.
  _judged_code(${lab} starter starters_gpu_code unused unused)
  add_test(NAME "${lab}.static: the starter, compiled as a student's file, carries the build's GPU code"
    COMMAND workbook_audit gpu-code "--object=${starters_gpu_code}" "--architectures=${gpu_code}"
            "--source=labs/${lab}/${LAB_TOPIC}.cu")
  set_tests_properties("${lab}.static: the starter's #include lines pass the #include check"
    "${lab}.static: the starter, compiled as a student's file, carries the build's GPU code"
    PROPERTIES LABELS "cpu;${lab};static;host-code")
  # The benchmark CSV's columns are defined once, in the grader; the plot must read only those.
  add_test(NAME "${lab}.bench: the plot reads only columns the grader writes"
           COMMAND "${root}/grader/tests/test_bench_columns.sh" "${root}" "${lab}" "$<TARGET_FILE:grade_${lab}_starter>")
  set_tests_properties("${lab}.bench: the plot reads only columns the grader writes" PROPERTIES LABELS "cpu;${lab}")
  # A student's grader holds no kernel but the student's own and those listed as the grader's and
  # the lab's given code (grader/labs/NN_topic/kernels.allowed): no witness, mutant or solution.
  # The lab's planner serves every function the student writes, and no other (CPU).
  file(STRINGS "${root}/labs/${lab}/${LAB_TOPIC}.h" lab_namespace REGEX "^namespace [a-z_]+ {" LIMIT_COUNT 1)
  string(REGEX REPLACE "^namespace ([a-z_]+) {.*" "\\1" lab_namespace "${lab_namespace}")
  add_test(NAME "${lab}.static: the planner serves every function the student writes"
    COMMAND "${root}/grader/tests/check_planner_functions.sh" "$<TARGET_FILE:plan_${lab}_starter>"
            "$<TARGET_FILE:${id}_starter>" "${lab_namespace}")
  set_tests_properties("${lab}.static: the planner serves every function the student writes" PROPERTIES LABELS "cpu;${lab};static")
  # The judge: the lab's steps as the starter's grader lists them, exactly the planner's functions
  # as its judged calls, and a clear refusal when it is given half a student (CPU).
  # ./workbook profile's table from ncu's outputs recorded on an H100 (CPU): every counter the lab
  # chooses reads a metric ncu reports.
  string(SUBSTRING "${lab}" 0 2 number)
  file(GLOB recorded_ncu_outputs "${root}/solutions/profiles/${number}.*.ncu.txt")  # the instructor's: none in a handout
  foreach(output IN LISTS recorded_ncu_outputs)
    get_filename_component(output_name "${output}" NAME)
    string(REGEX MATCH "^[0-9][0-9]\\.[0-9]+" recorded_step "${output_name}")
    add_test(NAME "${lab}.profile: every counter has a value in the ncu output recorded for ${recorded_step}"
      COMMAND "${root}/grader/tests/check_profile_report.sh" "$<TARGET_FILE:judge_${lab}>" "${recorded_step}" "${output}")
    set_tests_properties("${lab}.profile: every counter has a value in the ncu output recorded for ${recorded_step}"
      PROPERTIES LABELS "cpu;${lab};profile")
  endforeach()
  add_test(NAME "${lab}.judge: the judge has the lab's steps and the planner's functions"
    COMMAND "${root}/grader/tests/check_judge_front.sh" "$<TARGET_FILE:judge_${lab}>" "$<TARGET_FILE:grade_${lab}_starter>"
            "$<TARGET_FILE:plan_${lab}_starter>" "${lab_namespace}" "$<$<TARGET_EXISTS:${id}_given>:$<TARGET_FILE:${id}_given>>")
  set_tests_properties("${lab}.judge: the judge has the lab's steps and the planner's functions" PROPERTIES LABELS "cpu;${lab};judge")
  add_test(NAME "${lab}.static: the student's grader holds no kernel beyond the grader's own and the given ones"
    COMMAND workbook_audit kernels "--allowed=${grading}/kernels.allowed" "--student=$<TARGET_FILE:${id}_starter>"
            "$<TARGET_FILE:grade_${lab}_starter>")
  set_tests_properties("${lab}.static: the student's grader holds no kernel beyond the grader's own and the given ones"
    PROPERTIES LABELS "cpu;${lab};static")
endfunction()

# The instructor tree's half of a lab (see add_lab above): the reference solution, the witnesses,
# the mutants and their controls, and every test that proves the grader with them.
# add_lab_proofs_from_table(<NN_topic>): the lab's proofs as its table in
# solutions/NN_topic/proofs/proofs.h says them (grader/tests/proofs_table.h): print_proofs.cpp is
# compiled against the table and run here, at configure time, and prints add_lab_proofs()'s
# arguments, one a line. The table is C++, so a misspelt defence does not compile; editing it
# configures the build again. The top CMakeLists.txt calls this for every lab with a table.
function(add_lab_proofs_from_table lab)
  set(root "${PROJECT_SOURCE_DIR}")
  set(table "${root}/solutions/${lab}/proofs/proofs.h")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${table}" "${root}/grader/tests/proofs_table.h"
                                                                 "${root}/grader/tests/print_proofs.cpp")
  workbook_include_root(harness harness_root)
  try_run(printed compiled "${CMAKE_BINARY_DIR}/proofs_tables/${lab}" "${root}/grader/tests/print_proofs.cpp"
    CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${root}/solutions/${lab}/proofs;${root}/grader/tests;${harness_root}"
    CXX_STANDARD 20
    COMPILE_OUTPUT_VARIABLE compile_output
    RUN_OUTPUT_VARIABLE arguments)
  if(NOT compiled)
    message(FATAL_ERROR "solutions/${lab}/proofs/proofs.h, the lab's proofs table, does not compile:\n${compile_output}")
  endif()
  if(NOT printed EQUAL 0)
    message(FATAL_ERROR "the proofs table of ${lab} could not be printed (exit ${printed}): ${arguments}")
  endif()
  string(STRIP "${arguments}" arguments)
  string(REPLACE "\n" ";" arguments "${arguments}")
  add_lab_proofs(${lab} ${arguments})
endfunction()

function(add_lab_proofs lab)
  cmake_parse_arguments(PARSE_ARGV 1 LAB ""
    "MEMCHECK_MUTANT;RACECHECK_MUTANT;SYNCCHECK_MUTANT;SANITIZE_STEPS;REPEAT_STEPS"
    "MUTANTS;DEFENCE_MUTANTS;MUTANT_CONTROLS;WIDE_LOADS;INCLUDE_MUTANTS;JUDGED_HOST_MUTANTS;BOUNDARY_MUTANTS;JUDGED_DEFENCE_MUTANTS;JUDGED_CLOSED_MUTANTS;RESIDUE_MUTANTS")
  if(LAB_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_lab_proofs(${lab}): unknown arguments ${LAB_UNPARSED_ARGUMENTS}")
  endif()
  get_property(LAB_TOPIC GLOBAL PROPERTY WORKBOOK_${lab}_TOPIC)
  get_property(LAB_HOPPER_SPECIFIC GLOBAL PROPERTY WORKBOOK_${lab}_HOPPER_SPECIFIC)
  get_property(lab_build_folder GLOBAL PROPERTY WORKBOOK_${lab}_BUILD_FOLDER)
  if(NOT LAB_TOPIC)
    message(FATAL_ERROR "add_lab_proofs(${lab}): no add_lab(${lab} ...) before it")
  endif()
  set(id "lab${lab}")
  set(root "${PROJECT_SOURCE_DIR}")
  set(proofs "${root}/solutions/${lab}/proofs")
  set(gpu_code "${lab_build_folder}/gpu_code.architectures")

  # What the solution's grader links of the proofs, every .cu directly in proofs/: the witnesses, the
  # textbook form of each step's idea, which its bar must admit (ladder.h), and a lab's reference
  # measurements (lab 01's latencies, reference_values.h). Each registers itself when linked
  # (witness_registry.h, reference_values.h): only the solution's grader links them, whole, and only there
  # are their kernels counted as the candidate's own.
  file(GLOB linked_proofs CONFIGURE_DEPENDS "${proofs}/*.cu")
  if(linked_proofs)
    add_library(${id}_proofs STATIC ${linked_proofs})
    target_link_libraries(${id}_proofs PUBLIC ${id}_interface)
    # The lab's grading folder first: its check.h, not the harness's.
    workbook_include_root(harness harness_root)
    workbook_include_root(protocol protocol_root)
    target_include_directories(${id}_proofs PRIVATE "${root}/grader/labs/${lab}" "${harness_root}" "${protocol_root}")
    _set_lab_gpu_code(${id}_proofs)
  endif()
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
  add_test(NAME "${lab}.static: the solution's #include lines pass the #include check"
    COMMAND workbook_audit includes "--lab-folder=${root}/labs/${lab}" "--student-headers=${root}/include"
            "--internals=${root}/grader" "${root}/solutions/${lab}/${LAB_TOPIC}.cu")
  # What a student's object is checked against is the reference solution's own GPU code.
  add_test(NAME "${lab}.static: the solution carries the build's GPU code"
    COMMAND workbook_audit gpu-code "--object=$<TARGET_FILE:${id}_solution>" "--architectures=${gpu_code}"
            "--source=solutions/${lab}/${LAB_TOPIC}.cu")
  set_tests_properties("${lab}.static: the solution's #include lines pass the #include check"
    "${lab}.static: the solution carries the build's GPU code" PROPERTIES LABELS "cpu;${lab};static;host-code")
  # The machine code the build dumps of the libraries and the student's GPU half reads as cuobjdump
  # -fun's (needs cuobjdump): each file, then its dump.
  if(WORKBOOK_CUOBJDUMP)
    set(dumped "")
    set(files "$<TARGET_FILE:${id}_solution>" "$<TARGET_FILE:${id}_starter>")
    _judged_code(${lab} starter starters_judged_code unused unused)
    list(APPEND files "${starters_judged_code}")
    if(TARGET ${id}_given)
      list(APPEND files "$<TARGET_FILE:${id}_given>")
    endif()
    list(REMOVE_DUPLICATES files)  # the starter's library is what the judge loads in a submission's build
    foreach(file IN LISTS files)
      _machine_code_dump("${file}" dump)
      list(APPEND dumped "${file}" "${dump}")
    endforeach()
    add_test(NAME "${lab}.static: the build's machine-code dumps read as cuobjdump -fun does, kernel by kernel"
      COMMAND workbook_audit machine-code ${dumped})
    set_tests_properties("${lab}.static: the build's machine-code dumps read as cuobjdump -fun does, kernel by kernel"
      PROPERTIES LABELS "cpu;${lab};static")
  endif()
  add_test(NAME "${lab}.static: compiled solution"
    COMMAND static_checks "--starter=$<TARGET_FILE:${id}_starter>" "--solution=$<TARGET_FILE:${id}_solution>"
            "--ptx=$<TARGET_OBJECTS:${id}_solution_ptx>" "--ptxas=${CUDAToolkit_BIN_DIR}/ptxas" ${wide_args})
  set_tests_properties("${lab}.static: compiled solution" PROPERTIES LABELS "cpu;${lab};static")

  foreach(mutant IN LISTS LAB_MUTANTS)
    _add_lab_implementation(${lab} mutant_${mutant} "${proofs}/mutants/${mutant}.cu" reject)
    # Judged too, unless it calls the grader's own code (06's divergent_everywhere launches the
    # baseline): no planner links that, which is the point of one.
    file(STRINGS "${proofs}/mutants/${mutant}.cu" calls_the_grader REGEX "_baseline::")
    if(NOT calls_the_grader)
      _add_planner(${lab} mutant_${mutant})
      _add_judged_test(${lab} mutant_${mutant} reject)
    endif()
  endforeach()
  foreach(spec IN LISTS LAB_DEFENCE_MUTANTS)
    _add_defence_mutant(${lab} "${spec}")
  endforeach()
  foreach(spec IN LISTS LAB_MUTANT_CONTROLS)
    _add_mutant_control(${lab} "${spec}")
  endforeach()
  foreach(spec IN LISTS LAB_INCLUDE_MUTANTS)
    _add_include_mutant(${lab} "${spec}")
  endforeach()
  foreach(spec IN LISTS LAB_JUDGED_HOST_MUTANTS)
    _add_judged_host_mutant(${lab} "${spec}")
  endforeach()
  foreach(spec IN LISTS LAB_BOUNDARY_MUTANTS)
    _add_boundary_mutant(${lab} "${spec}")
  endforeach()
  foreach(spec IN LISTS LAB_JUDGED_DEFENCE_MUTANTS)
    _add_judged_defence_mutant(${lab} "${spec}")
  endforeach()
  foreach(spec IN LISTS LAB_JUDGED_CLOSED_MUTANTS)
    _add_judged_closed_mutant(${lab} "${spec}")
  endforeach()
  foreach(spec IN LISTS LAB_RESIDUE_MUTANTS)
    _add_residue_mutant(${lab} "${spec}")
  endforeach()

  set(repeat_steps "--test-suite=${lab}")  # every step: the steps table's test cases are the lab's suite
  if(LAB_REPEAT_STEPS)
    set(repeat_steps "--step=${LAB_REPEAT_STEPS}")
  endif()
  # Judged, as every file is graded: the lab's judge with the solution's planner and GPU code.
  _judge_device_code(${lab} solution solution_code)
  set(judged_solution "--planner=$<TARGET_FILE:plan_${lab}_solution>" ${solution_code})
  set(name "${lab}.repeat: the solution, judged, graded 5 times gets the same verdicts")
  add_test(NAME "${name}" COMMAND "${root}/grader/tests/repeat_verdicts.sh" 5 "$<TARGET_FILE:judge_${lab}>" ${judged_solution}
                                  "${repeat_steps}")
  set_tests_properties("${name}" PROPERTIES LABELS "gpu;${lab};repeat;judge" SKIP_RETURN_CODE 77 TIMEOUT 900)
  set(sanitize_steps "--test-suite=${lab}")
  if(LAB_SANITIZE_STEPS)
    set(sanitize_steps "--step=${LAB_SANITIZE_STEPS}")
  endif()
  foreach(tool IN ITEMS memcheck racecheck synccheck)
    string(TOUPPER "${tool}" upper)
    if(LAB_${upper}_MUTANT)
      if(NOT TARGET grade_${lab}_mutant_${LAB_${upper}_MUTANT})  # right answers: only the tool sees it
        _build_lab_implementation(${lab} mutant_${LAB_${upper}_MUTANT} "${proofs}/mutants/${LAB_${upper}_MUTANT}.cu")
      endif()
      _add_sanitize_test(${lab} mutant_${LAB_${upper}_MUTANT} ${tool} error "${sanitize_steps}")
    endif()
    _add_sanitize_test(${lab} solution ${tool} clean "${sanitize_steps}")
  endforeach()
endfunction()

# One compute-sanitizer tool over one grader's correctness half (small shapes, exact-size
# allocations: the tools run kernels a hundred times slower, and see past an array's end only
# when nothing is allocated there). grader/tests/sanitize.sh runs it and reads its summary.
function(_add_sanitize_test lab kind tool expect steps)
  find_program(WORKBOOK_COMPUTE_SANITIZER compute-sanitizer HINTS "${CUDAToolkit_BIN_DIR}")
  if(NOT WORKBOOK_COMPUTE_SANITIZER)
    message(STATUS "compute-sanitizer not found: no ${tool} tests for ${lab}")
    return()
  endif()
  if(expect STREQUAL "error")
    set(name "${lab}.sanitize: ${tool} finds the defect in ${kind}")
  else()
    set(name "${lab}.sanitize: ${tool} finds nothing in the ${kind}")
  endif()
  add_test(NAME "${name}"
    COMMAND "${PROJECT_SOURCE_DIR}/grader/tests/sanitize.sh" ${tool} ${expect} "${WORKBOOK_COMPUTE_SANITIZER}"
            "$<TARGET_FILE:grade_${lab}_${kind}>" --correctness-only --exact-allocations "${steps}")
  set_tests_properties("${name}" PROPERTIES LABELS "gpu;${lab};sanitize" SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()

# A student's file, `kind` of the lab (the student's file of this build, add_lab's students_kind),
# compiled three times from one text, each compile limited (_limit_student_compile):
#  - lab<NN_topic>_<kind>, the library its grader links (./workbook bench), as every implementation's;
#  - lab<NN_topic>_<kind>_gpu, its GPU half alone: `nvcc -fatbin` (cicc and ptxas, no host
#    compiler) writes the fat binary the judge loads (grader/judge/replay.h), which the build dumps;
#  - lab<NN_topic>_<kind>_host, its host half, which its planner links (grader/planner/planner.h):
#    the planner has no GPU and loads no GPU code, so its kernels are PTX only (no ptxas), compiled
#    by cicc at -O0 as a -G build's are, for the names the launches record.
# Grading builds the two halves alone, side by side: one compile makes them one after the other (its
# host compiler starts after ptxas ends), lab 04's file 5.7 s on an H200's host; the judge still
# loads the same GPU code (solutions/04_sgemm/NOTES.md).
function(_compile_students_file lab kind source)
  set(id "lab${lab}")
  set(target ${id}_${kind})
  get_property(lab_build_folder GLOBAL PROPERTY WORKBOOK_${lab}_BUILD_FOLDER)
  add_library(${target}_gpu OBJECT "${source}")
  add_library(${target}_host STATIC "${source}")
  foreach(half ${target}_gpu ${target}_host)
    target_link_libraries(${half} PUBLIC ${id}_interface)
    _set_lab_gpu_code(${half})
    _limit_student_compile(${half})
    # nvcc times each of its passes on the file (--time appends to the table); ./workbook empties the
    # table before it builds and writes what it holds into grade.log (grader/runner/build.h,
    # built.h's nvcc_passes): where a student's wait after editing the file goes.
    set_property(TARGET ${half} PROPERTY WORKBOOK_NVCC_PASSES "${CMAKE_CURRENT_BINARY_DIR}/${half}.nvcc_passes.csv")
    target_compile_options(${half} PRIVATE
      "$<$<COMPILE_LANGUAGE:CUDA>:--time=${CMAKE_CURRENT_BINARY_DIR}/${half}.nvcc_passes.csv>")
  endforeach()
  _limit_student_compile(${target})
  target_compile_options(${target}_gpu PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-fatbin>")
  get_target_property(architectures ${target}_host CUDA_ARCHITECTURES)
  list(TRANSFORM architectures REPLACE "^([0-9]+[af]?)(-real|-virtual)?$" "\\1-virtual")
  set_property(TARGET ${target}_host PROPERTY CUDA_ARCHITECTURES "${architectures}")
  target_compile_options(${target}_host PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-Xcicc=-O0>")
  set_target_properties(${target}_host PROPERTIES ARCHIVE_OUTPUT_DIRECTORY "${lab_build_folder}")
  # The GPU half's machine code, dumped as _dump_machine_code dumps a library's, whenever the fat
  # binary is newer than its dump. An object library runs no command after it is built, so a target
  # of its own does, after it.
  if(WORKBOOK_CUOBJDUMP)
    _machine_code_dump("$<TARGET_OBJECTS:${target}_gpu>" dump)
    add_custom_target(${target}_gpu_dumped
      COMMAND sh -c "test \"$3\" -nt \"$2\" || { ${_WORKBOOK_DUMP_SASS}; }"
              "${PROJECT_SOURCE_DIR}/grader/runner/limited.sh" "${WORKBOOK_CUOBJDUMP}" "$<TARGET_OBJECTS:${target}_gpu>"
              "${dump}"
      COMMENT "Dumping the machine code of ${target}_gpu" VERBATIM)
    add_dependencies(${target}_gpu_dumped ${target}_gpu)
  endif()
  # The file is compiled again whenever its text differs from the text last compiled, whatever its
  # time says. Ninja compiles a file only when it is newer than its object, and a file put back from
  # a copy (cp -p, tar, unzip, rsync -a) keeps its old time: the object of the text since replaced
  # would be graded. So a copy of the text, rewritten (and so newer) only when the text differs, is
  # what each compile of it depends on; checking costs one cmp each build.
  set(compiled_text "${CMAKE_CURRENT_BINARY_DIR}/${target}.compiled_text")
  add_custom_target(${target}_text
    COMMAND sh -c "cmp -s \"$0\" \"$1\" || cp \"$0\" \"$1\"" "${source}" "${compiled_text}"
    BYPRODUCTS "${compiled_text}" COMMENT "Comparing ${source} with the text last compiled" VERBATIM)
  foreach(compiled ${target} ${target}_gpu ${target}_host)
    add_dependencies(${compiled} ${target}_text)
  endforeach()
  set_property(SOURCE "${source}" APPEND PROPERTY OBJECT_DEPENDS "${compiled_text}")
endfunction()

# Every compile of a student's file runs under grader/runner/limited.sh: bounded in wall time, CPU
# time, memory and output, each reported in plain words when hit.
function(_limit_student_compile target)
  set_property(TARGET ${target} PROPERTY CUDA_COMPILER_LAUNCHER "${PROJECT_SOURCE_DIR}/grader/runner/limited.sh;compile")
  # Its host code runs only in its planner: compiled at -O1 (the top CMakeLists.txt says why).
  set_property(TARGET ${target} PROPERTY WORKBOOK_STUDENT_FILE ON)
  # The one file a student waits for after an edit is compiled with every core of the host:
  # --split-compile=0 splits cicc's and ptxas's work on it into parallel parts (lab 04's file: 8.3-9.7
  # s without, 4.7-6.5 s with, on 16 cores; the steps' ratios measured alike, solutions/04_sgemm/NOTES.md).
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--split-compile=0>")
endfunction()

# "name|text": a mutant whose #include lines leave the lab (never compiled, read by `workbook_audit
# includes`). The check must refuse it with a finding that contains `text`.
function(_add_include_mutant lab spec)
  string(REPLACE "|" ";" fields "${spec}")
  list(GET fields 0 mutant)
  list(GET fields 1 expected)
  set(source "${PROJECT_SOURCE_DIR}/solutions/${lab}/proofs/mutants/${mutant}.cu")
  set(name "${lab}.mutant_${mutant}: the #include check refuses it (${expected})")
  add_test(NAME "${name}" COMMAND workbook_audit includes "--lab-folder=${PROJECT_SOURCE_DIR}/labs/${lab}"
           "--student-headers=${PROJECT_SOURCE_DIR}/include" "--internals=${PROJECT_SOURCE_DIR}/grader" "${source}")
  string(REPLACE "[" "\\[" pattern "${expected}")
  string(REPLACE "]" "\\]" pattern "${pattern}")
  string(REPLACE "(" "\\(" pattern "${pattern}")
  string(REPLACE ")" "\\)" pattern "${pattern}")
  set_tests_properties("${name}" PROPERTIES LABELS "cpu;${lab};mutant;host-code" PASS_REGULAR_EXPRESSION "\\[host-code\\][^\n]*${pattern}")
endfunction()

# "name|defence|02.1,02.2[|also-without][|honest]": see add_lab_proofs() above.
function(_add_defence_mutant lab spec)
  string(REPLACE "|" ";" fields "${spec}")
  list(LENGTH fields count)
  if(count LESS 3)
    message(FATAL_ERROR "add_lab(${lab}): DEFENCE_MUTANTS takes name|defence|steps[|also-without][|honest], not '${spec}'")
  endif()
  list(GET fields 0 mutant)
  list(GET fields 1 defence)
  list(GET fields 2 steps)
  set(also "")
  set(proven_by "clears")
  if(count GREATER 3)
    list(GET fields -1 last)
    if(last STREQUAL "honest")  # a mutant no faster than honest work: proved on correctness, not speed
      set(proven_by "honest")
      list(REMOVE_AT fields -1)
      math(EXPR count "${count} - 1")
    endif()
  endif()
  if(count GREATER 3)
    list(GET fields 3 also_without)
    string(REPLACE "," ";" also_list "${also_without}")
    foreach(other IN LISTS also_list)
      list(APPEND also "--without=${other}")
    endforeach()
  endif()

  set(kind mutant_${mutant})
  set(grader grade_${lab}_${kind})
  _build_lab_implementation(${lab} ${kind} "${PROJECT_SOURCE_DIR}/solutions/${lab}/proofs/mutants/${mutant}.cu")

  set(caught "${lab}.${kind}: [${defence}] rejects it on ${steps}")
  add_test(NAME "${caught}" COMMAND ${grader} "--step=${steps}" "--expect-reason=[${defence}]" ${also})
  if(proven_by STREQUAL "honest")
    set(proof "${lab}.${kind}: without [${defence}] nothing else rejects it on ${steps}: graded on its own time")
    add_test(NAME "${proof}" COMMAND ${grader} "--step=${steps}" "--without=${defence}" ${also} --expect-honest)
  else()
    set(proof "${lab}.${kind}: without [${defence}] it clears ${steps}")
    add_test(NAME "${proof}" COMMAND ${grader} "--step=${steps}" "--without=${defence}" ${also})
  endif()
  set_tests_properties("${caught}" "${proof}" PROPERTIES LABELS "gpu;${lab};mutant;defence" SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# The fields of a list's entry "a|b|c", set in the caller as the variables `names` ("mutant;steps"):
# exactly as many, else a configure error that names the list and the entry's `form`.
function(_spec_fields lab list form names spec)
  string(REPLACE "|" ";" fields "${spec}")
  list(LENGTH fields found)
  list(LENGTH names count)
  if(NOT found EQUAL count)
    message(FATAL_ERROR "add_lab_proofs(${lab}): ${list} takes ${form}, not '${spec}'")
  endif()
  foreach(name value IN ZIP_LISTS names fields)
    set(${name} "${value}" PARENT_SCOPE)
  endforeach()
endfunction()

# "name|06.10[,06.9]": see add_lab().
function(_add_mutant_control lab spec)
  _spec_fields(${lab} MUTANT_CONTROLS "name|steps" "mutant;steps" "${spec}")
  set(kind mutant_${mutant}_control)
  _build_lab_implementation(${lab} ${kind} "${PROJECT_SOURCE_DIR}/solutions/${lab}/proofs/mutants/${mutant}.cu")
  target_compile_definitions(lab${lab}_${kind} PRIVATE WORKBOOK_MUTANT_CONTROL)
  set(name "${lab}.${kind}: with its defect fixed, mutant_${mutant} is correct on ${steps}")
  add_test(NAME "${name}" COMMAND grade_${lab}_${kind} "--step=${steps}" --correctness-only)
  set_tests_properties("${name}" PROPERTIES LABELS "gpu;${lab};mutant;control" SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()

# The machine code of a library of GPU code, dumped once it is built (`cuobjdump -sass`, under
# limited.sh as a compile): a judge's machine-code checks read the dump (machine_code.h, given it
# with --sass) instead of running cuobjdump for each kernel in each step. A dump that cannot be
# written leaves none, and the judge then runs cuobjdump on the library itself, kernel by kernel.
# The shell's words for it: sh -c WORDS LIMITED CUOBJDUMP FILE DUMP.
set(_WORKBOOK_DUMP_SASS "\"$0\" compile \"$1\" -sass \"$2\" > \"$3.part\" && mv \"$3.part\" \"$3\" || rm -f \"$3.part\"")
function(_dump_machine_code target)
  if(NOT WORKBOOK_CUOBJDUMP)
    return()
  endif()
  _machine_code_dump("$<TARGET_FILE:${target}>" dump)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND sh -c "${_WORKBOOK_DUMP_SASS}"
            "${PROJECT_SOURCE_DIR}/grader/runner/limited.sh" "${WORKBOOK_CUOBJDUMP}" "$<TARGET_FILE:${target}>" "${dump}"
    VERBATIM)
endfunction()

# Where the build dumps the machine code of `file` (a path, or a generator expression for one), into
# `out`: FILE.sass beside it, "" where the build dumps none (no cuobjdump). Named here alone: the
# runner reads it from built-KIND.txt and gives it to the judge (--sass).
function(_machine_code_dump file out)
  if(WORKBOOK_CUOBJDUMP)
    set(${out} "${file}.sass" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# The GPU code of one of the lab's implementations: the build's architectures (a mutant's: the
# WORKBOOK_MUTANT_ARCHITECTURES, where set: cmake/Architectures.cmake), and with add_lab's
# HOPPER_SPECIFIC (seen here because add_lab calls this function) Hopper's sm_90a machine code.
# A Hopper GPU runs sm_90a's code where a file has both, so a file compiled for 90 and 90a would
# carry sm_90's machine code that nothing runs: there 90 becomes 90a (sm_90a's machine code and its
# PTX), which spares every compile of the lab a second cicc and ptxas, and the build's dump a second
# architecture (lab 04's file: 8.5 s to 7.0 s on two cores). Without 90 the list keeps
# its own architectures and gains sm_90a's machine code.
function(_set_lab_gpu_code target)
  set(architectures ${CMAKE_CUDA_ARCHITECTURES})
  if(target MATCHES "_mutant_" AND WORKBOOK_MUTANT_ARCHITECTURES)
    set(architectures ${WORKBOOK_MUTANT_ARCHITECTURES})
  endif()
  if(LAB_HOPPER_SPECIFIC)
    list(TRANSFORM architectures REPLACE "^90$" "90a")
    list(TRANSFORM architectures REPLACE "^90-real$" "90a-real")
    if(NOT "90a" IN_LIST architectures AND NOT "90a-real" IN_LIST architectures)
      list(APPEND architectures 90a-real)
    endif()
  endif()
  set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES "${architectures}")
endfunction()

# lab<NN_topic>_<kind> from `source`, and grade_<NN_topic>_<kind>: the lab's grader linked with it.
function(_build_lab_implementation lab kind source)
  set(id "lab${lab}")
  add_library(${id}_${kind} STATIC "${source}")
  target_link_libraries(${id}_${kind} PUBLIC ${id}_interface)
  _set_lab_gpu_code(${id}_${kind})
  _dump_machine_code(${id}_${kind})
  if(kind STREQUAL students_kind)
    _compile_students_file(${lab} ${kind} "${source}")
  endif()
  add_executable(grade_${lab}_${kind})
  # The grader's own libraries before the implementation: where both define the same inline
  # function or template instance, the linker keeps the first, so the grader's code runs its own.
  target_link_libraries(grade_${lab}_${kind} PRIVATE workbook_grader_main ${id}_grader ${id}_baseline workbook_harness
                        workbook_core workbook_lab_support ${id}_${kind})
  if(kind STREQUAL "solution" AND TARGET ${id}_proofs)
    # Whole: nothing calls a proof by name, its file registers it (witness_registry.h, reference_values.h) when linked.
    target_link_libraries(grade_${lab}_${kind} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${id}_proofs>")
  endif()
  # Every implementation's library and grader in the lab's own build folder, the instructor tree's
  # too: ./workbook runs build/<preset>/labs/NN_topic/grade_NN_topic_<kind> and audits its library there.
  get_property(lab_build_folder GLOBAL PROPERTY WORKBOOK_${lab}_BUILD_FOLDER)
  set_target_properties(${id}_${kind} grade_${lab}_${kind} PROPERTIES ARCHIVE_OUTPUT_DIRECTORY "${lab_build_folder}"
                        RUNTIME_OUTPUT_DIRECTORY "${lab_build_folder}")
  if(kind MATCHES "^(starter|solution|submission)$")
    _add_planner(${lab} ${kind})
    _write_what_was_built(${lab} ${kind})
  endif()
  # Graded across the trust boundary by the lab's judge (GPU): the starter fails every step with its
  # TODO, the solution passes every step, as they do linked into their graders.
  if(kind STREQUAL "starter")
    _add_judged_test(${lab} starter todo)
  elseif(kind STREQUAL "solution")
    _add_judged_test(${lab} solution pass)
  endif()
endfunction()

# The GPU code the judge loads of `kind` of the lab (`given`: the lab's given code), into `file_out`,
# its machine code's dump ("" where none) into `sass_out`, and the target that builds both into
# `target_out`: a student's file's GPU half (_compile_students_file), else the library of `kind`.
function(_judged_code lab kind file_out sass_out target_out)
  set(id "lab${lab}")
  if(TARGET ${id}_${kind}_gpu)
    set(file "$<TARGET_OBJECTS:${id}_${kind}_gpu>")
    set(target ${id}_${kind}_gpu)
    if(TARGET ${id}_${kind}_gpu_dumped)
      set(target ${id}_${kind}_gpu_dumped)
    endif()
  else()
    set(file "$<TARGET_FILE:${id}_${kind}>")
    set(target ${id}_${kind})
  endif()
  _machine_code_dump("${file}" sass)
  set(${file_out} "${file}" PARENT_SCOPE)
  set(${sass_out} "${sass}" PARENT_SCOPE)
  set(${target_out} ${target} PARENT_SCOPE)
endfunction()

# The judge's arguments for `kind`'s GPU code and the lab's given code, into `out`: each file with
# --device-code, and its dump after it with --sass.
function(_judge_device_code lab kind out)
  set(id "lab${lab}")
  _judged_code(${lab} ${kind} file sass unused)
  set(arguments "--device-code=${file}")
  if(sass)
    list(APPEND arguments "--sass=${sass}")
  endif()
  if(TARGET ${id}_given)
    _judged_code(${lab} given given_file given_sass unused)
    list(APPEND arguments "--device-code=${given_file}")
    if(given_sass)
      list(APPEND arguments "--sass=${given_sass}")
    endif()
  endif()
  set(${out} "${arguments}" PARENT_SCOPE)
endfunction()

# labs/NN_topic/built-<kind>.txt in the build: what the build makes of one implementation of the lab
# and where it puts it, a "KEY<tab>VALUE" line each, for the runner (grader/runner/built.h), which
# spells no target's name or output's path itself. Targets are named here, paths are the targets'
# own ($<TARGET_FILE>), written at generate time, so the runner reads them before it builds.
function(_write_what_was_built lab kind)
  set(id "lab${lab}")
  get_property(lab_build_folder GLOBAL PROPERTY WORKBOOK_${lab}_BUILD_FOLDER)
  _judged_code(${lab} ${kind} device_code device_code_sass device_code_target)
  set(given_code "")
  set(given_code_sass "")
  if(TARGET ${id}_given)
    _judged_code(${lab} given given_code given_code_sass unused)
  endif()
  set(nvcc_passes "")
  if(TARGET ${id}_${kind}_gpu)  # a student's file: nvcc times each half's passes
    set(nvcc_passes "$<TARGET_PROPERTY:${id}_${kind}_gpu,WORKBOOK_NVCC_PASSES>$<SEMICOLON>$<TARGET_PROPERTY:${id}_${kind}_host,WORKBOOK_NVCC_PASSES>")
  endif()
  set(lines
    "judge_target\tjudge_${lab}"
    "judge\t$<TARGET_FILE:judge_${lab}>"
    "grader_target\tgrade_${lab}_${kind}"
    "grader\t$<TARGET_FILE:grade_${lab}_${kind}>"
    "planner_target\tplan_${lab}_${kind}"
    "planner\t$<TARGET_FILE:plan_${lab}_${kind}>"
    "device_code\t${device_code}"
    "device_code_sass\t${device_code_sass}"
    "device_code_target\t${device_code_target}"
    "given_code\t${given_code}"
    "given_code_sass\t${given_code_sass}"
    "gpu_code_architectures\t${lab_build_folder}/gpu_code.architectures"
    "nvcc_passes\t${nvcc_passes}")
  list(JOIN lines "\n" content)
  file(GENERATE OUTPUT "${lab_build_folder}/built-${kind}.txt" CONTENT "${content}\n")
endfunction()

# The command that grades proofs/mutants/<mutant>.cu by the lab's judge, into `out`: the mutant and
# its planner built first where no other list built them.
function(_judged_mutant lab mutant out)
  set(id "lab${lab}")
  if(NOT TARGET ${id}_mutant_${mutant})
    _build_lab_implementation(${lab} mutant_${mutant} "${PROJECT_SOURCE_DIR}/solutions/${lab}/proofs/mutants/${mutant}.cu")
  endif()
  if(NOT TARGET plan_${lab}_mutant_${mutant})
    _add_planner(${lab} mutant_${mutant})
  endif()
  _judge_device_code(${lab} mutant_${mutant} mutant_code)
  set(judged judge_${lab} "--planner=$<TARGET_FILE:plan_${lab}_mutant_${mutant}>" ${mutant_code})
  set(${out} "${judged}" PARENT_SCOPE)
endfunction()

# A host-code mutant judged (GPU): its host trick runs in its planner, on nothing the judge measures,
# so its verdicts are its kernels' alone. spec "name|clears|fails": it clears the steps `clears`
# and fails the steps `fails`, as its honest kernel does; "name|reject": it fails every step (the
# planner refuses what it asks, e.g. a device-to-device copy). Either way the trick neither forges
# nor spoils a verdict.
function(_add_judged_host_mutant lab spec)
  string(REPLACE "|" ";" fields "${spec}")
  list(GET fields 0 mutant)
  list(GET fields 1 clears)
  string(SUBSTRING "${lab}" 0 2 number)
  _judged_mutant(${lab} ${mutant} judged)
  if(clears STREQUAL "reject")
    set(name "${lab}.judge: mutant_${mutant}, judged, fails every step")
    add_test(NAME "${name}" COMMAND ${judged} "--test-case=${number}.*" --expect-reject)
    set_tests_properties("${name}" PROPERTIES LABELS "gpu;${lab};judge;host-code" SKIP_RETURN_CODE 77 TIMEOUT 600)
    return()
  endif()
  list(GET fields 2 fails)
  set(name "${lab}.judge: mutant_${mutant}, judged, clears ${clears} as its honest kernel does")
  add_test(NAME "${name}" COMMAND ${judged} "--step=${clears}")
  set_tests_properties("${name}" PROPERTIES LABELS "gpu;${lab};judge;host-code" SKIP_RETURN_CODE 77 TIMEOUT 600)
  set(name "${lab}.judge: mutant_${mutant}, judged, fails ${fails} as its honest kernel does")
  add_test(NAME "${name}" COMMAND ${judged} "--step=${fails}" --expect-reject)
  set_tests_properties("${name}" PROPERTIES LABELS "gpu;${lab};judge;host-code" SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# "name|steps|honest" or "name|steps|refusal text": see add_lab_proofs() above.
function(_add_boundary_mutant lab spec)
  _spec_fields(${lab} BOUNDARY_MUTANTS "name|steps|honest or name|steps|refusal text" "mutant;steps;expected" "${spec}")
  _judged_mutant(${lab} ${mutant} judged)
  list(APPEND judged "--step=${steps}")
  if(expected STREQUAL "honest")
    set(name "${lab}.judge: mutant_${mutant}, judged, is graded on its own kernels' time on ${steps}")
    list(APPEND judged --expect-honest)
  else()
    set(name "${lab}.judge: mutant_${mutant}, judged, is refused on ${steps}")
    list(APPEND judged "--expect-reason=${expected}")
  endif()
  add_test(NAME "${name}" COMMAND ${judged})
  set_tests_properties("${name}" PROPERTIES LABELS "gpu;${lab};judge;boundary" SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# "name|defence|steps": see add_lab_proofs() above.
function(_add_judged_defence_mutant lab spec)
  _spec_fields(${lab} JUDGED_DEFENCE_MUTANTS "name|defence|steps" "mutant;defence;steps" "${spec}")
  _judged_mutant(${lab} ${mutant} judged)
  set(name "${lab}.judge: mutant_${mutant}, judged as a student's file is: [${defence}] rejects it on ${steps}")
  add_test(NAME "${name}" COMMAND ${judged} "--step=${steps}" "--expect-reason=[${defence}]")
  set_tests_properties("${name}" PROPERTIES LABELS "gpu;${lab};judge;defence" SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# "name|defence|steps": see add_lab_proofs() above.
function(_add_judged_closed_mutant lab spec)
  _spec_fields(${lab} JUDGED_CLOSED_MUTANTS "name|defence|steps" "mutant;defence;steps" "${spec}")
  _judged_mutant(${lab} ${mutant} judged)
  set(closed "${lab}.judge: mutant_${mutant}, judged: with [${defence}] its trick does not work, and it fails ${steps}")
  # With a seed on the judge's command line, as every grading has (the runner's): the old trick read it.
  add_test(NAME "${closed}" COMMAND ${judged} "--step=${steps}" --seed=61 --expect-reject)
  set(proof "${lab}.judge: mutant_${mutant}, judged without [${defence}]: its trick clears ${steps}")
  add_test(NAME "${proof}" COMMAND ${judged} "--step=${steps}" --seed=61 "--without=${defence}")
  set_tests_properties("${closed}" "${proof}" PROPERTIES LABELS "gpu;${lab};judge;defence" SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# "name|steps": see add_lab_proofs() above.
function(_add_residue_mutant lab spec)
  _spec_fields(${lab} RESIDUE_MUTANTS "name|steps" "mutant;steps" "${spec}")
  _judged_mutant(${lab} ${mutant} judged)
  set(honest "${lab}.judge: mutant_${mutant}, judged, finds no answer of this call in the grader's scratch and is graded on its own kernels on ${steps}")
  # Through residue_proof.sh: each test also needs the mutant's word that it was told where the scratch
  # lay. The judge is then an argument, not the command: its target named by its file.
  set(proof_of "${PROJECT_SOURCE_DIR}/grader/tests/residue_proof.sh")
  list(POP_FRONT judged judge)
  list(PREPEND judged "$<TARGET_FILE:${judge}>")
  add_test(NAME "${honest}" COMMAND "${proof_of}" ${judged} "--step=${steps}" --expect-honest)
  set(proof "${lab}.judge: mutant_${mutant}, judged without [remembered-work], copies the grader's product: [ceiling] on ${steps}")
  add_test(NAME "${proof}" COMMAND "${proof_of}" ${judged} "--step=${steps}" --without=remembered-work "--expect-reason=[ceiling]")
  set_tests_properties("${honest}" PROPERTIES
    ENVIRONMENT "WORKBOOK_PROOF_SCRATCH_LOG=${CMAKE_CURRENT_BINARY_DIR}/${mutant}-honest.scratch")
  set_tests_properties("${proof}" PROPERTIES
    ENVIRONMENT "WORKBOOK_PROOF_SCRATCH_LOG=${CMAKE_CURRENT_BINARY_DIR}/${mutant}-proof.scratch")
  set_tests_properties("${honest}" "${proof}" PROPERTIES LABELS "gpu;${lab};judge;residue" SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# plan_<NN_topic>_<kind>, the implementation's planner (the trust boundary, grader/planner/planner.h):
# the implementation with the lab's list of functions and the planner's loop, and nothing of the
# grader's: a file that calls the grader's code does not link into one. It links the vendor
# libraries the lab's grader links, so that a file calling cuBLAS or cuFFT from its host code
# builds, and calls them on nothing the judge measures.
function(_add_planner lab kind)
  set(id "lab${lab}")
  get_property(lab_build_folder GLOBAL PROPERTY WORKBOOK_${lab}_BUILD_FOLDER)
  get_property(vendor_libraries GLOBAL PROPERTY WORKBOOK_${lab}_GRADER_LIBRARIES)
  set(host_code ${id}_${kind})
  if(TARGET ${id}_${kind}_host)  # a student's file: its host half (_compile_students_file)
    set(host_code ${id}_${kind}_host)
  endif()
  add_executable(plan_${lab}_${kind})
  target_link_libraries(plan_${lab}_${kind} PRIVATE workbook_planner_main workbook_planner_copies ${id}_planner_functions
                        workbook_planner ${host_code} ${vendor_libraries})
  set_target_properties(plan_${lab}_${kind} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${lab_build_folder}")
endfunction()

# The implementation `kind` graded by the lab's judge (grader/judge/judge.h), every step, on the
# GPU: `expectation` is pass (every step passes), todo (every step fails naming its TODO: a starter)
# or reject (every step fails: a wrong kernel is wrong whoever runs its host code).
function(_add_judged_test lab kind expectation)
  set(id "lab${lab}")
  string(SUBSTRING "${lab}" 0 2 number)
  _judge_device_code(${lab} ${kind} device_code)
  if(expectation STREQUAL "pass")
    set(name "${lab}.judge: the ${kind}, judged, passes every step")
    set(flags "")
  elseif(expectation STREQUAL "todo")
    set(name "${lab}.judge: the ${kind}, judged, fails every step with its TODO")
    set(flags "--expect-reason=TODO(${number}.")
  else()
    set(name "${lab}.judge: ${kind}, judged, fails every step")
    set(flags "--expect-reject")
  endif()
  add_test(NAME "${name}"
    COMMAND judge_${lab} "--planner=$<TARGET_FILE:plan_${lab}_${kind}>" ${device_code} "--test-case=${number}.*" ${flags})
  set_tests_properties("${name}" PROPERTIES LABELS "gpu;${lab};judge" SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

function(_add_lab_implementation lab kind source expect)
  _build_lab_implementation(${lab} ${kind} "${source}")
  set(grader grade_${lab}_${kind})

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
