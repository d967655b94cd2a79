# How a student's file is compiled, the one file of the build that is hostile input: in two halves,
# one for each process that runs part of it, each compile bounded by grader/runner/limited.sh, and
# compiled again whenever its text changes, whatever its time says. add_lab() (cmake/AddLab.cmake)
# compiles the student's file of the build (the starter, or a submission's file) this way.

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
# loads the same GPU code (docs/guide.md, "What the flow's choices save").
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
  # of its own does, after it: in every build (a whole build's tests read the dump too), where it
  # costs a comparison of two files' times when nothing changed.
  if(WORKBOOK_CUOBJDUMP)
    _machine_code_dump("$<TARGET_OBJECTS:${target}_gpu>" dump)
    add_custom_target(${target}_gpu_dumped ALL
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
  # s without, 4.7-6.5 s with, on 16 cores; the steps' ratios measured alike: docs/guide.md, "What the
  # flow's choices save").
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--split-compile=0>")
endfunction()
