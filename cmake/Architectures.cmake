# The GPU code every file is compiled to, decided once, when the build is configured, and written
# into every compile command as explicit architectures: the solutions, the witnesses, the mutants, the
# starters and a student's file all get the same.
#
# Why not nvcc's -arch=native (what CMake passes for CMAKE_CUDA_ARCHITECTURES=native): it asks the GPU
# at every compile, and a student's file is compiled under grader/runner/limited.sh, whose memory
# limit is far below what a CUDA process needs to start. There nvcc cannot see the GPU, falls back
# to its default (compute_75 PTX), and the student's kernels are graded as code the driver compiles
# at load time, or do not compile at all (lab 04's cp.async needs sm_80).
#
# The presets say where the list comes from: cpu names it ("80;90"); gpu and debug say native,
# which is resolved here into the architectures CMake measured on this machine's GPUs when it
# identified the compiler (a program it ran at configure time, outside any limit). An instructor
# sets it with WORKBOOK_CUDA_ARCHITECTURES (./workbook passes it on: docs/instructors.md).
if(CMAKE_CUDA_ARCHITECTURES STREQUAL "native")
  set(measured "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")  # "90-real", one per kind of GPU
  list(TRANSFORM measured REPLACE "-real$" "")
  list(REMOVE_DUPLICATES measured)
  if(NOT measured)
    message(FATAL_ERROR "CMAKE_CUDA_ARCHITECTURES is 'native', but no GPU answered when CMake asked for this "
      "machine's (CMakeFiles/CMakeError.log says why). Name the GPU code instead, e.g. "
      "WORKBOOK_CUDA_ARCHITECTURES=90 ./workbook ... for an H100 or H200, or build with WORKBOOK_PRESET=cpu")
  endif()
  # Plain numbers: machine code for each GPU, and its PTX, as -arch=native gave.
  set(CMAKE_CUDA_ARCHITECTURES "${measured}" CACHE STRING
      "the GPU code every file is compiled to (resolved from 'native': this machine's GPUs)" FORCE)
  message(STATUS "GPU code for this machine's GPUs: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
endif()

workbook_check_architectures(CMAKE_CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")

# The mutants (solutions/NN_topic/proofs/mutants/) are graded only on a GPU, by a build configured
# for it. A build with no GPU (the cpu preset: CI) compiles them to prove they compile, which one
# architecture proves as well as two, at half the work (about a third of CI's build): there
# WORKBOOK_MUTANT_ARCHITECTURES names it. Empty, the default: the build's own, like every other file.
set(WORKBOOK_MUTANT_ARCHITECTURES "" CACHE STRING
    "the GPU code the proofs' mutants are compiled to (empty: CMAKE_CUDA_ARCHITECTURES)")
workbook_check_architectures(WORKBOOK_MUTANT_ARCHITECTURES "${WORKBOOK_MUTANT_ARCHITECTURES}")
