// Grader for lab 04_sgemm: register blocking and lower occupancy, to cuBLAS speed.
//
// Every step is first checked for correctness against a double-precision oracle (fresh random
// inputs of square, rectangular and odd shapes, offset pointers, NaN-poisoned outputs, the guard
// region behind them) with the error bound of a k-term single-precision dot product, then timed
// against the baseline (the naive kernel with uncoalesced loads) and against cuBLAS SGEMM at
// 4096^3, interleaved in one process. cuBLAS is the grader's, never the student's: student code
// must not link or include it (a static test checks).
#include <doctest/doctest.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "buffers.h"
#include "check.h"
#include "grading.h"
#include "peaks.h"
#include "resources.h"
#include "session.h"
#include "sgemm.h"
#include "sgemm_baseline.h"
#include "sgemm_oracle.h"
#include "timing.h"

namespace {

using sgemm_lab::GemmProblem;
using Launcher = void (*)(const GemmProblem&, cudaStream_t);

constexpr const char* kLab = "04_sgemm";

struct Shape {
  int m, n, k;
  double flops() const { return 2.0 * m * n * k; }
  std::string describe() const {
    if (m == n && n == k) return std::to_string(m) + "^3";
    return std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k);
  }
  bool operator==(const Shape&) const = default;
};

constexpr Shape kBarShape{4096, 4096, 4096};  // 137 GFLOP; A, B and C are 64 MiB each

struct Bar {
  double min_speedup;                  // over the baseline at `shape`, same inputs, same process
  double min_percent_of_cublas = 0;    // of cuBLAS SGEMM at `shape`, same run; 0: none
  Shape shape = kBarShape;             // where the step's idea shows (04.9's: a C of few tiles)
  std::string describe() const {
    std::ostringstream text;
    text << ">= " << min_speedup << "x";
    if (min_percent_of_cublas > 0) text << ", >= " << min_percent_of_cublas << "% of cuBLAS";
    if (!(shape == kBarShape)) text << " at " << shape.describe();
    return text.str();
  }
};

struct Step {
  const char* id;
  const char* title;
  Launcher launcher;
  Bar bar;
  // Bytes a thread loads from shared memory per flop (2 per FMA), from the step's design: the
  // quantity Volkov's argument is about. 0: the step does not use shared memory.
  double shared_bytes_per_flop;
};

// Bytes of shared memory a thread loads per flop, from the bytes it loads per `fmas` FMAs.
constexpr double per_flop(double bytes, double fmas) { return bytes / (2 * fmas); }

// The bars, calibrated on an H100 (solutions/04_sgemm/NOTES.md; the handout lists the same).
// Each is one that the previous step's reference solution fails: the test case "04_sgemm bars"
// checks that on every run of the solution.
const std::vector<Step>& steps() {
  static const std::vector<Step> all = {
      {"04.1", "coalesced thread arrangement", sgemm_lab::sgemm_coalesced, {6.0, 8.0}, 0.0},
      // two 4-byte loads per FMA
      {"04.2", "shared-memory tiles", sgemm_lab::sgemm_shared_tiles, {15.0, 14.0}, per_flop(2 * 4, 1)},
      // one B value and R A values per R FMAs
      {"04.3", "2 outputs per thread", sgemm_lab::sgemm_2_outputs_per_thread, {22.0, 22.0}, per_flop(3 * 4, 2)},
      {"04.4", "4 outputs per thread", sgemm_lab::sgemm_4_outputs_per_thread, {30.0, 30.0}, per_flop(5 * 4, 4)},
      {"04.5", "8 outputs per thread", sgemm_lab::sgemm_8_outputs_per_thread, {36.0, 37.0}, per_flop(9 * 4, 8)},
      // sixteen float4 of A per 64 FMAs (B comes from global memory)
      {"04.6", "rank-1 updates", sgemm_lab::sgemm_rank1_updates, {40.0, 43.0}, per_flop(16 * 16, 64)},
      // two float4 of A and two of B per 64 FMAs
      {"04.7", "2D register blocking", sgemm_lab::sgemm_register_blocked, {60.0, 60.0}, per_flop(4 * 16, 64)},
      {"04.8", "double buffering", sgemm_lab::sgemm_double_buffered, {75.0, 80.0}, per_flop(4 * 16, 64)},
      // 04.8's kernel: its bar is at 1000^3, where 04.8 leaves three quarters of the GPU idle
      {"04.9", "split-k", sgemm_lab::sgemm_split_k, {20.0, 80.0, {1000, 1000, 1000}}, per_flop(4 * 16, 64)},
      // 04.8's multiply, fed by cp.async from packed operands; it splits k as 04.9 does
      {"04.10", "packed cp.async pipeline", sgemm_lab::sgemm_packed_pipeline, {94.0, 92.0}, per_flop(4 * 16, 64)},
  };
  return all;
}

