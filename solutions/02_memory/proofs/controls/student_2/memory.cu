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

// 02.1 to 02.3: block b copies the kCount * blockDim.x vectors that start at b * kCount * blockDim.x;
// thread t takes vectors t, t + blockDim.x, ..., so that each load instruction of a warp reads one
// contiguous stretch. All of a thread's loads are issued before any of its stores. The n % width
// floats past the last whole vector are copied one by one by the first threads of block 0.
// (No __restrict__: the loads stay ahead of the stores, as written.)
template <typename Vector, int kCount>
__global__ void copy_vectors_kernel(const float* in, float* out, std::size_t n) {
  constexpr int kWidth = sizeof(Vector) / sizeof(float);
  const std::size_t vectors = n / kWidth;
  const Vector* in_v = reinterpret_cast<const Vector*>(in);
  Vector* out_v = reinterpret_cast<Vector*>(out);
  const std::size_t first = std::size_t(blockIdx.x) * kCount * blockDim.x + threadIdx.x;
  Vector v[kCount];
#pragma unroll
  for (int k = 0; k < kCount; ++k) {
    const std::size_t i = first + std::size_t(k) * blockDim.x;
    if (i < vectors) v[k] = in_v[i];
  }
#pragma unroll
  for (int k = 0; k < kCount; ++k) {
    const std::size_t i = first + std::size_t(k) * blockDim.x;
    if (i < vectors) out_v[i] = v[k];
  }
  if constexpr (kWidth > 1) {
    const std::size_t rest = n - vectors * kWidth;  // fewer than kWidth floats
    if (blockIdx.x == 0 && threadIdx.x < rest) {
      const std::size_t i = vectors * kWidth + threadIdx.x;
      out[i] = in[i];
    }
  }
}

// 02.4: blocks that stay resident walk the array in strides of the whole grid, kBatch float4 per
// thread per step, in two register batches used in turn: the next batch's loads are issued before
// the current batch is stored, so that a batch is always on its way while the other is stored.
template <int kBatch>
__device__ __forceinline__ void load_batch(float4 (&v)[kBatch], const float4* in, std::size_t first, unsigned step,
                                           std::size_t vectors) {
#pragma unroll
  for (int k = 0; k < kBatch; ++k) {
    const std::size_t i = first + std::size_t(k) * step;
    if (i < vectors) v[k] = in[i];
  }
}

template <int kBatch>
__device__ __forceinline__ void store_batch(const float4 (&v)[kBatch], float4* out, std::size_t first, unsigned step,
                                            std::size_t vectors) {
#pragma unroll
  for (int k = 0; k < kBatch; ++k) {
    const std::size_t i = first + std::size_t(k) * step;
    if (i < vectors) out[i] = v[k];
  }
}

template <int kBatch>
__global__ void copy_many_float4_kernel(const float* in, float* out, std::size_t n) {
  const std::size_t vectors = n / 4;
  const float4* in_v = reinterpret_cast<const float4*>(in);
  float4* out_v = reinterpret_cast<float4*>(out);
  const unsigned step = blockDim.x;                                          // between a thread's float4
  const std::size_t stride = std::size_t(gridDim.x) * kBatch * blockDim.x;  // between a thread's batches
  std::size_t at = std::size_t(blockIdx.x) * kBatch * blockDim.x + threadIdx.x;
  float4 a[kBatch], b[kBatch];
  load_batch(a, in_v, at, step, vectors);
  while (at < vectors) {
    load_batch(b, in_v, at + stride, step, vectors);  // the next batch in flight...
    store_batch(a, out_v, at, step, vectors);         // ...while this one is stored
    at += stride;
    if (at >= vectors) break;
    load_batch(a, in_v, at + stride, step, vectors);
    store_batch(b, out_v, at, step, vectors);
    at += stride;
  }
  const std::size_t rest = n - vectors * 4;  // fewer than 4 floats
  if (blockIdx.x == 0 && threadIdx.x < rest) {
    const std::size_t i = vectors * 4 + threadIdx.x;
    out[i] = in[i];
  }
}

