// Lab 02_memory: hide memory latency with fewer threads. This is the file you edit.
//
// Little's law: to sustain a bandwidth B over a latency L, B x L bytes must be in flight. On the
// H100 that is about 3 TB/s x ~0.7 us, some 2 MB, or 16 KB per SM. A thread that copies one float
// has 4 bytes in flight, so the naive copy (the grader's baseline) needs thousands of threads per
// SM to get there, and slows down as soon as occupancy drops. Each step puts more bytes in flight
// per thread; labs/02_memory/README.md explains each one and the bar it must clear.
//   TODO(02.1)  several independent floats per thread
//   TODO(02.2)  float2 loads
//   TODO(02.3)  float4 loads
//   TODO(02.4)  many float4 per thread, in flight all the time, at 6.25% occupancy
//   TODO(02.5)  a copy that matches cudaMemcpy when warps are plentiful
//   TODO(02.6)  Hopper: one thread per SM drives the bulk-copy engine, at 1.56% occupancy
// Grade it with `./workbook grade 02_memory`.

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "workbook/bulk_copy.cuh"  // given: the bulk-copy engine's instructions, for 02.6
#include "given.cuh"        // given: validate(), require_copy_engine()
#include "memory.h"
#include "workbook/launch.cuh"

namespace memory_lab {

namespace {

struct Policy {
  static constexpr int kFloatsPerThread = 4;       // 02.1: 16 bytes in flight per thread
  static constexpr int kFloat2PerThread = 4;       // 02.2: 32 bytes
  static constexpr int kFloat4PerThread = 4;       // 02.3: 64 bytes
  static constexpr int kManyFloat4PerThread = 16;  // 02.4: 256 bytes, twice over while prefetching

  // Two batches of 16 float4 are 128 registers; with addresses and counters ptxas gives the kernel
  // 155-170 (the reference solution 159; two students' kernels 161 and 168), one block of 128 threads
  // per SM at the bar's 6.25% either way.
  static_assert(2 * kManyFloat4PerThread * 4 <= 160, "both batches of float4 must fit in registers");
  static_assert(kFloatsPerThread < kFloat2PerThread * 2 && kFloat2PerThread * 2 < kFloat4PerThread * 4 &&
                    kFloat4PerThread < kManyFloat4PerThread,
                "each step must put more bytes in flight per thread than the one before");
};

// TODO(02.1): write the kernel. Block b copies the kFloatsPerThread * blockDim.x floats that start
// at b * kFloatsPerThread * blockDim.x; thread t takes floats t, t + blockDim.x, ... so that each
// load instruction of a warp reads one contiguous stretch. Load all of a thread's floats into a
// register array first, then store them all: the loads must not wait for each other.
// Guard every index against n: n need not be a multiple of anything.
//
// TODO(02.2), TODO(02.3): the same copy with float2 and float4 (reinterpret_cast the pointers; the
// n % 2 or n % 4 floats left over after the last whole vector still need copying). One template
// with the vector type and the count as parameters serves 02.1 to 02.3.
//
// TODO(02.4): try your 02.3 kernel with 16 float4 per thread first, and measure it: it is no
// faster. The handout says why (the compiler moves each store up next to its load, and a block
// that exits leaves its SM idle). Then write a kernel whose blocks stay resident: launch only as
// many blocks as fit at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor, with the padding),
// let each walk the array in strides of the whole grid, and load the next batch of
// kManyFloat4PerThread float4 before you store the current one.
//
// TODO(02.5): your design. The grader measures it at 256 threads per block and full occupancy,
// against cudaMemcpy on the same buffers. Measure before you add anything clever.
//
// TODO(02.6) (compute capability 9.0; on an older GPU the grader reports it not applicable): the
// grader gives you one warp per SM. Let thread 0 of each block move whole stages of, say, 32 KiB
// through a ring of 4 stages in dynamic shared memory, with the functions of workbook/bulk_copy.cuh: per
// chunk, arm the stage's barrier (expect_bytes) and start its load; when the barrier's phase
// completes, start the stage's store and commit it; before loading that stage again, wait until
// the store has read it (wait_until_read). Keep a barrier per stage after the stages in the same
// dynamic shared memory, and launch with max(problem.occupancy_padding_bytes, what the ring needs).
// The floats past the last whole stage: ordinary loads, by every thread. Before the kernel ends,
// wait_until_written(): the ring must outlive the stores that read it.

[[noreturn]] void not_implemented(const char* todo, const char* step) {
  throw workbook::NotImplemented(std::string(todo) + " not implemented: " + step +
                                 " (labs/02_memory/memory.cu)");
}

}  // namespace

// Each launcher: validate, size the grid (at least one block when n > 0, none when n == 0), and
// launch with workbook::launch(kernel, grid, block, problem.occupancy_padding_bytes, stream, args...)
// so that every step runs at the occupancy the grader asked for.

void copy_several_floats(const CopyProblem& problem, cudaStream_t) {
  validate(problem, "copy_several_floats", alignof(float));
  not_implemented("TODO(02.1)", "copy_several_floats");
}

void copy_float2(const CopyProblem& problem, cudaStream_t) {
  validate(problem, "copy_float2", alignof(float2));
  not_implemented("TODO(02.2)", "copy_float2");
}

void copy_float4(const CopyProblem& problem, cudaStream_t) {
  validate(problem, "copy_float4", alignof(float4));
  not_implemented("TODO(02.3)", "copy_float4");
}

void copy_many_float4(const CopyProblem& problem, cudaStream_t) {
  validate(problem, "copy_many_float4", alignof(float4));
  not_implemented("TODO(02.4)", "copy_many_float4");
}

void copy_at_memcpy_speed(const CopyProblem& problem, cudaStream_t) {
  validate(problem, "copy_at_memcpy_speed", alignof(float4));
  not_implemented("TODO(02.5)", "copy_at_memcpy_speed");
}

void copy_with_copy_engine(const CopyProblem& problem, cudaStream_t) {
  validate(problem, "copy_with_copy_engine", workbook::bulk_copy::kAlignment);
  require_copy_engine("copy_with_copy_engine");
  not_implemented("TODO(02.6)", "copy_with_copy_engine");
}

}  // namespace memory_lab
