// Lab 02_memory, reference solution: hide memory latency with fewer threads.
//
// Little's law: to sustain a bandwidth B over a latency L, B x L bytes must be in flight. On the
// H100 that is about 3 TB/s x ~0.7 us, some 2 MB, or 16 KB per SM. A thread that copies one float
// has 4 bytes in flight, so the naive copy needs thousands of threads per SM to get there, and
// slows down as soon as occupancy drops. Each step here puts more bytes in flight per thread:
//   02.1  several independent floats per thread: all loads issue before the first store waits
//   02.2  float2: the same number of load instructions moves twice the bytes
//   02.3  float4: 16-byte loads, the widest a thread can issue
//   02.4  many float4 per thread, in flight all the time: 6.25% occupancy is enough
//   02.5  the other way round: enough warps, one float4 each, and the copy runs at memcpy speed
//   02.6  Hopper: one thread per SM drives the bulk-copy engine, which keeps 96 KiB in flight
// Steps 02.1, 02.2, 02.3 and 02.5 are one template, copy_vectors_kernel<Vector, kVectorsPerThread>:
// the lesson is in its two parameters. Step 02.4 needs a loop of its own (see its comment).

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
  static constexpr int kFinalFloat4PerThread = 1;  // 02.5: 16 bytes, and many more warps
  // 02.6: a ring of stages in shared memory; up to kStages - 1 loads of kStageBytes in flight per
  // SM while the engine stores the stage before, several times the ~18 KiB Little's law asks for.
  static constexpr int kStages = 4;
  static constexpr unsigned kStageBytes = 32 * 1024;
  static constexpr std::size_t kRingBytes = kStages * (kStageBytes + sizeof(std::uint64_t));  // and a barrier each

  // 02.4 holds two batches (the one being stored, the one being loaded) in registers: 2 x 16
  // float4 are 128 registers, which leaves room for the addresses under the 255 limit.
  static_assert(2 * kManyFloat4PerThread * 4 <= 160, "both batches of float4 must fit in registers");
  static_assert(kFloatsPerThread < kFloat2PerThread * 2 && kFloat2PerThread * 2 < kFloat4PerThread * 4 &&
                    kFloat4PerThread < kManyFloat4PerThread,
                "each step must put more bytes in flight per thread than the one before");
};

// Block b copies the kVectorsPerThread * blockDim.x vectors starting at b * that many. Thread t
// takes vectors t, t + blockDim.x, t + 2 * blockDim.x, ...: each load instruction of a warp reads
// one contiguous, fully coalesced stretch. All loads are issued before the first store, which is
// the point: the stores wait for the data, but the loads do not wait for each other.
template <typename Vector, int kVectorsPerThread>
__global__ void copy_vectors_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  constexpr int kWidth = sizeof(Vector) / sizeof(float);
  const std::size_t vectors = n / kWidth;
  const auto* in_vectors = reinterpret_cast<const Vector*>(in);
  auto* out_vectors = reinterpret_cast<Vector*>(out);
  const std::size_t first = std::size_t{blockIdx.x} * blockDim.x * kVectorsPerThread + threadIdx.x;

  Vector values[kVectorsPerThread];  // indexed by unrolled constants only: stays in registers
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i) {
    const std::size_t v = first + std::size_t(i) * blockDim.x;
    if (v < vectors) values[i] = in_vectors[v];
  }
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i) {
    const std::size_t v = first + std::size_t(i) * blockDim.x;
    if (v < vectors) out_vectors[v] = values[i];
  }

  // The last n % kWidth floats do not fill a vector: the last block copies them one by one.
  if (blockIdx.x == gridDim.x - 1) {
    const std::size_t tail = vectors * kWidth + threadIdx.x;
    if (tail < n) out[tail] = in[tail];
  }
}

