// The device's ceilings, measured at the start of a run rather than taken from a datasheet:
// every result is reported as a fraction of what this card, at its current clocks, can do.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "harness/device_limits.h"

namespace workbook {

struct DevicePeaks {
  double copy_gb_per_s = 0;    // cudaMemcpyAsync device to device, bytes read + bytes written
  double fma_tflop_per_s = 0;  // FP32 FMA, 8 independent chains per thread, every SM busy
  // The limits no kernel can pass on this GPU, from its attributes rather than from a measurement
  // that moves from run to run: the [ceiling] defence's.
  double memory_limit_gb_per_s = 0;  // device memory: memory clock x bus width x 2 (double data rate)
  double fma_limit_tflop_per_s = 0;  // FP32: SMs x FP32 lanes per SM x 2 flops x the SM's highest clock
};

// Bytes read + written per second by cudaMemcpyAsync of `bytes` from one device buffer to another.
double measure_copy_gb_per_s(std::size_t bytes, cudaStream_t stream);
double measure_fma_tflop_per_s(cudaStream_t stream);

// Measured once per process, on first use.
const DevicePeaks& device_peaks();

// A result faster than a ceiling means the measurement is wrong (work skipped, data served from
// cache), not that the kernel is good. The limits from the device's attributes are exact; the one
// measured ceiling, cudaMemcpy of the same bytes in labs 02 and 03 (a copy against a copy, the same
// kind of traffic), is a kernel that a plain copy can beat by a little: on the H100 honest copies
// measured up to 101.4% of it (docs/timing.md). Results within this factor of it are accepted.
inline constexpr double kCeilingSlack = 1.03;

}  // namespace workbook