// 02.5: the simplest wide copy: one float4 per thread, a grid that covers the array; the last
// n % 4 floats by the first threads of block 0.
__global__ void copy_one_float4_kernel(const float* in, float* out, std::size_t n) {
  const std::size_t vectors = n / 4;
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < vectors) reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
  const std::size_t rest = n - vectors * 4;
  if (blockIdx.x == 0 && threadIdx.x < rest) out[vectors * 4 + threadIdx.x] = in[vectors * 4 + threadIdx.x];
}

// 02.6: thread 0 of each block drives the copy engine through a ring of kStages stages of
// kStageBytes in dynamic shared memory, one barrier per stage after the stages. Block b takes the
// whole stages (chunks) b, b + G, b + 2G, ... The floats past the last whole chunk: ordinary loads
// by every thread of the grid.
constexpr unsigned kStageBytes = 32 * 1024;
constexpr int kStages = 4;
constexpr std::size_t kStageFloats = kStageBytes / sizeof(float);
constexpr std::size_t kRingBytes = std::size_t(kStages) * kStageBytes + kStages * sizeof(std::uint64_t);

__global__ void copy_engine_kernel(const float* in, float* out, std::size_t n) {
  namespace bc = workbook::bulk_copy;
  extern __shared__ __align__(128) unsigned char ring[];
  std::uint64_t* barriers = reinterpret_cast<std::uint64_t*>(ring + std::size_t(kStages) * kStageBytes);
  const std::size_t chunks = n / kStageFloats;

  if (threadIdx.x == 0 && blockIdx.x < chunks) {
    // This block's chunks: blockIdx.x + k * gridDim.x for k < mine.
    const std::size_t mine = (chunks - blockIdx.x + gridDim.x - 1) / gridDim.x;
    const auto chunk_of = [&](std::size_t k) { return blockIdx.x + k * gridDim.x; };
    const auto stage = [&](int s) { return ring + std::size_t(s) * kStageBytes; };
    const auto start_load = [&](std::size_t k) {
      const int s = static_cast<int>(k % kStages);
      bc::expect_bytes(&barriers[s], kStageBytes);
      bc::load_to_shared(stage(s), in + chunk_of(k) * kStageFloats, kStageBytes, &barriers[s]);
    };

    for (int s = 0; s < kStages; ++s) bc::init_barrier(&barriers[s]);
    bc::make_barrier_inits_visible();

    // Fill the ring: every stage's load starts before the first store.
    for (std::size_t k = 0; k < mine && k < std::size_t(kStages); ++k) start_load(k);

    for (std::size_t k = 0; k < mine; ++k) {
      const int s = static_cast<int>(k % kStages);
      const unsigned parity = static_cast<unsigned>((k / kStages) & 1);
      bc::wait_for_phase(&barriers[s], parity);  // the stage has landed
      bc::store_from_shared(out + chunk_of(k) * kStageFloats, stage(s), kStageBytes);
      bc::commit_stores();
      if (k + kStages < mine) {
        bc::wait_until_read<0>();  // the store has read the stage: it may be loaded again
        start_load(k + kStages);
      }
    }
    bc::wait_until_written();  // the ring must outlive the stores that read it
  }

  // The tail past the last whole chunk, by every thread of the grid.
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = chunks * kStageFloats + std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads)
    out[i] = in[i];
}

// Blocks for a kernel that copies `floats_per_block` floats per block: enough to cover n, at least
// one.
unsigned blocks_covering(std::size_t n, std::size_t floats_per_block) {
  const std::size_t blocks = workbook::ceil_div(n, floats_per_block);
  if (blocks > std::size_t(INT_MAX)) throw std::invalid_argument("memory_lab: n is too large for one grid");
  return static_cast<unsigned>(std::max<std::size_t>(blocks, 1));
}

template <typename Vector, int kCount>
void launch_copy_vectors(const CopyProblem& p, cudaStream_t stream) {
  constexpr std::size_t kWidth = sizeof(Vector) / sizeof(float);
  const unsigned blocks = blocks_covering(p.n, kWidth * kCount * std::size_t(p.threads_per_block));
  workbook::launch(copy_vectors_kernel<Vector, kCount>, dim3(blocks), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.in, p.out, p.n);
}