// 02.4: more float4 per thread in copy_vectors_kernel stops helping at about 4: to save registers,
// the compiler moves each store up to just after its load, so only a few loads are ever in flight
// (the SASS shows LDG LDG LDG LDG STG ...), and a block that exits leaves its SM idle until the
// next one starts. Here a block stays resident and walks the array in strides of the whole grid,
// and it issues the loads of its next batch before it stores the current one: every store then
// has a use for the registers it frees, and kVectorsPerThread float4 are in flight at all times.
template <int kVectorsPerThread>
__global__ void copy_pipelined_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t vectors = n / 4;
  const auto* in_vectors = reinterpret_cast<const float4*>(in);
  auto* out_vectors = reinterpret_cast<float4*>(out);
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x * kVectorsPerThread;
  std::size_t base = std::size_t{blockIdx.x} * blockDim.x * kVectorsPerThread + threadIdx.x;

  float4 current[kVectorsPerThread], next[kVectorsPerThread];
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i) {
    const std::size_t v = base + std::size_t(i) * blockDim.x;
    if (v < vectors) current[i] = in_vectors[v];
  }
  for (; base < vectors; base += stride) {
#pragma unroll
    for (int i = 0; i < kVectorsPerThread; ++i) {  // the next batch: in flight while we store
      const std::size_t v = base + stride + std::size_t(i) * blockDim.x;
      if (v < vectors) next[i] = in_vectors[v];
    }
#pragma unroll
    for (int i = 0; i < kVectorsPerThread; ++i) {
      const std::size_t v = base + std::size_t(i) * blockDim.x;
      if (v < vectors) out_vectors[v] = current[i];
    }
#pragma unroll
    for (int i = 0; i < kVectorsPerThread; ++i) current[i] = next[i];  // renames registers, no copy
  }

  if (blockIdx.x == 0) {
    const std::size_t tail = vectors * 4 + threadIdx.x;
    if (tail < n) out[tail] = in[tail];
  }
}

template <typename Vector, int kVectorsPerThread>
void launch_copy_vectors(const CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  constexpr int kWidth = sizeof(Vector) / sizeof(float);
  const std::size_t vectors = p.n / kWidth;
  const std::size_t vectors_per_block = std::size_t(p.threads_per_block) * kVectorsPerThread;
  // At least one block, even when n is smaller than one vector: that block copies the tail.
  const std::size_t blocks = std::max<std::size_t>(1, workbook::ceil_div(vectors, vectors_per_block));
  if (blocks > INT_MAX) throw std::invalid_argument("copy: n is too large for a one-dimensional grid");
  workbook::launch(copy_vectors_kernel<Vector, kVectorsPerThread>, dim3(static_cast<unsigned>(blocks)),
                   dim3(p.threads_per_block), p.occupancy_padding_bytes, stream, p.in, p.out, p.n);
}

}  // namespace

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

void copy_many_float4(const CopyProblem& p, cudaStream_t stream) {
  validate(p, "copy_many_float4", alignof(float4));
  if (p.n == 0) return;
  constexpr auto kernel = copy_pipelined_kernel<Policy::kManyFloat4PerThread>;
  // As many blocks as can be resident at once (the padding decides how many): each loops until
  // the array is done. Never more blocks than there are batches, so a small copy stays small.
  workbook::allow_dynamic_shared_memory(kernel, p.occupancy_padding_bytes);
  int blocks_per_sm = 0, device = 0, sms = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, p.threads_per_block,
                                                           p.occupancy_padding_bytes));
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (blocks_per_sm == 0)
    throw std::invalid_argument("copy_many_float4: a block of " + std::to_string(p.threads_per_block) +
                                " threads does not fit on an SM with this kernel's registers");
  const std::size_t batch = std::size_t(p.threads_per_block) * Policy::kManyFloat4PerThread;
  const std::size_t batches = std::max<std::size_t>(1, workbook::ceil_div(p.n / 4, batch));
  const auto blocks = static_cast<unsigned>(std::min(batches, std::size_t(blocks_per_sm) * sms));
  workbook::launch(kernel, dim3(blocks), dim3(p.threads_per_block), p.occupancy_padding_bytes, stream, p.in,
                   p.out, p.n);
}

namespace {

// 02.6: one thread per block (thread 0) moves whole stages of kStageBytes through a ring in shared
// memory: the copy engine loads chunk j into stage j % kStages, and the thread, once the stage's
// barrier says the bytes have landed, asks the engine to store it to `out`. Two waits keep it
// correct: a store must not start before its stage has landed (wait_for_phase), and a stage must not
// be loaded again before the store of its previous chunk has read it (wait_until_read). To keep the
// engine busy, the stage refilled is the one stored kStoresStillReading iterations earlier (1 in
// 02.6), whose store has had time to be read: wait_until_read<1> lets the newest store keep reading.
// The bytes past the last whole stage, fewer than kStageBytes, are copied by every thread of the
// grid with ordinary loads. (The ring's shape and kStoresStillReading are template parameters so
// that experiments/ring_shapes.cu can time other values; 02.6 uses Policy's and the default.)
template <int kStages, unsigned kStageBytes, int kStoresStillReading = 1>
__global__ void copy_engine_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  using namespace workbook::bulk_copy;
  // All of it dynamic shared memory (at least the ring's bytes; more when the grader's padding is
  // larger): the stages, then one barrier per stage.
  extern __shared__ __align__(128) unsigned char ring[];
  auto* const landed = reinterpret_cast<std::uint64_t*>(ring + kStages * kStageBytes);

