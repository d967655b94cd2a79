// The copy-engine mutants of lab 02 (02.6): one ring of stages driven by thread 0, as the handout
// describes it, with one of its two waits left out. Each is one wrong copy for every step, and with
// WORKBOOK_MUTANT_CONTROL defined the wait is back (the control, which must be correct).
//   kWaitsForLanding false: a stage is stored before its load has landed (no wait on its barrier):
//     the store sends whatever the stage held before.
//   kWaitsForRead false: a stage is loaded again as soon as its store has started, before the store
//     has read it: the next chunk's bytes may overwrite the ones still being stored.
// Unlike the solution, this ring refills a stage straight after storing it: the race the missing
// read-wait opens is then as wide as it can be.
#pragma once

#include <algorithm>
#include <cstdint>

#include "given.cuh"
#include "memory.h"
#include "workbook/bulk_copy.cuh"
#include "workbook/launch.cuh"

namespace memory_mutant {

constexpr int kRingStages = 4;
constexpr unsigned kRingStageBytes = 32 * 1024;
constexpr std::size_t kRingShared = kRingStages * (kRingStageBytes + sizeof(std::uint64_t));

template <bool kWaitsForLanding, bool kWaitsForRead>
__global__ void ring_copy_kernel(const float* in, float* out, std::size_t n) {
  using namespace workbook::bulk_copy;
  extern __shared__ __align__(128) unsigned char stages[];
  auto* const barriers = reinterpret_cast<std::uint64_t*>(stages + kRingStages * kRingStageBytes);
  const std::size_t chunks = n * sizeof(float) / kRingStageBytes;
  for (std::size_t i = chunks * (kRingStageBytes / 4) + blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = in[i];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < kRingStages; ++s) init_barrier(&barriers[s]);
  make_barrier_inits_visible();
  const auto src = reinterpret_cast<const unsigned char*>(in);
  const auto dst = reinterpret_cast<unsigned char*>(out);
  // The k-th chunk of this block is chunk blockIdx.x + k * gridDim.x.
  const auto start_load = [&](std::size_t k) {
    const std::size_t s = k % kRingStages;
    expect_bytes(&barriers[s], kRingStageBytes);
    load_to_shared(stages + s * kRingStageBytes, src + (blockIdx.x + k * gridDim.x) * std::size_t{kRingStageBytes},
                   kRingStageBytes, &barriers[s]);
  };
  const std::size_t count = blockIdx.x < chunks ? (chunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  for (std::size_t k = 0; k < count && k < kRingStages; ++k) start_load(k);
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t s = k % kRingStages;
    if (kWaitsForLanding) wait_for_phase(&barriers[s], (k / kRingStages) & 1);
    store_from_shared(dst + (blockIdx.x + k * gridDim.x) * std::size_t{kRingStageBytes}, stages + s * kRingStageBytes,
                      kRingStageBytes);
    commit_stores();
    if (k + kRingStages < count) {
      if (kWaitsForRead) wait_until_read<0>();
      start_load(k + kRingStages);
    }
  }
  // Without the landing wait, phases the thread never waited for may still be completing: wait for
  // them all, so that the block does not exit under the engine's feet (the defect is the order, not this).
  if (!kWaitsForLanding)
    for (std::size_t k = count > kRingStages ? count - kRingStages : 0; k < count; ++k)
      wait_for_phase(&barriers[k % kRingStages], (k / kRingStages) & 1);
  wait_until_written();
}

template <bool kWaitsForLanding, bool kWaitsForRead>
void ring_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  memory_lab::validate(p, "mutant", 16);
  if (p.n == 0) return;
  memory_lab::require_copy_engine("mutant");
  constexpr auto kernel = ring_copy_kernel<kWaitsForLanding, kWaitsForRead>;
  const std::size_t shared = std::max(p.occupancy_padding_bytes, kRingShared);
  workbook::allow_dynamic_shared_memory(kernel, shared);
  int per_sm = 0, device = 0, sms = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, p.threads_per_block, shared));
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t chunks = p.n * sizeof(float) / kRingStageBytes;
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(chunks, 1, std::size_t(std::max(per_sm, 1)) * sms));
  workbook::launch(kernel, dim3(blocks), dim3(p.threads_per_block), shared, stream, p.in, p.out, p.n);
}

}  // namespace memory_mutant
