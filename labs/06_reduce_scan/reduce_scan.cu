// Lab 06_reduce_scan: Harris's reduction ladder and the scan, to CUB speed. This is the file you edit.
//
// A sum of n ints reads 4n bytes and does n - 1 additions: at memory speed the additions are free,
// so a reduction is a read, and each step removes one reason it is not yet one. An exclusive scan
// reads 4n bytes and writes 4n; its steps take it from three passes over memory to one.
// labs/06_reduce_scan/README.md explains each step and the bar it must clear.
//   TODO(06.1)  interleaved addressing with a strided index: no divergent warps
//   TODO(06.2)  sequential addressing: no bank conflicts
//   TODO(06.3)  the first addition during the load
//   TODO(06.4)  the last warp by __shfl_down_sync / __shfl_xor_sync
//   TODO(06.5)  complete unrolling: the block size a template parameter
//   TODO(06.6)  many elements per thread, wide loads, a grid sized to the GPU, one launch
//   TODO(06.7)  Blelloch's up-sweep and down-sweep in shared memory, without bank conflicts; block
//               totals scanned, offsets added
//   TODO(06.8)  Hillis-Steele within each warp by shuffles, in registers
//   TODO(06.9)  register blocking: many elements per thread, moved by warp transposes, reduce-then-scan
//   TODO(06.10) a single pass with decoupled look-back
// Sums wrap modulo 2^32: add as unsigned int. No CUB, no Thrust (the grader checks).
// Grade it with `./workbook grade 06_reduce_scan`.

#include <cstddef>
#include <string>

#include "given.cuh"  // given: validate(), workspace_of()
#include "reduce_scan.h"
#include "workbook/launch.cuh"

namespace reduce_scan_lab {

namespace {

// TODO(06.1): a kernel in which each block of 256 threads sums 256 elements in shared memory and
// writes its partial sum; at level s (1, 2, 4, ...) thread t adds partial[2 s t + s] to
// partial[2 s t] when 2 s t < blockDim.x. The launcher runs it again on the partial sums until one
// is left, and the last pass writes it to out. The partial sums live in the workspace: write
// reduce_workspace_bytes() below first.
// TODO(06.2) to TODO(06.5): the handout describes each change to 06.1's kernel.
// TODO(06.6): the handout describes the one-pass kernel.
// TODO(06.7) to TODO(06.10): the handout describes the scans, and the workspace each needs.

[[noreturn]] void not_implemented(const char* todo, const char* step) {
  throw workbook::NotImplemented(std::string(todo) + " not implemented: " + step + " (labs/06_reduce_scan/reduce_scan.cu)");
}

}  // namespace

// Each launcher: validate, then launch with workbook::launch(kernel, grid, block, 0, stream, args...).

void reduce_interleaved(const SumProblem& problem, cudaStream_t) {
  validate(problem, "reduce_interleaved", Output::kOneSum);
  not_implemented("TODO(06.1)", "reduce_interleaved");
}

void reduce_sequential(const SumProblem& problem, cudaStream_t) {
  validate(problem, "reduce_sequential", Output::kOneSum);
  not_implemented("TODO(06.2)", "reduce_sequential");
}

void reduce_first_add_during_load(const SumProblem& problem, cudaStream_t) {
  validate(problem, "reduce_first_add_during_load", Output::kOneSum);
  not_implemented("TODO(06.3)", "reduce_first_add_during_load");
}

void reduce_last_warp_shuffled(const SumProblem& problem, cudaStream_t) {
  validate(problem, "reduce_last_warp_shuffled", Output::kOneSum);
  not_implemented("TODO(06.4)", "reduce_last_warp_shuffled");
}

void reduce_unrolled(const SumProblem& problem, cudaStream_t) {
  validate(problem, "reduce_unrolled", Output::kOneSum);
  not_implemented("TODO(06.5)", "reduce_unrolled");
}

void reduce_at_cub_speed(const SumProblem& problem, cudaStream_t) {
  validate(problem, "reduce_at_cub_speed", Output::kOneSum);
  not_implemented("TODO(06.6)", "reduce_at_cub_speed");
}

void scan_blelloch(const SumProblem& problem, cudaStream_t) {
  validate(problem, "scan_blelloch", Output::kPrefixSums);
  not_implemented("TODO(06.7)", "scan_blelloch");
}

void scan_hillis_steele(const SumProblem& problem, cudaStream_t) {
  validate(problem, "scan_hillis_steele", Output::kPrefixSums);
  not_implemented("TODO(06.8)", "scan_hillis_steele");
}

void scan_register_blocked(const SumProblem& problem, cudaStream_t) {
  validate(problem, "scan_register_blocked", Output::kPrefixSums);
  not_implemented("TODO(06.9)", "scan_register_blocked");
}

void scan_decoupled_look_back(const SumProblem& problem, cudaStream_t) {
  validate(problem, "scan_decoupled_look_back", Output::kPrefixSums);
  not_implemented("TODO(06.10)", "scan_decoupled_look_back");
}

std::size_t reduce_workspace_bytes(const SumProblem&) { not_implemented("TODO(06.1)", "reduce_workspace_bytes"); }

std::size_t scan_workspace_bytes(const SumProblem&) { not_implemented("TODO(06.7)", "scan_workspace_bytes"); }

}  // namespace reduce_scan_lab
