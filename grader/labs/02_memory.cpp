// Grader for lab 02_memory: hide memory latency with fewer threads.
//
// Every step is first checked for correctness (fresh random inputs of many sizes, NaN-poisoned
// outputs, the guard region behind them), then timed against the baseline (one float per thread)
// and against cudaMemcpyAsync on the same buffers, at several occupancies. Occupancy is set the
// way Volkov did: dynamic shared memory the kernel never uses limits the blocks per SM.
// The oracle of a copy is its input, so correctness is bit-exact equality.
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "buffers.h"
#include "check.h"
#include "grading.h"
#include "memory.h"
#include "memory_baseline.h"
#include "peaks.h"
#include "resources.h"
#include "session.h"
#include "timing.h"

namespace {

using memory_lab::CopyProblem;
using Launcher = void (*)(const CopyProblem&, cudaStream_t);

constexpr const char* kLab = "02_memory";

// Where a kernel is measured: its block size, and how many blocks the padding lets onto one SM
// (0: no padding, as many as the kernel's own resources allow).
struct LaunchShape {
  int threads_per_block;
  int blocks_per_sm;

  std::size_t padding_bytes() const { return blocks_per_sm == 0 ? 0 : workbook::occupancy_padding_bytes(blocks_per_sm); }
  // The occupancy the padding allows; the kernel's registers may allow less.
  double occupancy_percent() const {
    const double max_warps = workbook::device_facts().max_threads_per_sm / 32.0;
    const double warps = blocks_per_sm == 0 ? max_warps : blocks_per_sm * threads_per_block / 32.0;
    return 100.0 * std::min(warps, max_warps) / max_warps;
  }
  std::string describe() const {
    std::ostringstream text;
    if (blocks_per_sm == 0) {
      text << threads_per_block << " thr, full occ.";
    } else {
      text << std::setprecision(3) << occupancy_percent() << "% occ. (" << threads_per_block << " thr x "
           << blocks_per_sm << " blk/SM)";
    }
    return text.str();
  }
  bool operator==(const LaunchShape&) const = default;
};

// On a GPU with 64 warps per SM (every one since Volta), four warps are 6.25%.
constexpr LaunchShape kLowOccupancy{128, 1};
constexpr LaunchShape kQuarterOccupancy{128, 4};
constexpr LaunchShape kFullOccupancy{128, 16};
constexpr LaunchShape kFinalShape{256, 0};

struct Bar {
  LaunchShape at;
  double min_speedup;                // over the baseline, same shape, same inputs, same process
  double min_percent_of_memcpy = 0;  // of cudaMemcpyAsync on the same buffers; 0: none
  std::string describe() const {
    std::ostringstream text;
    text << ">= " << min_speedup << "x";
    if (min_percent_of_memcpy > 0) text << ", >= " << min_percent_of_memcpy << "% of memcpy";
    return text.str();
  }
};

struct Step {
  const char* id;
  const char* title;
  Launcher launcher;
  Bar bar;
};

// The bars, calibrated on an H100 (solutions/02_memory/NOTES.md; the handout lists the same).
// Each is one that the previous step's reference solution fails: the test case "02_memory bars"
// checks that on every run of the solution.
const std::vector<Step>& steps() {
  static const std::vector<Step> all = {
      {"02.1", "several floats per thread", memory_lab::copy_several_floats, {kLowOccupancy, 2.5}},
      {"02.2", "float2 loads", memory_lab::copy_float2, {kLowOccupancy, 4.5}},
      {"02.3", "float4 loads", memory_lab::copy_float4, {kLowOccupancy, 7.0}},
      {"02.4", "many float4 at low occupancy", memory_lab::copy_many_float4, {kLowOccupancy, 10.0, 85.0}},
      {"02.5", "at memcpy speed", memory_lab::copy_at_memcpy_speed, {kFinalShape, 1.0, 98.0}},
  };
  return all;
}

// ---------------------------------------------------------------------------------------------
// Correctness

std::vector<std::size_t> sizes_to_check() {
  std::vector<std::size_t> sizes = {0, 1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 63, 64, 65, 1000};
  // One less than, exactly, and one more than the work of a block, for the block sizes the grader
  // uses and the per-thread work of every step (1, 4, 8 and 16 floats, 16 float4).
  for (std::size_t threads : {128, 256})
    for (std::size_t floats_per_thread : {1, 4, 8, 16, 64}) {
      const std::size_t tile = threads * floats_per_thread;
      sizes.insert(sizes.end(), {tile - 1, tile, tile + 1});
    }
  // A large size that is a multiple of nothing useful (left out under compute-sanitizer).
  if (!workbook::session().correctness_only) sizes.push_back((std::size_t{1} << 24) + 1001);
  return sizes;
}

// Runs `launcher` once on n fresh random floats; "" if the copy is exact and nothing outside
// `out` changed, else what went wrong.
std::string check_copy(Launcher launcher, std::size_t n, const LaunchShape& shape, cudaStream_t stream) {
  workbook::DeviceArray<float> in(n), out(n);
  const std::vector<float> values = workbook::random_floats(n, workbook::session().next_seed());
  in.upload(values);
  out.poison(stream);
  launcher(CopyProblem{in.data(), out.data(), n, shape.threads_per_block, shape.padding_bytes()}, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  const std::string where = "n = " + std::to_string(n) + " at " + shape.describe() + ": ";
  const workbook::Comparison result = workbook::compare(out.download(), values, workbook::Tolerance{});
  if (!result.ok()) return where + result.describe(workbook::Tolerance{});
  if (const long at = out.guard_violation(); at >= 0)
    return where + "wrote past the end of out (the guard byte " + std::to_string(at) + " bytes after it changed)";
  if (const long at = in.guard_violation(); at >= 0)
    return where + "wrote past the end of in (the guard byte " + std::to_string(at) + " bytes after it changed)";
  if (in.download() != values) return where + "the kernel changed its input";
  return "";
}

std::string check_all_sizes(Launcher launcher, cudaStream_t stream) {
  // Three block sizes, so that a kernel that assumes one is caught.
  for (const LaunchShape& shape : {kLowOccupancy, LaunchShape{256, 0}, LaunchShape{32, 0}})
    for (std::size_t n : sizes_to_check())
      if (std::string failure = check_copy(launcher, n, shape, stream); !failure.empty()) return failure;
  return "";
}

// ---------------------------------------------------------------------------------------------
// Speed

constexpr std::size_t kTimedFloats = std::size_t{1} << 26;  // 256 MiB each way, five times the L2

struct TimedBuffers {
  workbook::DeviceArray<float> in{kTimedFloats};
  workbook::DeviceArray<float> candidate_out{kTimedFloats};
  workbook::DeviceArray<float> reference_out{kTimedFloats};  // for the baseline and cudaMemcpy
  std::vector<float> values = workbook::random_floats(kTimedFloats, workbook::session().next_seed());
  TimedBuffers() { in.upload(values); }
};

struct Measurement {
  double candidate_ms = 0, baseline_ms = 0, memcpy_ms = 0;
  bool launched = false;  // the candidate launched through workbook::launch()
  workbook::KernelResources resources;  // of the candidate's last launch
  std::string output_failure;           // the output checked after timing

  double speedup() const { return baseline_ms / candidate_ms; }
  double percent_of_memcpy() const { return 100.0 * memcpy_ms / candidate_ms; }
  double gb_per_s() const { return 2.0 * kTimedFloats * sizeof(float) / (candidate_ms * 1e6); }
};

Measurement measure(Launcher candidate, const LaunchShape& shape, TimedBuffers& b, cudaStream_t stream) {
  const std::size_t padding = shape.padding_bytes();
  const CopyProblem for_candidate{b.in.data(), b.candidate_out.data(), kTimedFloats, shape.threads_per_block, padding};
  const CopyProblem for_baseline{b.in.data(), b.reference_out.data(), kTimedFloats, shape.threads_per_block, padding};
  Measurement m;

  std::vector<workbook::LaunchRecord> launches;
  b.candidate_out.poison(stream);  // whatever is there after timing, the timed calls wrote
  const std::vector<workbook::Timing> timings = workbook::time_interleaved(
      {
          [&](cudaStream_t s) { memory_baseline::copy_one_float_per_thread(for_baseline, s); },
          workbook::recording_launches([&](cudaStream_t s) { candidate(for_candidate, s); }, launches),
          [&](cudaStream_t s) {
            CUDA_CHECK(cudaMemcpyAsync(b.reference_out.data(), b.in.data(), b.in.bytes(), cudaMemcpyDeviceToDevice, s));
          },
      },
      stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  m.baseline_ms = timings[0].median_ms;
  m.candidate_ms = timings[1].median_ms;
  m.memcpy_ms = timings[2].median_ms;
  // Asked once, after the timed runs: the queries cost host time that must not sit between events.
  const std::optional<workbook::LaunchRecord> step_kernel = workbook::main_launch(launches);
  m.launched = step_kernel.has_value();
  if (m.launched) m.resources = workbook::resources_of(*step_kernel);

  const workbook::Comparison after = workbook::compare(b.candidate_out.download(), b.values, workbook::Tolerance{});
  if (!after.ok()) m.output_failure = "the output was wrong after the timed runs: " + after.describe(workbook::Tolerance{});
  else if (b.candidate_out.guard_violation() >= 0) m.output_failure = "the timed runs wrote past the end of out";
  return m;
}

// "" when `m` clears `bar`, else why not.
std::string bar_failure(const Bar& bar, const Measurement& m) {
  std::ostringstream why;
  why << std::fixed << std::setprecision(2);
  if (!m.output_failure.empty()) return m.output_failure;
  if (!m.launched)
    return "the launcher made no launch through workbook::launch(), so its occupancy cannot be checked";
  const double occupancy = 100.0 * m.resources.occupancy;
  if (bar.at.blocks_per_sm != 0 && occupancy > bar.at.occupancy_percent() + 1e-9) {
    why << "the kernel ran at " << occupancy << "% occupancy but this step is measured at "
        << bar.at.occupancy_percent() << "%: launch it with problem.occupancy_padding_bytes of dynamic shared memory";
    return why.str();
  }
  if (m.percent_of_memcpy() > 100.0 * workbook::kCeilingSlack) {
    why << "measured at " << m.percent_of_memcpy() << "% of cudaMemcpy on the same buffers, which no copy can be: "
        << "the measurement is wrong (does every call copy all n floats?)";
    return why.str();
  }
  if (m.speedup() < bar.min_speedup) {
    why << "speedup " << m.speedup() << "x over the baseline at " << bar.at.describe() << ", the bar is "
        << bar.min_speedup << "x";
    return why.str();
  }
  if (m.percent_of_memcpy() < bar.min_percent_of_memcpy) {
    why << m.percent_of_memcpy() << "% of cudaMemcpy at " << bar.at.describe() << ", the bar is "
        << bar.min_percent_of_memcpy << "%";
    return why.str();
  }
  return "";
}

workbook::StepRow row_for(const Step& step, const LaunchShape& shape, const Measurement& m) {
  workbook::StepRow row;
  row.lab = kLab;
  row.step = std::string(step.id) + " " + step.title;
  row.measured_at = shape.describe();
  row.result = "info";
  row.time_ms = m.candidate_ms;
  row.rate = m.gb_per_s();
  row.percent_of_peak = m.percent_of_memcpy();
  row.reference = "cudaMemcpy";
  row.speedup = m.speedup();
  if (m.launched) workbook::add_resources(row, m.resources);
  return row;
}

void grade(const Step& step) {
  cudaStream_t stream = nullptr;
  workbook::StepRow failed = workbook::failing_row(kLab, std::string(step.id) + " " + step.title, step.bar.describe());

  if (const std::string failure = workbook::grade_correctness(failed, [&] { return check_all_sizes(step.launcher, stream); }); !failure.empty()) {
    FAIL_CHECK(failure);
    return;
  }
  if (workbook::session().correctness_only) return;

  std::vector<LaunchShape> shapes = {step.bar.at};
  for (const LaunchShape& shape : {kLowOccupancy, kQuarterOccupancy, kFullOccupancy})
    if (!(shape == step.bar.at)) shapes.push_back(shape);

  std::string verdict;
  std::vector<workbook::StepRow> rows;
  const std::string error = workbook::failure_of([&] {
    TimedBuffers buffers;
    for (const LaunchShape& shape : shapes) {
      const Measurement m = measure(step.launcher, shape, buffers, stream);
      workbook::StepRow row = row_for(step, shape, m);
      if (shape == step.bar.at) {
        verdict = bar_failure(step.bar, m);
        row.result = verdict.empty() ? "PASS" : "FAIL";
        row.bar = step.bar.describe();
        row.reason = verdict;
      } else if (!m.output_failure.empty()) {
        row.result = "FAIL";
        row.reason = m.output_failure;
        if (verdict.empty()) verdict = m.output_failure;
      }
      rows.push_back(row);
    }
    return std::string();
  });
  if (!error.empty()) {
    failed.measured_at = "timing";
    failed.reason = error;
    rows.push_back(failed);
    verdict = error;
  }
  for (const workbook::StepRow& row : rows) workbook::record(row);
  CHECK_MESSAGE(verdict.empty(), verdict);
}

// ---------------------------------------------------------------------------------------------
// Benchmark: Volkov's slides 31-40 redrawn on this GPU, fraction of memcpy against occupancy.

void bench(const std::string& csv_path) {
  std::ofstream csv(csv_path);
  if (!csv) throw std::runtime_error("cannot write " + csv_path);
  csv << "step,bytes_per_thread,threads_per_block,blocks_per_sm,occupancy_percent,time_ms,gb_per_s,percent_of_memcpy\n";
  std::vector<Step> curves = {{"baseline", "one float per thread", memory_baseline::copy_one_float_per_thread, {}}};
  curves.insert(curves.end(), steps().begin(), steps().end());
  TimedBuffers buffers;
  for (const Step& step : curves) {
    for (int blocks_per_sm : {1, 2, 3, 4, 6, 8, 12, 16}) {
      const LaunchShape shape{128, blocks_per_sm};
      const std::string failure = workbook::failure_of([&] {
        const Measurement m = measure(step.launcher, shape, buffers, nullptr);
        if (!m.output_failure.empty()) return m.output_failure;
        const double bytes_per_thread = static_cast<double>(kTimedFloats * sizeof(float)) /
                                        (double(m.resources.grid_blocks) * m.resources.threads_per_block);
        csv << step.id << ' ' << step.title << ',' << bytes_per_thread << ',' << shape.threads_per_block << ','
            << blocks_per_sm << ',' << 100.0 * m.resources.occupancy << ',' << m.candidate_ms << ','
            << m.gb_per_s() << ',' << m.percent_of_memcpy() << '\n';
        std::cout << std::left << std::setw(40) << (std::string(step.id) + " " + step.title) << std::setw(34)
                  << shape.describe() << std::fixed << std::setprecision(0) << std::setw(7) << m.gb_per_s()
                  << " GB/s " << std::setprecision(1) << m.percent_of_memcpy() << "% of memcpy\n";
        return std::string();
      });
      if (!failure.empty()) {
        std::cout << step.id << " " << step.title << ": skipped (" << failure << ")\n";
        break;
      }
    }
  }
}

const bool kBenchRegistered = workbook::register_bench(kLab, bench);

}  // namespace

TEST_SUITE("02_memory") {
  TEST_CASE("02.1 several floats per thread") { grade(steps()[0]); }
  TEST_CASE("02.2 float2 loads") { grade(steps()[1]); }
  TEST_CASE("02.3 float4 loads") { grade(steps()[2]); }
  TEST_CASE("02.4 many float4 at low occupancy") { grade(steps()[3]); }
  TEST_CASE("02.5 at memcpy speed") { grade(steps()[4]); }
}

// Run on the reference solution only: each bar must reject the previous step's solution, or the
// step teaches nothing the grader can see.
TEST_SUITE("02_memory bars") {
  TEST_CASE("02_memory bars reject the previous step") {
    CHECK_MESSAGE(steps().front().bar.min_speedup > 1.0, "the first bar must demand more than the baseline");
    TimedBuffers buffers;
    for (std::size_t k = 1; k < steps().size(); ++k) {
      const Step& previous = steps()[k - 1];
      const Step& step = steps()[k];
      const Measurement m = measure(previous.launcher, step.bar.at, buffers, nullptr);
      std::ostringstream measured;
      measured << std::fixed << std::setprecision(2) << m.speedup() << "x, " << m.percent_of_memcpy() << "% of memcpy";
      INFO(previous.id, " measured at ", step.id, "'s bar (", step.bar.at.describe(), "): ", measured.str());
      CHECK_MESSAGE(!bar_failure(step.bar, m).empty(), "bar ", step.id, " (", step.bar.describe(),
                    ") does not discriminate: the solution of ", previous.id, " clears it");
    }
  }
}
