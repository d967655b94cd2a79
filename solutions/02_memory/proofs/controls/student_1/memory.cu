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
#include <cstdint>
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

// 02.1-02.3 (and 02.5 with one float4): block b copies the kPerThread * blockDim.x vectors that
// start at b * kPerThread * blockDim.x; thread t takes vectors t, t + blockDim.x, ... so that each
// load instruction of a warp reads one contiguous stretch. All loads into registers first, then all
// stores. The n % (floats per vector) floats past the last whole vector: block 0's first threads.
template <typename Vector, int kPerThread>
__global__ void copy_vectors_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  constexpr std::size_t kFloatsPerVector = sizeof(Vector) / sizeof(float);
  const std::size_t vectors = n / kFloatsPerVector;
  const Vector* in_v = reinterpret_cast<const Vector*>(in);
  Vector* out_v = reinterpret_cast<Vector*>(out);
  const std::size_t first = std::size_t{blockIdx.x} * kPerThread * blockDim.x + threadIdx.x;
  Vector v[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const std::size_t i = first + std::size_t(k) * blockDim.x;
    if (i < vectors) v[k] = in_v[i];
  }
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const std::size_t i = first + std::size_t(k) * blockDim.x;
    if (i < vectors) out_v[i] = v[k];
  }
  if constexpr (kFloatsPerVector > 1) {
    const std::size_t tail = vectors * kFloatsPerVector;
    if (blockIdx.x == 0 && threadIdx.x < n - tail) out[tail + threadIdx.x] = in[tail + threadIdx.x];
  }
}

// 02.4: a grid that stays resident, each block walking the array in strides of the whole grid,
// kPerThread float4 per thread per batch; the next batch's loads are issued before the current
// batch is stored, so that a thread always has a batch in flight.
template <int kPerThread>
__global__ void copy_many_float4_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t vectors = n / 4;
  const float4* in_v = reinterpret_cast<const float4*>(in);
  float4* out_v = reinterpret_cast<float4*>(out);
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x * kPerThread;
  std::size_t first = std::size_t{blockIdx.x} * blockDim.x * kPerThread + threadIdx.x;
  float4 current[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const std::size_t i = first + std::size_t(k) * blockDim.x;
    if (i < vectors) current[k] = in_v[i];
  }
  for (; first < vectors; first += stride) {
    const std::size_t next_first = first + stride;
    float4 next[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {  // the next batch's loads first...
      const std::size_t i = next_first + std::size_t(k) * blockDim.x;
      if (i < vectors) next[k] = in_v[i];
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {  // ...then the current batch's stores
      const std::size_t i = first + std::size_t(k) * blockDim.x;
      if (i < vectors) out_v[i] = current[k];
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) current[k] = next[k];
  }
  const std::size_t tail = vectors * 4;
  if (blockIdx.x == 0 && threadIdx.x < n - tail) out[tail + threadIdx.x] = in[tail + threadIdx.x];
}

// 02.6: thread 0 of each block drives the copy engine through a ring of kStages stages of
// kStageBytes in dynamic shared memory, the stages' barriers after them. Block b takes the whole
// stages (chunks) b, b + gridDim.x, ...; the floats past the last whole chunk take ordinary loads,
// by every thread of the grid.
struct Ring {
  static constexpr unsigned kStageBytes = 32 * 1024;
  static constexpr int kStages = 4;
  static constexpr std::size_t kStageFloats = kStageBytes / sizeof(float);
  static constexpr std::size_t kBarrierOffset = std::size_t{kStages} * kStageBytes;
  static constexpr std::size_t kBytes = kBarrierOffset + kStages * sizeof(std::uint64_t);
};

__global__ void copy_with_copy_engine_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  namespace bulk = workbook::bulk_copy;
  extern __shared__ __align__(128) unsigned char ring[];
  std::uint64_t* barriers = reinterpret_cast<std::uint64_t*>(ring + Ring::kBarrierOffset);
  const std::size_t chunks = n / Ring::kStageFloats;

  if (threadIdx.x == 0 && blockIdx.x < chunks) {
    const std::size_t mine = (chunks - blockIdx.x - 1) / gridDim.x + 1;  // chunks blockIdx.x + k * gridDim.x
    for (int s = 0; s < Ring::kStages; ++s) bulk::init_barrier(&barriers[s]);
    bulk::make_barrier_inits_visible();
    // Start the loads of all the stages before the first store.
    for (std::size_t k = 0; k < mine && k < std::size_t{Ring::kStages}; ++k) {
      const std::size_t chunk = blockIdx.x + k * gridDim.x;
      const int s = static_cast<int>(k);
      bulk::expect_bytes(&barriers[s], Ring::kStageBytes);
      bulk::load_to_shared(ring + std::size_t{Ring::kStageBytes} * s, in + chunk * Ring::kStageFloats, Ring::kStageBytes,
                           &barriers[s]);
    }
    for (std::size_t k = 0; k < mine; ++k) {
      const int s = static_cast<int>(k % Ring::kStages);
      const unsigned parity = static_cast<unsigned>((k / Ring::kStages) & 1);  // the stage's use 0, 1, 2, ...
      unsigned char* stage = ring + std::size_t{Ring::kStageBytes} * s;
      const std::size_t chunk = blockIdx.x + k * gridDim.x;
      bulk::wait_for_phase(&barriers[s], parity);  // the stage has landed
      bulk::store_from_shared(out + chunk * Ring::kStageFloats, stage, Ring::kStageBytes);
      bulk::commit_stores();
      if (k + Ring::kStages < mine) {
        bulk::wait_until_read<0>();  // the store has read the stage: it may be loaded again
        const std::size_t ahead = chunk + std::size_t{Ring::kStages} * gridDim.x;
        bulk::expect_bytes(&barriers[s], Ring::kStageBytes);
        bulk::load_to_shared(stage, in + ahead * Ring::kStageFloats, Ring::kStageBytes, &barriers[s]);
      }
    }
    bulk::wait_until_written();  // the ring must outlive the stores that read it
  }

  const std::size_t tail = chunks * Ring::kStageFloats;
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = tail + std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += threads) out[i] = in[i];
}

