// Lab 01's device-side work of the grader (check.cu): its own measurements of the latencies the
// students measure, the kernels its occupancy check asks the CUDA API about, and the check of every
// timed call's chains against the truth computed from the input's seed. Plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "buffers.h"
#include "latency.h"

namespace latency_check {

// A dependent FP32 FMA's latency in cycles: one thread runs chains of 2^14 and 2^15 FMAs timed with
// clock64(), and the difference of their best times over five runs is divided by 2^14, so the cost
// of reading the clock cancels out. Measured once per process.
double fma_latency_cycles();

// A load's latency in cycles for a working set of `bytes`: one thread chases a random cycle through
// every 128-byte line (the grader's own, drawn from `seed`), `warmup_loads` untimed, then
// `timed_loads` timed with clock64(); the best of three runs.
double load_latency_cycles(std::size_t bytes, int warmup_loads, int timed_loads, std::uint64_t seed);

// One kernel of the occupancy check, and what the CUDA API says of it at one block shape.
struct OccupancyProbe {
  std::string name;
  int registers_per_thread = 0;  // as cudaFuncGetAttributes reports them
  int max_threads_per_block = 0;
  const void* kernel = nullptr;
};
// Kernels that hold from a few to 255 registers per thread (many not a multiple of 8, where the
// allocation unit shows), each allowed the most dynamic shared memory and the largest carveout.
const std::vector<OccupancyProbe>& occupancy_probes();
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for `probe` at `threads` per block and
// `dynamic_shared_bytes`.
int api_blocks_per_sm(const OccupancyProbe& probe, int threads, std::size_t dynamic_shared_bytes);
// The SM's limits as latency.h describes them, from the device's properties and, for the allocation
// units and schedulers no property reports, from its compute capability.
latency_lab::SmLimits sm_limits_of_this_gpu();

// Adds to *result every chain in `end` that is not where chain c, started at element c of the stream
// `seed` (fill_random()), ends after `length` steps of fmaf(x, a, b).
void count_wrong_chains(const float* end, std::size_t chains, int length, float a, float b, std::uint64_t seed,
                        workbook::DeviceMismatches* result, cudaStream_t stream);

}  // namespace latency_check
