# Two functions make a lab's targets, one for each tree (docs/guide.md, "Layout"); what proves them
# is the lab's tests program's to say (grader/tests/lab_tests.cpp, cmake/LabTests.cmake).
include("${CMAKE_CURRENT_LIST_DIR}/StudentFile.cmake")  # how a student's file is compiled
include("${CMAKE_CURRENT_LIST_DIR}/LabTests.cmake")     # the lab's tests
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
#                             judge asks for them (grader/protocol/student_functions.cpp)
#   judge_<NN_topic>          the lab's judge (grader/judge/judge.h): the grader with the stand-ins
#                             in place of any implementation
#   lab<NN_topic>_starter     labs/NN_topic/<topic>.cu, and grade_<NN_topic>_starter: the grader
#                             linked with it (with a submission, lab<NN_topic>_submission too); and
#                             plan_<NN_topic>_starter, its planner (grader/planner/planner.h)
#   HOPPER_SPECIFIC: every implementation is compiled for sm_90a, Hopper's architecture-specific
#   target (lab 04's setmaxnreg), in place of sm_90 where the build has it.
#
# add_lab_proofs(<NN_topic>), the instructor tree (solutions/NN_topic/proofs/), built only where
# solutions/ is (never in a student's copy or a submission's build):
#   lab<NN_topic>_solution    solutions/NN_topic/<topic>.cu, and grade_<NN_topic>_solution, which
#                             also links lab<NN_topic>_proofs, every .cu directly in proofs/: the
#                             witnesses (the textbook form of each step's idea, witness_registry.h)
#                             and a lab's reference measurements (lab 01's latencies)
#   lab<NN_topic>_mutant_<name>   proofs/mutants/<name>.cu, its grader and (unless it calls the
#                             grader's baseline, which no planner links) its planner; and
#                             _mutant_<name>_control, where the file has a control
#
# Every implementation's library, grader and planner is written to the lab's own build folder
# (labs/NN_topic/), with labs/NN_topic/built-<kind>.txt saying where each lies (runner/built.h):
# ./workbook and the lab's tests read them, and name no target or output themselves. Every
# implementation, the student's included, is compiled to the same GPU code: the build's
# CMAKE_CUDA_ARCHITECTURES (cmake/Architectures.cmake), with sm_90a for HOPPER_SPECIFIC, written
# to labs/NN_topic/gpu_code.architectures, which a student's object must carry (workbook_audit gpu-code).

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
  # The lab's tests, once every implementation of it is known: at the end of the configure (a
  # deferred call reads its arguments when it runs, so the lab's name is written into it now).
  set_property(GLOBAL PROPERTY WORKBOOK_${lab}_SOURCE_FOLDER "${CMAKE_CURRENT_SOURCE_DIR}")
  cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${PROJECT_SOURCE_DIR}]] CALL _add_lab_tests [[${lab}]])")
endfunction()

