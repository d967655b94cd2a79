// Timing with CUDA events, the way the grader contract asks: warm-up runs first, the L2 cache
// flushed before every timed run, the works interleaved run by run (so that clock and thermal
// drift hits all of them alike), repeated until the relative standard error is small, and the
// median reported.
//
// Before each call the whole device is idle, so nothing started earlier can run into it, and the
// timed stream is held by a gate until the call has returned, so the events time the GPU's work
// alone, not the host's launch latency. A gate that gives up (50 ms) means the call waited for the
// device itself. (A second clock, the host's until the whole device was idle again, once looked for
// work left running or on another stream; a judge's replay can do neither, and in a linked grader
// the device trace sees both, so it is gone: it failed honest steps by tens of microseconds.)
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

#include "device_trace.h"

namespace workbook {

using GpuWork = std::function<void(cudaStream_t)>;
// Untimed work around one call of a timed work; `call` counts its calls, warm-up included.
using CallHook = std::function<void(cudaStream_t, int call)>;
// What the device ran during one call of a timed work (device_trace.h), the grader's gate removed.
using TraceHook = std::function<void(std::vector<DeviceActivity>&& ran, int call)>;

struct TimedWork {
  GpuWork run;       // what is timed
  CallHook before;   // before each call, untimed (fresh inputs, poisoned outputs); may be empty
  CallHook after;    // after each call, untimed (check the output it left); may be empty
  TraceHook traced;  // after each call, while the device trace runs: what the call ran; may be empty
};

struct TimingOptions {
  int warmup_runs = 3;
  int min_runs = 15;
  int max_runs = 500;
  double target_relative_standard_error = 0.005;  // 0.5% of the mean
  double max_seconds = 4.0;                       // wall-clock budget for one call
  bool flush_l2 = true;
};

struct Timing {
  double median_ms = 0;
  double relative_standard_error = 0;
  int runs = 0;
  int calls = 0;  // warm-up included: how many calls the hooks saw
  int waits = 0;  // timed calls that waited for the device themselves (a gate gave up)
};

// Times each of `works` on `stream`, interleaved. Results are in the order of `works`.
std::vector<Timing> time_interleaved(const std::vector<TimedWork>& works, cudaStream_t stream,
                                     const TimingOptions& options = {});
std::vector<Timing> time_interleaved(const std::vector<GpuWork>& works, cudaStream_t stream,
                                     const TimingOptions& options = {});

// One call of `work`, started with the whole device idle and timed by events on `stream`; returns
// with the whole device idle again. A correctness case's call: its duration checks a measurement
// the call reports (lab 01's clock64() cycles), nothing more.
// While the device trace runs, *ran (if given) receives what the device ran during the call.
double time_one_call_ms(const GpuWork& work, cudaStream_t stream, std::vector<DeviceActivity>* ran = nullptr);

}  // namespace workbook
