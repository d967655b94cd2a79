#!/usr/bin/env bash
# limited.sh KIND COMMAND...: runs COMMAND, which compiles or runs a student's code, within limits
# on its wall time, CPU time, address space and the size of any file it writes, and says in plain
# words which limit it hit. KIND is `compile` (CMake puts it before every compile of a student's
# file) or `step` (./workbook puts it before every step's grader process). Each limit may be set by
# the environment variable beside it; the defaults leave honest work a wide margin.
set -u
kind=${1:-}
shift || true
case "$kind" in
  compile) wall=${WORKBOOK_COMPILE_SECONDS:-600} cpu=${WORKBOOK_COMPILE_CPU_SECONDS:-600}
           memory_mib=${WORKBOOK_COMPILE_MEMORY_MIB:-8192} file_mib=${WORKBOOK_COMPILE_FILE_MIB:-1024}
           what="compiling the student's file"
           for argument in "$@"; do case "$argument" in *.cu) what="compiling ${argument##*/}" ;; esac; done ;;
  # A CUDA process maps the device's memory into its address space (unified addressing; on the H100
  # it needs more than 8 GiB to start at all): the step's
  # limit on it is wide, and bounds host allocations, not the GPU's.
  # A judge may grade several steps in one process (WORKBOOK_STEPS_IN_PROCESS, a lab's): its time
  # limits are then so many times a step's, and the runner holds each step to its own.
  step) steps=${WORKBOOK_STEPS_IN_PROCESS:-1}
        wall=$(( ${WORKBOOK_STEP_SECONDS:-300} * steps )) cpu=$(( ${WORKBOOK_STEP_CPU_SECONDS:-600} * steps ))
        memory_mib=${WORKBOOK_STEP_MEMORY_MIB:-262144} file_mib=${WORKBOOK_STEP_FILE_MIB:-64}
        what="this step's process"; [ "$steps" -eq 1 ] || what="this process of $steps steps" ;;
  *) echo "usage: limited.sh compile|step COMMAND..." >&2; exit 2 ;;
esac
[ $# -gt 0 ] || { echo "limited.sh: no command" >&2; exit 2; }
# Under these limits a CUDA process cannot start: a compile that asks the GPU for its architectures
# would not see it, and nvcc would compile for its default instead (cmake/Architectures.cmake).
if [ "$kind" = compile ]; then
  for argument in "$@"; do
    case "$argument" in
      -arch=native|--gpu-architecture=native)
        echo "error: $what asks the GPU for its architectures ($argument), which a limited compile cannot see: the build must name them (cmake/Architectures.cmake)" >&2
        exit 2 ;;
    esac
  done
fi

memory_kib=unlimited
[ "$memory_mib" = unlimited ] || memory_kib=$((memory_mib * 1024))
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
status=0
# bash's ulimit sets the limits in the child, which then becomes COMMAND (exec): the limits hold for
# it and everything it starts (nvcc's cicc, ptxas and host compiler).
# The CPU limit's hard value is a little above its soft one, so that the soft one's SIGXCPU, not a
# SIGKILL, says which limit it was.
started=$SECONDS
timeout --kill-after=10 "$wall" bash -c \
  'ulimit -S -t "$1" && ulimit -H -t "$(($1 + 5))" && ulimit -v "$2" && ulimit -f "$3" && shift 3 && exec "$@"' \
  limited "$cpu" "$memory_kib" "$((file_mib * 1024))" "$@" 2>"$errors" || status=$?
cat "$errors" >&2
case $status in
  0) exit 0 ;;
  124|137) [ $((SECONDS - started)) -ge "$wall" ] &&
             echo "error: $what took longer than $wall s of wall time, its limit, and was stopped" >&2 ;;
  152) echo "error: $what used more than $cpu s of CPU time, its limit, and was stopped" >&2 ;;
  153) echo "error: $what wrote a file larger than $file_mib MiB, its limit, and was stopped" >&2 ;;
  *) if [ "$memory_mib" != unlimited ] && grep -qiE 'out of memory|bad_alloc|cannot allocate memory|memory exhausted|MemoryError' "$errors"; then
       echo "error: $what needed more than $memory_mib MiB of memory, its limit" >&2
     fi ;;
esac
exit "$status"
