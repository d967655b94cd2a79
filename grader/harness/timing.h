// Timing with CUDA events, the way the grader contract asks: warm-up runs first, the L2 cache
// flushed before every timed run, the works interleaved run by run (so that clock and thermal
// drift hits all of them alike), each repeated until the relative standard error of its mean is
// small, and the median reported.
//
// Before each call the whole device is idle, so nothing started earlier can run into it, and the
// timed stream is held by a gate until the call has returned, so the events time the GPU's work
// alone, not the host's launch latency. A gate that gives up (50 ms) means the call kept the host
// busy that long before its work was queued (a judge's replay of a very long plan, a linked launcher
// that waited for the device): its time then holds host time too, and the grader's log says so.
// Nothing else is looked for around a call: a judge replays only the plan's launches, on this stream
// (docs/integrity.md, part 1).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

namespace workbook {

using GpuWork = std::function<void(cudaStream_t)>;
// Untimed work around one call of a timed work; `call` counts its calls, warm-up included.
using CallHook = std::function<void(cudaStream_t, int call)>;

// Each launch's milliseconds in one call (launch_log.h), after the call has ended.
using LaunchTimes = std::function<void(int call, std::vector<double> launch_ms)>;

struct TimedWork {
  GpuWork run;      // what is timed
  CallHook before;  // before each call, untimed (fresh inputs, poisoned outputs); may be empty
  CallHook after;   // after each call, untimed (check the output it left); may be empty
  // Where given, every call's launches are timed each (an event between each two launches, every
  // call alike) and handed here before `after`.
  LaunchTimes launch_times = {};
};

// Each work is timed as long as its own noise needs (docs/timing.md, "Until precise"): warm-up calls
// until it has had warmup_runs or warmup_seconds of them (at least one); then timed calls until the
// relative standard error of its mean is under the target, after at least min_runs, or min_seconds of
// timed calls where those come first (never fewer than kFewestRuns). Where L2 is flushed before every
// call, a work that is done leaves the rotation and the others go on, interleaved; without the flush
// all stay until all are done (timing.cu says why). max_runs and max_seconds end it all.
struct TimingOptions {
  int warmup_runs = 3;
  double warmup_seconds = 0.1;
  int min_runs = 15;
  double min_seconds = 0.5;
  int max_runs = 500;
  double target_relative_standard_error = 0.005;  // 0.5% of the mean
  double max_seconds = 4.0;                       // wall-clock budget for one call
  bool flush_l2 = true;
};
// A median needs three values at the least: a long work is timed no fewer times than this.
inline constexpr int kFewestRuns = 3;

struct Timing {
  double median_ms = 0;
  double relative_standard_error = 0;
  int runs = 0;
  int calls = 0;    // warm-up included: how many calls the hooks saw
  int warmups = 0;  // of which warm-up calls
  int waits = 0;    // timed calls whose gate gave up: the host took 50 ms or more to queue them
};

// Times each of `works` on `stream`, interleaved. Results are in the order of `works`.
std::vector<Timing> time_interleaved(const std::vector<TimedWork>& works, cudaStream_t stream,
                                     const TimingOptions& options = {});
std::vector<Timing> time_interleaved(const std::vector<GpuWork>& works, cudaStream_t stream,
                                     const TimingOptions& options = {});

// A proof's call ([calls-alike] off): one call of `work`, its hooks around it, each launch timed and
// handed to work.launch_times, with no L2 flush before it. The grader once timed launch by launch only
// this one extra call, which a kernel could tell from the timed ones by what the flush had left in L2.
void time_unflushed_call_by_launch(const TimedWork& work, int call, cudaStream_t stream);

// One call of `work`, started with the whole device idle and timed by events on `stream`; returns
// with the whole device idle again. A correctness case's call: its duration checks a measurement
// the call reports (lab 01's clock64() cycles), nothing more.
double time_one_call_ms(const GpuWork& work, cudaStream_t stream);

}  // namespace workbook
