// Lab 01's device-side work of the grader (check.cu): the kernels its occupancy check asks the CUDA
// API about, and the check of every timed call's chains against the truth computed from the input's
// seed; and the shape of 01.2's chase with the keys of 01.1's and 01.2's reference values. Plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/buffers.h"
#include "latency.h"

namespace latency_check {

// 01.1's and 01.2's reference values: a student's measurement must agree with them. The grader's
// own chain and chase that measure them are the instructor's (they would be the answer of 01.1 and
// 01.2: they are in the instructor's proofs); grading reads the values from this
// GPU's bars profile, or the H100's built in (grader/harness/reference_values.h).
inline constexpr const char* kFmaReferenceKey = "01.1";
inline constexpr double kH100FmaCycles = 4.07;  // the grader's chain on the H100 (NOTES.md)
inline std::string load_reference_key(std::size_t bytes) { return "01.2:" + std::to_string(bytes); }

// 01.2's working sets, one well inside each level of the H100 (NOTES.md: L1 to 128 KiB, L2 from
// 512 KiB to 16 MiB, device memory past 64 MiB), with Kolpakova's Kepler latencies ("Code GPU with
// CUDA": L1 34, L2 160, global 350 cycles) and the H100's as the grader's own chase measured them:
// L2 and device memory midway between two H100 machines (283 and 291.7, 687 and 698.6 cycles:
// the instructor's notes), 1.6% from each.
struct ChaseLevel {
  std::size_t bytes;
  const char* name;
  double kepler_cycles;
  double h100_cycles;
};
inline constexpr ChaseLevel kChaseLevels[] = {{std::size_t{64} << 10, "L1", 34, 39.6},
                                              {std::size_t{4} << 20, "L2", 160, 287},
                                              {std::size_t{256} << 20, "device memory", 350, 693}};
inline constexpr int kTimedLoads = 1 << 15;
inline constexpr std::size_t kLineBytes = 128;  // latency.h: one link per 128-byte line
// A lap of the set first where it fits in a cache, so that the timed loads find it there. Past L2,
// 2^20 loads (128 MiB of lines, over twice the L2) first: whatever the set's upload left in L2 is
// gone before the timed loads start, and these never come back to a line (2^21 lines).
inline int warmup_loads_for(std::size_t bytes) {
  const std::size_t lines = bytes / kLineBytes;
  return lines <= (std::size_t{1} << 16) ? static_cast<int>(lines) : 1 << 20;
}

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
