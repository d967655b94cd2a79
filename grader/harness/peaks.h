// What this GPU can do: the limits no kernel can pass, from its attributes (the [ceiling] defence's,
// and the "share of the device's limits" in grade.log), and what a copy and an FMA burn measure on it
// now (the benchmark plots' lines).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "harness/device_limits.h"

namespace workbook {

// The limits no kernel can pass on this GPU, from its attributes rather than from a measurement
// that moves from run to run. Read once per process, in microseconds.
struct DeviceCeilings {
  double memory_limit_gb_per_s = 0;  // device memory: memory clock x bus width x 2 (double data rate)
  double fma_limit_tflop_per_s = 0;  // FP32: SMs x FP32 lanes per SM x 2 flops x the SM's highest clock
};
const DeviceCeilings& device_ceilings();

// What the card does now, at its current clocks: measured once per process, on first use (a 512 MB
// copy and an FMA burn, 0.07 s on an H200), so only by what draws it (lab 06's benchmark plot). No
// grading reads it: the ceilings above are exact, and a step's rates are compared with a reference
// timed beside it.
struct DevicePeaks {
  double copy_gb_per_s = 0;    // cudaMemcpyAsync device to device, bytes read + bytes written
  double fma_tflop_per_s = 0;  // FP32 FMA, 8 independent chains per thread, every SM busy
};
const DevicePeaks& measured_peaks();

// Bytes read + written per second by cudaMemcpyAsync of `bytes` from one device buffer to another.
double measure_copy_gb_per_s(std::size_t bytes, cudaStream_t stream);
double measure_fma_tflop_per_s(cudaStream_t stream);

// A result faster than a ceiling means the measurement is wrong (work skipped, data served from
// cache), not that the kernel is good. The limits from the device's attributes are exact; the one
// measured ceiling, cudaMemcpy of the same bytes in labs 02 and 03 (a copy against a copy, the same
// kind of traffic), is a kernel that a plain copy can beat by a little: on the H100 honest copies
// measured up to 101.4% of it (docs/timing.md). Results within this factor of it are accepted.
inline constexpr double kCeilingSlack = 1.03;

}  // namespace workbook