// ---------------------------------------------------------------------------------------------
// cuBLAS, the line to beat. Row-major C = A B is column-major C^T = B^T A^T: the same call with the
// operands swapped. Default math mode: FP32 on the CUDA cores, no TF32.

cublasHandle_t cublas() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    if (cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasSetMathMode failed");
    return h;
  }();
  return handle;
}

void cublas_sgemm(const GemmProblem& p, cudaStream_t stream) {
  const float one = 1.0f, zero = 0.0f;
  if (cublasSetStream(cublas(), stream) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasSetStream failed");
  // Leading dimensions must be at least 1, even when k = 0 leaves nothing to lead.
  if (cublasSgemm(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one, p.b, std::max(1, p.n), p.a, std::max(1, p.k),
                  &zero, p.c, std::max(1, p.n)) != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("cublasSgemm failed");
}

// ---------------------------------------------------------------------------------------------
// Correctness

std::vector<Shape> shapes_to_check() {
  std::vector<Shape> shapes = {{1, 1, 1},    {1, 1, 0},     {3, 5, 0},    {2, 3, 4},      {17, 17, 17},
                               {33, 65, 129}, {31, 33, 1},   {1, 300, 7},  {300, 1, 7},    {64, 64, 64},
                               {128, 128, 8}, {129, 127, 9}, {127, 129, 17}, {160, 96, 44},
                               // few tiles and a deep k: split-k's slices, partial tiles in m and n
                               {100, 130, 1000}};
  if (workbook::session().correctness_only) return shapes;  // under compute-sanitizer: small ones only
  // Not multiples of any tile, at sizes where the blocked steps have many tiles; the bar's shape.
  shapes.insert(shapes.end(), {{1000, 1000, 1000}, {1023, 1025, 1027}, {4095, 4097, 4093}, kBarShape});
  return shapes;
}

struct Offsets {
  std::size_t a = 0, b = 0, c = 0;  // in floats past an aligned address
};

// The rows of C the oracle checks: all of them when C is small, else the first two, the last two
// (the partial tiles at the edges) and some drawn at random; every column of each.
std::vector<int> rows_to_check(const Shape& s, std::uint64_t seed) {
  std::vector<int> rows;
  if (double(s.m) * s.n * s.k <= 1e8) {
    for (int i = 0; i < s.m; ++i) rows.push_back(i);
    return rows;
  }
  rows = {0, 1, s.m - 2, s.m - 1};
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> any_row(0, s.m - 1);
  for (int r = 0; r < 12; ++r) rows.push_back(any_row(random));
  return rows;
}

// Compares the rows `rows` of `c` (m x n, from the GPU) with the oracle; "" or the first mismatches.
std::string compare_with_oracle(const std::vector<float>& c, const std::vector<float>& a, const std::vector<float>& b,
                                const Shape& s, const std::vector<int>& rows) {
  std::size_t checked = 0, wrong = 0;
  std::ostringstream first;
  first << std::setprecision(9);
  for (int i : rows) {
    const sgemm_oracle::Row want = sgemm_oracle::row_of_product(a, b, s.m, s.n, s.k, i);
    for (int j = 0; j < s.n; ++j) {
      ++checked;
      const double got = c[std::size_t(i) * s.n + j];
      // The oracle's own rounding, 2^-53 relative, is covered by the last term.
      const double allowed = sgemm_oracle::error_bound(s.k, want.magnitude[j]) + std::ldexp(want.magnitude[j], -40);
      if (std::isnan(got) || std::fabs(got - want.value[j]) > allowed) {
        if (wrong < workbook::kMismatchesShown)
          first << " C(" << i << ", " << j << ") got " << got << " want " << want.value[j] << " (allowed +-" << allowed << ");";
        ++wrong;
      }
    }
  }
  if (wrong == 0) return "";
  std::ostringstream why;
  why << wrong << " of " << checked << " checked elements differ from the double-precision product by more than "
      << "k u sum|a b| (u = 2^-24):" << first.str();
  return why.str();
}

std::string check_gemm(Launcher launcher, const Shape& s, const Offsets& offsets, cudaStream_t stream) {
  const std::size_t a_count = std::size_t(s.m) * s.k, b_count = std::size_t(s.k) * s.n, c_count = std::size_t(s.m) * s.n;
  workbook::DeviceArray<float> a(offsets.a + a_count), b(offsets.b + b_count), c(offsets.c + c_count);
  const std::vector<float> a_values = workbook::random_floats(a_count, workbook::session().next_seed());
  const std::vector<float> b_values = workbook::random_floats(b_count, workbook::session().next_seed());
  const auto with_offset = [](std::size_t offset, const std::vector<float>& values) {
    std::vector<float> all(offset, 0.5f);
    all.insert(all.end(), values.begin(), values.end());
    return all;
  };
  const std::vector<float> a_host = with_offset(offsets.a, a_values), b_host = with_offset(offsets.b, b_values);
  a.upload(a_host);
  b.upload(b_host);
  c.poison(stream);
  launcher(GemmProblem{a.data() + offsets.a, b.data() + offsets.b, c.data() + offsets.c, s.m, s.n, s.k}, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::string where = s.describe();
  if (offsets.a != 0 || offsets.b != 0 || offsets.c != 0)
    where += " (a, b, c " + std::to_string(offsets.a) + ", " + std::to_string(offsets.b) + ", " +
             std::to_string(offsets.c) + " floats past an aligned address)";
  where += ": ";
  const std::vector<float> c_all = c.download();
  const std::vector<float> got(c_all.begin() + offsets.c, c_all.end());
  if (std::string failure = compare_with_oracle(got, a_values, b_values, s, rows_to_check(s, workbook::session().next_seed()));
      !failure.empty())
    return where + failure;
  for (std::size_t e = 0; e < offsets.c; ++e)
    if (!std::isnan(c_all[e])) return where + "wrote before the start of c";
  if (const long at = c.guard_violation(); at >= 0)
    return where + "wrote past the end of c (the guard byte " + std::to_string(at) + " bytes after it changed)";
  if (a.download() != a_host || b.download() != b_host) return where + "the kernel changed an input";
  return "";
}

std::string check_all_shapes(Launcher launcher, cudaStream_t stream) {
  for (const Shape& s : shapes_to_check())
    if (std::string failure = check_gemm(launcher, s, {}, stream); !failure.empty()) return failure;
  for (const Shape& s : {Shape{64, 64, 64}, Shape{33, 65, 129}})
    if (std::string failure = check_gemm(launcher, s, {1, 2, 3}, stream); !failure.empty()) return failure;
  return "";
}

// ---------------------------------------------------------------------------------------------
// Speed

struct TimedBuffers {
  Shape shape;
  workbook::DeviceArray<float> a{std::size_t(shape.m) * shape.k};
  workbook::DeviceArray<float> b{std::size_t(shape.k) * shape.n};
  workbook::DeviceArray<float> candidate_c{std::size_t(shape.m) * shape.n};
  workbook::DeviceArray<float> reference_c{std::size_t(shape.m) * shape.n};  // for the baseline and cuBLAS
  std::vector<float> a_values, b_values;
  explicit TimedBuffers(Shape s) : shape(s) {
    a_values = workbook::random_floats(a.size(), workbook::session().next_seed());
    b_values = workbook::random_floats(b.size(), workbook::session().next_seed());
    a.upload(a_values);
    b.upload(b_values);
  }
};

struct Measurement {
  Shape shape{};
  double candidate_ms = 0, baseline_ms = 0, cublas_ms = 0;
  bool launched = false;
  workbook::KernelResources resources;
  std::string output_failure;

  double speedup() const { return baseline_ms / candidate_ms; }
  double percent_of_cublas() const { return 100.0 * cublas_ms / candidate_ms; }
  double gflop_per_s() const { return shape.flops() / (candidate_ms * 1e6); }
};

// The naive baseline takes about a second at 4096^3: fewer runs than the harness's default, within
// a budget, still interleaved and still reported as medians.
workbook::TimingOptions gemm_timing() {
  workbook::TimingOptions options;
  options.min_runs = 5;
  options.max_seconds = 8.0;
  return options;
}

Measurement measure(Launcher candidate, TimedBuffers& t, cudaStream_t stream, bool with_baseline = true) {
  const Shape s = t.shape;
  const GemmProblem for_candidate{t.a.data(), t.b.data(), t.candidate_c.data(), s.m, s.n, s.k};
  const GemmProblem for_reference{t.a.data(), t.b.data(), t.reference_c.data(), s.m, s.n, s.k};
  Measurement m;
  m.shape = s;
  std::vector<workbook::LaunchRecord> launches;
  t.candidate_c.poison(stream);
  std::vector<workbook::GpuWork> works;
  if (with_baseline) works.push_back([&](cudaStream_t st) { sgemm_baseline::sgemm_naive(for_reference, st); });
  works.push_back(workbook::recording_launches([&](cudaStream_t st) { candidate(for_candidate, st); }, launches));
  works.push_back([&](cudaStream_t st) { cublas_sgemm(for_reference, st); });
  const std::vector<workbook::Timing> timings = workbook::time_interleaved(works, stream, gemm_timing());
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::size_t first = with_baseline ? 1 : 0;
  m.baseline_ms = with_baseline ? timings[0].median_ms : 0;
  m.candidate_ms = timings[first].median_ms;
  m.cublas_ms = timings[first + 1].median_ms;
  const std::optional<workbook::LaunchRecord> step_kernel = workbook::main_launch(launches);
  m.launched = step_kernel.has_value();
  if (m.launched) m.resources = workbook::resources_of(*step_kernel);

  // After many timed calls C must still be A B: a kernel that accumulates into C is caught here.
  const std::vector<float> c = t.candidate_c.download();
  const std::vector<int> rows = {0, s.m / 2, s.m - 1};
  if (std::string failure = compare_with_oracle(c, t.a_values, t.b_values, s, rows); !failure.empty())
    m.output_failure = "the output was wrong after the timed runs: " + failure;
  else if (t.candidate_c.guard_violation() >= 0)
    m.output_failure = "the timed runs wrote past the end of c";
  return m;
}

std::string bar_failure(const Bar& bar, const Measurement& m) {
  std::ostringstream why;
  why << std::fixed << std::setprecision(2);
  if (!m.output_failure.empty()) return m.output_failure;
  if (!m.launched)
    return "the launcher made no launch through workbook::launch(): every step's kernel must be launched with it "
           "(calling a library instead is not the exercise)";
  if (m.gflop_per_s() > 1e3 * workbook::device_peaks().fma_tflop_per_s * workbook::kCeilingSlack) {
    why << "measured at " << m.gflop_per_s() << " GFLOP/s, above the device's measured FMA peak: the measurement is "
        << "wrong (does every call compute all of C?)";
    return why.str();
  }
  if (m.speedup() < bar.min_speedup) {
    why << "speedup " << m.speedup() << "x over the naive kernel at " << m.shape.describe() << ", the bar is "
        << bar.min_speedup << "x";
    return why.str();
  }
  if (m.percent_of_cublas() < bar.min_percent_of_cublas) {
    why << m.percent_of_cublas() << "% of cuBLAS at " << m.shape.describe() << ", the bar is " << bar.min_percent_of_cublas << "%";
    return why.str();
  }
  return "";
}

workbook::StepRow row_for(const Step& step, const Measurement& m) {
  workbook::StepRow row;
  row.lab = kLab;
  row.step = std::string(step.id) + " " + step.title;
  std::ostringstream at;
  at << m.shape.describe() << ", " << std::setprecision(3) << step.shared_bytes_per_flop << " B shared/flop";
  row.measured_at = at.str();
  row.result = "info";
  row.time_ms = m.candidate_ms;
  row.rate = m.gflop_per_s();
  row.rate_unit = "GFLOP/s";
  row.percent_of_peak = m.percent_of_cublas();
  row.reference = "cuBLAS SGEMM";
  row.speedup = m.speedup();
  if (m.launched) workbook::add_resources(row, m.resources);
  return row;
}

void grade(const Step& step) {
  cudaStream_t stream = nullptr;
  workbook::StepRow failed = workbook::failing_row(kLab, std::string(step.id) + " " + step.title, step.bar.describe());

  if (const std::string failure = workbook::grade_correctness(failed, [&] { return check_all_shapes(step.launcher, stream); }); !failure.empty()) {
    FAIL_CHECK(failure);
    return;
  }
  if (workbook::session().correctness_only) return;
  std::string verdict;
  workbook::StepRow row;
  const std::string error = workbook::failure_of([&] {
    TimedBuffers buffers(step.bar.shape);
    const Measurement m = measure(step.launcher, buffers, stream);
    verdict = bar_failure(step.bar, m);
    row = row_for(step, m);
    row.result = verdict.empty() ? "PASS" : "FAIL";
    row.bar = step.bar.describe();
    row.reason = verdict;
    return std::string();
  });
  if (!error.empty()) {
    failed.measured_at = "timing";
    failed.reason = error;
    row = failed;
    verdict = error;
  }
  workbook::record(row);
  CHECK_MESSAGE(verdict.empty(), verdict);
}

// ---------------------------------------------------------------------------------------------
// Benchmark: GFLOP/s, % of cuBLAS and occupancy of every step against size: Volkov's curves.

// The number after the dot of a step's id: 10 for "04.10" (as strings, "04.10" < "04.6").
int step_number(const std::string& id) { return std::stoi(id.substr(id.find('.') + 1)); }

void bench(const std::string& csv_path) {
  std::ofstream csv(csv_path);
  if (!csv) throw std::runtime_error("cannot write " + csv_path);
  csv << "curve,m,n,k,time_ms,gflop_per_s,percent_of_cublas,cublas_gflop_per_s,occupancy_percent,registers,"
         "shared_bytes_per_flop\n";
  const std::vector<Shape> shapes = {{1000, 1000, 1000}, {1024, 1024, 1024}, {2048, 2048, 2048},
                                     {4095, 4097, 4093}, {4096, 4096, 4096}, {8192, 8192, 8192}};
  std::vector<Step> curves = {{"baseline", "naive (uncoalesced)", sgemm_baseline::sgemm_naive, {}, 0.0}};
  curves.insert(curves.end(), steps().begin(), steps().end());
  for (const Shape& shape : shapes) {
    TimedBuffers buffers(shape);
    for (const Step& curve : curves) {
      // The slow kernels would take minutes at 8192^3 and show nothing new there.
      const std::string id = curve.id;
      if (shape.m > 4096 && (id == "baseline" || step_number(id) < 6)) continue;
      const std::string failure = workbook::failure_of([&] {
        const Measurement m = measure(curve.launcher, buffers, nullptr, false);
        if (!m.output_failure.empty()) return m.output_failure;
        const std::string name = std::string(curve.id) + " " + curve.title;
        csv << name << ',' << shape.m << ',' << shape.n << ',' << shape.k << ',' << m.candidate_ms << ','
            << m.gflop_per_s() << ',' << m.percent_of_cublas() << ',' << shape.flops() / (m.cublas_ms * 1e6) << ','
            << 100.0 * m.resources.occupancy << ',' << m.resources.registers_per_thread << ','
            << curve.shared_bytes_per_flop << '\n';
        std::cout << std::left << std::setw(36) << name << std::setw(22) << shape.describe() << std::fixed
                  << std::setprecision(0) << std::setw(7) << m.gflop_per_s() << " GFLOP/s " << std::setprecision(1)
                  << std::setw(6) << m.percent_of_cublas() << "% of cuBLAS (" << std::setprecision(0)
                  << shape.flops() / (m.cublas_ms * 1e6) << ")  occupancy " << 100.0 * m.resources.occupancy
                  << "%, " << m.resources.registers_per_thread << " regs\n";
        return std::string();
      });
      if (!failure.empty()) std::cout << curve.id << " at " << shape.describe() << ": skipped (" << failure << ")\n";
    }
  }
}

const bool kBenchRegistered = workbook::register_bench(kLab, bench);

}  // namespace

TEST_SUITE("04_sgemm") {
  TEST_CASE("04.1 coalesced thread arrangement") { grade(steps()[0]); }
  TEST_CASE("04.2 shared-memory tiles") { grade(steps()[1]); }
  TEST_CASE("04.3 2 outputs per thread") { grade(steps()[2]); }
  TEST_CASE("04.4 4 outputs per thread") { grade(steps()[3]); }
  TEST_CASE("04.5 8 outputs per thread") { grade(steps()[4]); }
  TEST_CASE("04.6 rank-1 updates") { grade(steps()[5]); }
  TEST_CASE("04.7 2D register blocking") { grade(steps()[6]); }
  TEST_CASE("04.8 double buffering") { grade(steps()[7]); }
  TEST_CASE("04.9 split-k") { grade(steps()[8]); }
  TEST_CASE("04.10 packed cp.async pipeline") { grade(steps()[9]); }
}

// Run on the reference solution only: each bar must reject the previous step's solution.
TEST_SUITE("04_sgemm bars") {
  TEST_CASE("04_sgemm bars reject the previous step") {
    CHECK_MESSAGE(steps().front().bar.min_speedup > 1.0, "the first bar must demand more than the baseline");
    std::vector<std::unique_ptr<TimedBuffers>> buffers;  // one set per bar shape
    const auto buffers_for = [&](const Shape& shape) -> TimedBuffers& {
      for (auto& each : buffers)
        if (each->shape == shape) return *each;
      return *buffers.emplace_back(std::make_unique<TimedBuffers>(shape));
    };
    for (std::size_t k = 1; k < steps().size(); ++k) {
      const Step& previous = steps()[k - 1];
      const Step& step = steps()[k];
      // The previous step's solution, where this step's bar is measured.
      const Measurement m = measure(previous.launcher, buffers_for(step.bar.shape), nullptr);
      std::ostringstream measured;
      measured << std::fixed << std::setprecision(2) << m.speedup() << "x, " << m.percent_of_cublas() << "% of cuBLAS";
      INFO(previous.id, " measured: ", measured.str());
      CHECK_MESSAGE(!bar_failure(step.bar, m).empty(), "bar ", step.id, " (", step.bar.describe(),
                    ") does not discriminate: the solution of ", previous.id, " clears it");
    }
  }
}

// cuBLAS is the yardstick, so it is checked like a student's kernel.
TEST_SUITE("04_sgemm reference") {
  TEST_CASE("04_sgemm cuBLAS computes what the oracle does") {
    CHECK_MESSAGE(check_all_shapes(cublas_sgemm, nullptr).empty(), "cuBLAS disagrees with the oracle");
  }
}