# The instructor tree's half of a lab (see above): the reference solution, the witnesses, and every
# mutant of proofs/mutants/ with its control. What each proves, the lab's proofs table says
# (solutions/NN_topic/proofs/proofs.h, grader/tests/proofs_table.h), to the lab's tests program.
function(add_lab_proofs lab)
  get_property(LAB_TOPIC GLOBAL PROPERTY WORKBOOK_${lab}_TOPIC)
  get_property(LAB_HOPPER_SPECIFIC GLOBAL PROPERTY WORKBOOK_${lab}_HOPPER_SPECIFIC)
  if(NOT LAB_TOPIC)
    message(FATAL_ERROR "add_lab_proofs(${lab}): no add_lab(${lab} ...) before it")
  endif()
  set(id "lab${lab}")
  set(proofs "${PROJECT_SOURCE_DIR}/solutions/${lab}/proofs")
  # What the solution's grader links of the proofs, every .cu directly in proofs/. Each registers
  # itself when linked (witness_registry.h, reference_values.h): only the solution's grader links
  # them, whole, and only there are their kernels counted as the candidate's own.
  file(GLOB linked_proofs CONFIGURE_DEPENDS "${proofs}/*.cu")
  if(linked_proofs)
    add_library(${id}_proofs STATIC ${linked_proofs})
    target_link_libraries(${id}_proofs PUBLIC ${id}_interface)
    # The lab's grading folder first: its check.h, not the harness's.
    workbook_include_root(harness harness_root)
    workbook_include_root(protocol protocol_root)
    target_include_directories(${id}_proofs PRIVATE "${PROJECT_SOURCE_DIR}/grader/labs/${lab}" "${harness_root}"
                                                    "${protocol_root}")
    _set_lab_gpu_code(${id}_proofs)
  endif()
  _add_lab_implementation(${lab} solution "${PROJECT_SOURCE_DIR}/solutions/${lab}/${LAB_TOPIC}.cu" pass)
  # The solution again, as Hopper PTX with the same flags: ptxas reports its resources from it.
  add_library(${id}_solution_ptx OBJECT "${PROJECT_SOURCE_DIR}/solutions/${lab}/${LAB_TOPIC}.cu")
  target_link_libraries(${id}_solution_ptx PRIVATE ${id}_interface)
  set_target_properties(${id}_solution_ptx PROPERTIES CUDA_PTX_COMPILATION ON CUDA_ARCHITECTURES 90-virtual)
  add_custom_target(${id}_static_inputs ALL DEPENDS ${id}_solution_ptx)
  file(GLOB mutants CONFIGURE_DEPENDS "${proofs}/mutants/*.cu")
  foreach(source IN LISTS mutants)
    get_filename_component(mutant "${source}" NAME_WE)
    file(STRINGS "${source}" calls_the_grader REGEX "_baseline::")
    file(STRINGS "${source}" has_a_control REGEX "WORKBOOK_MUTANT_CONTROL")
    if(calls_the_grader)
      _build_lab_implementation(${lab} mutant_${mutant} "${source}")
    else()
      _build_lab_implementation(${lab} mutant_${mutant} "${source}" PLANNER)
    endif()
    if(has_a_control)
      _build_lab_implementation(${lab} mutant_${mutant}_control "${source}")
      target_compile_definitions(${id}_mutant_${mutant}_control PRIVATE WORKBOOK_MUTANT_CONTROL)
    endif()
  endforeach()
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

# lab<NN_topic>_<kind> from `source`, and grade_<NN_topic>_<kind>: the lab's grader linked with it;
# with PLANNER (and always for the starter, solution and submission), its planner too.
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
  get_property(lab_build_folder GLOBAL PROPERTY WORKBOOK_${lab}_BUILD_FOLDER)
  set_target_properties(${id}_${kind} grade_${lab}_${kind} PROPERTIES ARCHIVE_OUTPUT_DIRECTORY "${lab_build_folder}"
                        RUNTIME_OUTPUT_DIRECTORY "${lab_build_folder}")
  if(kind MATCHES "^(starter|solution|submission)$" OR "PLANNER" IN_LIST ARGN)
    _add_planner(${lab} ${kind})
  endif()
  _write_what_was_built(${lab} ${kind})
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_${lab}_KINDS ${kind})
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

# labs/NN_topic/built-<kind>.txt in the build: what the build makes of one implementation of the lab
# and where it puts it, a "KEY<tab>VALUE" line each, for the runner and the lab's tests
# (grader/runner/built.h), which spell no target's name or output's path themselves. Paths are the
# targets' own ($<TARGET_FILE>), written at generate time, so they are read before anything is built.
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
  set(planner_target "")
  set(planner "")
  if(TARGET plan_${lab}_${kind})
    set(planner_target plan_${lab}_${kind})
    set(planner "$<TARGET_FILE:plan_${lab}_${kind}>")
  endif()
  _machine_code_dump("$<TARGET_FILE:${id}_${kind}>" library_sass)
  set(lines
    "judge_target\tjudge_${lab}"
    "judge\t$<TARGET_FILE:judge_${lab}>"
    "grader_target\tgrade_${lab}_${kind}"
    "grader\t$<TARGET_FILE:grade_${lab}_${kind}>"
    "planner_target\t${planner_target}"
    "planner\t${planner}"
    "library\t$<TARGET_FILE:${id}_${kind}>"
    "library_sass\t${library_sass}"
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