int sm_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// How many blocks of `kernel` fit on one SM at once at this block size and dynamic shared memory
// (0 when none does).
template <typename Kernel>
int resident_blocks_per_sm(Kernel kernel, int threads, std::size_t dynamic_shared_bytes) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  if (threads > attributes.maxThreadsPerBlock) return 0;
  workbook::allow_dynamic_shared_memory(kernel, dynamic_shared_bytes);
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_shared_bytes));
  return blocks;
}

}  // namespace

// Each launcher: validate, size the grid (at least one block when n > 0, none when n == 0), and
// launch with workbook::launch(kernel, grid, block, problem.occupancy_padding_bytes, stream, args...)
// so that every step runs at the occupancy the grader asked for.

void copy_several_floats(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_several_floats", alignof(float));
  if (problem.n == 0) return;
  launch_copy_vectors<float, Policy::kFloatsPerThread>(problem, stream);
}

void copy_float2(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_float2", alignof(float2));
  if (problem.n == 0) return;
  launch_copy_vectors<float2, Policy::kFloat2PerThread>(problem, stream);
}

void copy_float4(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_float4", alignof(float4));
  if (problem.n == 0) return;
  launch_copy_vectors<float4, Policy::kFloat4PerThread>(problem, stream);
}

void copy_many_float4(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_many_float4", alignof(float4));
  if (problem.n == 0) return;
  constexpr int kBatch = Policy::kManyFloat4PerThread;
  const auto kernel = copy_many_float4_kernel<kBatch>;
  const int per_sm = resident_blocks_per_sm(kernel, problem.threads_per_block, problem.occupancy_padding_bytes);
  if (per_sm == 0) {  // this kernel's registers do not fit a block this large: 02.3's copy instead
    launch_copy_vectors<float4, Policy::kFloat4PerThread>(problem, stream);
    return;
  }
  // Only as many blocks as are resident at once, and no more than the array has batches for.
  const std::size_t resident = std::size_t(per_sm) * sm_count();
  const unsigned needed = blocks_covering(problem.n, 4 * std::size_t(kBatch) * problem.threads_per_block);
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(resident, needed));
  workbook::launch(kernel, dim3(blocks), dim3(problem.threads_per_block), problem.occupancy_padding_bytes, stream,
                   problem.in, problem.out, problem.n);
}

void copy_at_memcpy_speed(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_at_memcpy_speed", alignof(float4));
  if (problem.n == 0) return;
  const unsigned blocks = blocks_covering(problem.n, 4 * std::size_t(problem.threads_per_block));
  workbook::launch(copy_one_float4_kernel, dim3(blocks), dim3(problem.threads_per_block),
                   problem.occupancy_padding_bytes, stream, problem.in, problem.out, problem.n);
}

void copy_with_copy_engine(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_with_copy_engine", workbook::bulk_copy::kAlignment);
  require_copy_engine("copy_with_copy_engine");
  if (problem.n == 0) return;
  const std::size_t shared = std::max(problem.occupancy_padding_bytes, kRingBytes);
  const int per_sm = resident_blocks_per_sm(copy_engine_kernel, problem.threads_per_block, shared);
  if (per_sm == 0)
    throw std::invalid_argument("copy_with_copy_engine: a block of " + std::to_string(problem.threads_per_block) +
                                " threads with " + std::to_string(shared) + " bytes of shared memory does not fit on an SM");
  // One block per resident slot (one per SM at the grader's shapes), no more than there are chunks,
  // and at least one for the tail.
  const std::size_t chunks = problem.n / kStageFloats;
  const std::size_t resident = std::size_t(per_sm) * sm_count();
  const unsigned blocks = static_cast<unsigned>(std::max<std::size_t>(1, std::min(resident, chunks)));
  workbook::launch(copy_engine_kernel, dim3(blocks), dim3(problem.threads_per_block), shared, stream, problem.in,
                   problem.out, problem.n);
}

}  // namespace memory_lab