  const std::size_t chunks = n * sizeof(float) / kStageBytes;
  const std::size_t bulk_floats = chunks * (kStageBytes / sizeof(float));
  for (std::size_t i = bulk_floats + std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = in[i];
  if (threadIdx.x != 0 || blockIdx.x >= chunks) return;

  // This block's chunks are blockIdx.x, blockIdx.x + gridDim.x, ...: its j-th starts at byte offset_of(j).
  const std::size_t mine = (chunks - blockIdx.x + gridDim.x - 1) / gridDim.x;
  const auto offset_of = [&](std::size_t j) { return (blockIdx.x + j * gridDim.x) * std::size_t{kStageBytes}; };
  const auto* const in_bytes = reinterpret_cast<const unsigned char*>(in);
  auto* const out_bytes = reinterpret_cast<unsigned char*>(out);
  const auto load = [&](std::size_t j) {
    const unsigned stage = j % kStages;
    expect_bytes(&landed[stage], kStageBytes);
    load_to_shared(ring + stage * kStageBytes, in_bytes + offset_of(j), kStageBytes, &landed[stage]);
  };

  for (int stage = 0; stage < kStages; ++stage) init_barrier(&landed[stage]);
  make_barrier_inits_visible();
  for (std::size_t j = 0; j < mine && j < kStages; ++j) load(j);
  for (std::size_t j = 0; j < mine; ++j) {
    const unsigned stage = j % kStages;
    wait_for_phase(&landed[stage], (j / kStages) % 2);
    store_from_shared(out_bytes + offset_of(j), ring + stage * kStageBytes, kStageBytes);
    commit_stores();
    constexpr int D = kStoresStillReading;
    if (j >= D && j - D + kStages < mine) {  // refill the stage of chunk j - D with chunk j - D + kStages
      wait_until_read<D>();
      load(j - D + kStages);
    }
  }
  wait_until_written();  // the ring must outlive the stores that read it
}

}  // namespace

// 02.5: with warps to spare, nothing beats the simplest wide copy. The measurements in NOTES.md:
// a persistent loop and the streaming cache hints (__ldcs/__stcs) each cost 3-5% here, and 02.4's
// two batches of registers limit it to 8-12 warps per SM. One float4 per thread and a grid that
// covers the array let the hardware keep 64 warps per SM busy, at cudaMemcpy's speed.
void copy_at_memcpy_speed(const CopyProblem& problem, cudaStream_t stream) {
  validate(problem, "copy_at_memcpy_speed", alignof(float4));
  launch_copy_vectors<float4, Policy::kFinalFloat4PerThread>(problem, stream);
}

void copy_with_copy_engine(const CopyProblem& p, cudaStream_t stream) {
  validate(p, "copy_with_copy_engine", workbook::bulk_copy::kAlignment);
  if (p.n == 0) return;
  require_copy_engine("copy_with_copy_engine");
  constexpr auto kernel = copy_engine_kernel<Policy::kStages, Policy::kStageBytes>;
  // The ring lives in the dynamic shared memory; where the grader's padding is larger, the padding
  // (which keeps other blocks off the SM) holds it.
  const std::size_t shared_bytes = std::max(p.occupancy_padding_bytes, Policy::kRingBytes);
  workbook::allow_dynamic_shared_memory(kernel, shared_bytes);
  int blocks_per_sm = 0, device = 0, sms = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, p.threads_per_block, shared_bytes));
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (blocks_per_sm == 0)
    throw std::invalid_argument("copy_with_copy_engine: a block of " + std::to_string(p.threads_per_block) + " threads and " +
                                std::to_string(shared_bytes) + " bytes of shared memory does not fit on an SM");
  // As many blocks as are resident at once, never more than there are whole stages (at least one,
  // for the tail).
  const std::size_t chunks = p.n * sizeof(float) / Policy::kStageBytes;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(chunks, 1, std::size_t(blocks_per_sm) * sms));
  workbook::launch(kernel, dim3(blocks), dim3(p.threads_per_block), shared_bytes, stream, p.in, p.out, p.n);
}

}  // namespace memory_lab
