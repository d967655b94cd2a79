// A GPU's limits from its attributes (cudaDeviceGetAttribute's peak clocks, bus width, SMs): what
// no kernel can pass on it, for the [ceiling] defence (peaks.h). Plain C++, tested on the CPU.
#pragma once

namespace workbook {

// Device memory's theoretical bandwidth in GB/s: `memory_clock_khz` (the attribute's peak memory
// clock) x `bus_width_bits` / 8 bytes x 2 transfers a clock.
inline double memory_limit_gb_per_s(int memory_clock_khz, int bus_width_bits) {
  return memory_clock_khz * 1e3 * (bus_width_bits / 8.0) * 2 / 1e9;
}
// FP32 lanes per SM of a compute capability: 64 on 8.0 (A100), 128 on 8.6 and newer (GA10x, Ada,
// Hopper, Blackwell), each an FMA (2 flops) a clock.
inline int fp32_lanes_per_sm(int major, int minor) { return major > 8 || (major == 8 && minor > 0) ? 128 : 64; }
// The FP32 FMA limit in TFLOP/s at the SM's highest clock (`sm_clock_khz`, the attribute's peak).
inline double fma_limit_tflop_per_s(int sms, int lanes_per_sm, int sm_clock_khz) {
  return static_cast<double>(sms) * lanes_per_sm * 2 * sm_clock_khz * 1e3 / 1e12;
}

}  // namespace workbook
