#!/usr/bin/env bash
# Writes seven prepared submissions of lab 05 into DIR, each a folder named for its "student", for the
# grade-class test: the reference solution (as a tarball, with files that must be ignored), the
# untouched starter, two partial ones, one that does not compile, and two that are the solution but
# for one step: the first hangs, the second's kernel faults.
# usage: class_fixtures.sh ROOT DIR
set -euo pipefail
root=$1 dir=$2
solution="$root/solutions/05_fft/fft.cu" starter="$root/labs/05_fft/fft.cu"
rm -rf "$dir"; mkdir -p "$dir"
put() { mkdir -p "$dir/$1/labs/05_fft"; cat >"$dir/$1/labs/05_fft/fft.cu"; }

# all_steps: the solution, packed as a student would, with a stray file and a changed given header.
mkdir -p "$dir/tmp/labs/05_fft"
cp "$solution" "$dir/tmp/labs/05_fft/fft.cu"
echo "// a student's own edit of a given file: must be ignored" >"$dir/tmp/labs/05_fft/given.cuh"
echo "notes" >"$dir/tmp/NOTES.txt"
tar -czf "$dir/all_steps.tgz" -C "$dir/tmp" labs NOTES.txt
rm -rf "$dir/tmp"

put untouched <"$starter"

# three_steps: 05.1-05.3 done, 05.4 and 05.5 still open.
sed -e 's|^  launch_fft<16, 1, InterleavedPoints>(p, stream, "fft_16_outputs_per_thread");|  throw workbook::NotImplemented("TODO(05.4) not implemented");|' \
    -e 's|^  launch_fft<16, 4, .*(p, stream, "fft_at_cufft_speed");|  throw workbook::NotImplemented("TODO(05.5) not implemented");|' \
    "$solution" | put three_steps

# slow_final: every step correct, but 05.5 is 05.1's kernel: correct and below its bar.
sed -e 's|^  launch_fft<16, 4, .*(p, stream, "fft_at_cufft_speed");|  launch_fft<2, 1, InterleavedPoints>(p, stream, "fft_at_cufft_speed");|' \
    "$solution" | put slow_final

# does_not_compile: a syntax error in the starter.
sed -e 's|validate(problem, "fft_2_outputs_per_thread");|validate(problem, "fft_2_outputs_per_thread") oops;|' "$starter" | put does_not_compile

# hangs: the solution, but 05.1 launches a kernel that waits for a value nobody writes: 05.1 is
# stopped, and the steps after it are graded, as they would be alone.
sed -e '/^void fft_2_outputs_per_thread/i\
namespace {\
__global__ void wait_forever_kernel(const float* flag) {\
  // in[0] is a drawn number, equal to itself however often it is read again.\
  while (*static_cast<const volatile float*>(flag) == *static_cast<const volatile float*>(flag)) {\
  }\
}\
}  // namespace\

' -e 's|^  launch_fft<2, 1, InterleavedPoints>(p, stream, "fft_2_outputs_per_thread");|  if (p.batch > 0) workbook::launch(wait_forever_kernel, dim3(1), dim3(1), 0, stream, reinterpret_cast<const float*>(p.in));|' \
    "$solution" | put hangs

# faults: the solution, but 05.2's kernel writes through an address nothing is allocated at: the
# CUDA context is lost with it, 05.2 fails, and the steps after it are graded as they would be alone.
sed -e '/^void fft_4_outputs_per_thread/i\
namespace {\
__global__ void write_where_nothing_is_kernel(float2* out) {\
  *reinterpret_cast<volatile float*>(sizeof(float) * 4) = out[0].x;  // the null page: no allocation is there\
}\
}  // namespace\

' -e 's|^  launch_fft<4, 1, InterleavedPoints>(p, stream, "fft_4_outputs_per_thread");|  if (p.batch > 0) workbook::launch(write_where_nothing_is_kernel, dim3(1), dim3(1), 0, stream, p.out);|' \
    "$solution" | put faults
grep -c . "$dir/three_steps/labs/05_fft/fft.cu" >/dev/null
grep -q 'TODO(05.4) not implemented' "$dir/three_steps/labs/05_fft/fft.cu" || { echo "class_fixtures: the solution's 05.4 launcher changed"; exit 1; }
grep -q 'TODO(05.5) not implemented' "$dir/three_steps/labs/05_fft/fft.cu" || { echo "class_fixtures: the solution's 05.5 launcher changed"; exit 1; }
grep -q 'launch_fft<2, 1, InterleavedPoints>(p, stream, "fft_at_cufft_speed")' "$dir/slow_final/labs/05_fft/fft.cu" ||
  { echo "class_fixtures: the solution's 05.5 launcher changed"; exit 1; }
grep -q 'workbook::launch(wait_forever_kernel' "$dir/hangs/labs/05_fft/fft.cu" || { echo "class_fixtures: the solution's 05.1 launcher changed"; exit 1; }
grep -q 'workbook::launch(write_where_nothing_is_kernel' "$dir/faults/labs/05_fft/fft.cu" || { echo "class_fixtures: the solution's 05.2 launcher changed"; exit 1; }
echo "seven submissions in $dir"