// Blocks of `threads` of `kernel` resident on the whole GPU at once with `shared_bytes` of dynamic
// shared memory.
template <typename Kernel>
std::size_t resident_blocks(Kernel kernel, int threads, std::size_t shared_bytes) {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  workbook::allow_dynamic_shared_memory(kernel, shared_bytes);  // so that the count sees the padding allowed
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
  if (per_sm < 1)
    throw std::invalid_argument("no block of " + std::to_string(threads) + " threads with " + std::to_string(shared_bytes) +
                                " bytes of shared memory fits on an SM for this kernel (its registers or shared memory)");
  return std::size_t(per_sm) * std::size_t(std::max(sms, 1));
}

// One launcher for 02.1-02.3 and 02.5: enough blocks to cover the vectors, one at least for the tail.
template <typename Vector, int kPerThread>
void launch_copy_vectors(const CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  const std::size_t vectors = p.n / (sizeof(Vector) / sizeof(float));
  const std::size_t per_block = std::size_t{kPerThread} * p.threads_per_block;
  const std::size_t blocks = std::max<std::size_t>(1, workbook::ceil_div(vectors, per_block));
  if (blocks > INT_MAX) throw std::invalid_argument("copy: too many floats for one grid");
  workbook::launch(copy_vectors_kernel<Vector, kPerThread>, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.in, p.out, p.n);
}

}  // namespace

// Each launcher: validate, size the grid (at least one block when n > 0, none when n == 0), and
// launch with workbook::launch(kernel, grid, block, problem.occupancy_padding_bytes, stream, args...)
// so that every step runs at the occupancy the grader asked for.

void copy_several_floats(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_several_floats", alignof(float));
  launch_copy_vectors<float, Policy::kFloatsPerThread>(problem, stream);
}

void copy_float2(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_float2", alignof(float2));
  launch_copy_vectors<float2, Policy::kFloat2PerThread>(problem, stream);
}

void copy_float4(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_float4", alignof(float4));
  launch_copy_vectors<float4, Policy::kFloat4PerThread>(problem, stream);
}

void copy_many_float4(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_many_float4", alignof(float4));
  if (problem.n == 0) return;
  constexpr int kPerThread = Policy::kManyFloat4PerThread;
  const auto kernel = copy_many_float4_kernel<kPerThread>;
  // Only as many blocks as fit at once (with the padding), and no more than the array needs.
  const std::size_t needed = std::max<std::size_t>(
      1, workbook::ceil_div(problem.n / 4, std::size_t{kPerThread} * problem.threads_per_block));
  const std::size_t blocks =
      std::min(needed, resident_blocks(kernel, problem.threads_per_block, problem.occupancy_padding_bytes));
  workbook::launch(kernel, dim3(static_cast<unsigned>(blocks)), dim3(problem.threads_per_block),
                   problem.occupancy_padding_bytes, stream, problem.in, problem.out, problem.n);
}

void copy_at_memcpy_speed(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_at_memcpy_speed", alignof(float4));
  // The simplest wide copy: one float4 per thread, a grid that covers the array.
  launch_copy_vectors<float4, 1>(problem, stream);
}

void copy_with_copy_engine(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_with_copy_engine", workbook::bulk_copy::kAlignment);
  require_copy_engine("copy_with_copy_engine");
  if (problem.n == 0) return;
  const std::size_t shared_bytes = std::max(problem.occupancy_padding_bytes, Ring::kBytes);
  // One block per SM (or as many as fit), no more than there are chunks (one at least, for the tail).
  const std::size_t chunks = problem.n / Ring::kStageFloats;
  const std::size_t blocks = std::min(std::max<std::size_t>(chunks, 1),
                                      resident_blocks(copy_with_copy_engine_kernel, problem.threads_per_block, shared_bytes));
  workbook::launch(copy_with_copy_engine_kernel, dim3(static_cast<unsigned>(blocks)), dim3(problem.threads_per_block),
                   shared_bytes, stream, problem.in, problem.out, problem.n);
}

}  // namespace memory_lab
