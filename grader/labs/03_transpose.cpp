// Grader for lab 03_transpose: a transpose at the speed of a copy.
//
// Every step is first checked for correctness (fresh random inputs of square, non-square and odd
// shapes, offset pointers, NaN-poisoned outputs, the guard region behind them), then timed against
// the baseline (the naive transpose) and against cudaMemcpyAsync of the same bytes, at 8192 x 8192
// and at 8191 x 8191. The oracle is the CPU transpose; floats are only moved, so the comparison is
// bit for bit.
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "buffers.h"
#include "check.h"
#include "grading.h"
#include "peaks.h"
#include "resources.h"
#include "session.h"
#include "timing.h"
#include "transpose.h"
#include "transpose_baseline.h"
#include "transpose_oracle.h"

namespace {

using transpose_lab::TransposeProblem;
using Launcher = void (*)(const TransposeProblem&, cudaStream_t);

constexpr const char* kLab = "03_transpose";

struct Shape {
  int rows;
  int cols;
  std::size_t count() const { return std::size_t(rows) * std::size_t(cols); }
  std::string describe() const { return std::to_string(rows) + " x " + std::to_string(cols); }
  bool operator==(const Shape&) const = default;
};

// Where the bars are measured. 8192^2 floats are 256 MiB each way, five times the L2; 8191 is odd,
// so every row of the output starts somewhere inside a 32-byte sector.
constexpr Shape kBarShape{8192, 8192};
constexpr Shape kOddShape{8191, 8191};

struct Bar {
  double min_speedup;                    // over the baseline at kBarShape, same inputs, same process
  double min_percent_of_memcpy;          // of cudaMemcpyAsync of the same bytes at kBarShape, same run
  double min_percent_of_memcpy_odd = 0;  // the same at kOddShape; 0: not judged there
  std::string describe() const {
    std::ostringstream text;
    text << ">= " << min_speedup << "x, >= " << min_percent_of_memcpy << "% of memcpy";
    if (min_percent_of_memcpy_odd > 0) text << " (and >= " << min_percent_of_memcpy_odd << "% at " << kOddShape.describe() << ")";
    return text.str();
  }
};

struct Step {
  const char* id;
  const char* title;
  Launcher launcher;
  Bar bar;
  // Not null for a step that is an experiment rather than a rung: its bar is a floor that the
  // previous step's solution also clears, and this says why.
  const char* experiment = nullptr;
  // A check of the step's other deliverable, run before its kernels: "" or why it fails.
  std::string (*precheck)() = nullptr;
};

// 03.3: the block order, checked on the CPU against the formula in the handout.
std::string check_diagonal_order() {
  const std::vector<std::pair<unsigned, unsigned>> grids = {{1, 1}, {1, 5}, {5, 1}, {4, 4}, {7, 3}, {3, 7}, {64, 64}, {257, 256}};
  for (const auto& [grid_x, grid_y] : grids)
    for (unsigned y = 0; y < grid_y; ++y)
      for (unsigned x = 0; x < grid_x; ++x) {
        const unsigned b = x + grid_x * y;  // launch order
        transpose_lab::Tile want;
        want.y = b % grid_y;
        want.x = (b / grid_y + want.y) % grid_x;
        const transpose_lab::Tile got = transpose_lab::diagonal_tile(x, y, grid_x, grid_y);
        if (!(got == want)) {
          std::ostringstream why;
          why << "diagonal_tile(" << x << ", " << y << ", " << grid_x << ", " << grid_y << ") gave tile (" << got.x
              << ", " << got.y << "); the diagonal order in the handout gives (" << want.x << ", " << want.y << ")";
          return why.str();
        }
      }
  return "";
}

// The bars, calibrated on an H100 (solutions/03_transpose/NOTES.md; the handout lists the same).
// Each is one that the previous step's reference solution fails, except 03.3's: the test case
// "03_transpose bars" checks that on every run of the solution.
const std::vector<Step>& steps() {
  static const std::vector<Step> all = {
      {"03.1", "tiled through shared memory", transpose_lab::transpose_tiled, {3.0, 50.0}},
      {"03.2", "padded tile", transpose_lab::transpose_padded, {5.5, 85.0}},
      {"03.3", "diagonal block order", transpose_lab::transpose_diagonal, {5.0, 80.0},
       "the diagonal order fixed partition camping on GPUs that mapped addresses to memory partitions in plain "
       "stripes; the H100 hashes addresses over its partitions, and there the diagonal order measures a few percent "
       "slower than the row order it replaces. Its bar asks only that the remapped kernel stay close to 03.2",
       check_diagonal_order},
      {"03.4", "at copy speed", transpose_lab::transpose_at_copy_speed, {6.0, 95.0, 85.0}},
  };
  return all;
}

// ---------------------------------------------------------------------------------------------
// Correctness

std::vector<Shape> shapes_to_check() {
  std::vector<Shape> shapes = {{1, 1},   {1, 7},   {7, 1},    {2, 3},     {31, 33},  {33, 31},
                               {32, 32}, {33, 33}, {63, 65},  {64, 64},   {65, 63},  {72, 200},
                               {1, 5000}, {5000, 1}, {257, 129}};
  if (workbook::session().correctness_only) return shapes;  // under compute-sanitizer: small ones only
  // Not multiples of any tile; the sizes where partition effects showed on older GPUs; the odd
  // size the last bar is measured at, and the bar's own size.
  shapes.insert(shapes.end(), {{1023, 2049}, {2049, 1023}, {4000, 4000}, {2048, 2048}, {4096, 4096}, kOddShape, kBarShape});
  return shapes;
}

// Pointers the student's kernel must handle besides cudaMalloc's 256-byte aligned ones: in one
// float past an alignment boundary, out three floats past one, so that no row lines up with a
// 16-byte or a 32-byte boundary by accident.
struct Offsets {
  std::size_t in = 0, out = 0;  // in floats
};

// Runs `launcher` once on fresh random floats of `shape`; "" if the result is exact and nothing
// outside `out` changed, else what went wrong.
std::string check_transpose(Launcher launcher, const Shape& shape, const Offsets& offsets, cudaStream_t stream) {
  const std::size_t n = shape.count();
  workbook::DeviceArray<float> in(offsets.in + n), out(offsets.out + n);
  const std::vector<float> values = workbook::random_floats(n, workbook::session().next_seed());
  std::vector<float> in_host(offsets.in, 0.5f);
  in_host.insert(in_host.end(), values.begin(), values.end());
  in.upload(in_host);
  out.poison(stream);
  launcher(TransposeProblem{in.data() + offsets.in, out.data() + offsets.out, shape.rows, shape.cols}, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::string where = shape.describe();
  if (offsets.in != 0 || offsets.out != 0)
    where += " (in and out " + std::to_string(offsets.in) + " and " + std::to_string(offsets.out) + " floats past an aligned address)";
  where += ": ";
  const std::vector<float> got_all = out.download();
  const std::span<const float> got(got_all.data() + offsets.out, n);
  const std::vector<float> want = transpose_oracle::transpose(values, shape.rows, shape.cols);
  if (const workbook::Comparison result = workbook::compare(got, want, workbook::Tolerance{}); !result.ok())
    return where + "out[c * rows + r] must be in[r * cols + c]; " + result.describe(workbook::Tolerance{});
  for (std::size_t i = 0; i < offsets.out; ++i)
    if (!std::isnan(got_all[i])) return where + "wrote before the start of out";
  if (const long at = out.guard_violation(); at >= 0)
    return where + "wrote past the end of out (the guard byte " + std::to_string(at) + " bytes after it changed)";
  if (const long at = in.guard_violation(); at >= 0)
    return where + "wrote past the end of in (the guard byte " + std::to_string(at) + " bytes after it changed)";
  if (in.download() != in_host) return where + "the kernel changed its input";
  return "";
}

std::string check_all_shapes(Launcher launcher, cudaStream_t stream) {
  for (const Shape& shape : shapes_to_check())
    if (std::string failure = check_transpose(launcher, shape, {}, stream); !failure.empty()) return failure;
  for (const Shape& shape : {Shape{64, 64}, Shape{31, 33}, Shape{200, 72}})
    if (std::string failure = check_transpose(launcher, shape, {1, 3}, stream); !failure.empty()) return failure;
  return "";
}

// ---------------------------------------------------------------------------------------------
// Speed

struct TimedBuffers {
  Shape shape;
  workbook::DeviceArray<float> in{shape.count()};
  workbook::DeviceArray<float> candidate_out{shape.count()};
  workbook::DeviceArray<float> reference_out{shape.count()};  // for the baseline and cudaMemcpy
  std::vector<float> expected;
  explicit TimedBuffers(Shape s) : shape(s) {
    const std::vector<float> values = workbook::random_floats(shape.count(), workbook::session().next_seed());
    in.upload(values);
    expected = transpose_oracle::transpose(values, shape.rows, shape.cols);
  }
};

struct Measurement {
  Shape shape{};
  double candidate_ms = 0, baseline_ms = 0, memcpy_ms = 0;
  bool launched = false;                // the candidate launched through workbook::launch()
  workbook::KernelResources resources;  // of the candidate's last launch
  std::string output_failure;           // the output checked after timing

  double speedup() const { return baseline_ms / candidate_ms; }
  double percent_of_memcpy() const { return 100.0 * memcpy_ms / candidate_ms; }
  double gb_per_s() const { return 2.0 * shape.count() * sizeof(float) / (candidate_ms * 1e6); }
};

Measurement measure(Launcher candidate, TimedBuffers& b, cudaStream_t stream) {
  const TransposeProblem for_candidate{b.in.data(), b.candidate_out.data(), b.shape.rows, b.shape.cols};
  const TransposeProblem for_baseline{b.in.data(), b.reference_out.data(), b.shape.rows, b.shape.cols};
  Measurement m;
  m.shape = b.shape;

  std::vector<workbook::LaunchRecord> launches;
  b.candidate_out.poison(stream);  // whatever is there after timing, the timed calls wrote
  const std::vector<workbook::Timing> timings = workbook::time_interleaved(
      {
          [&](cudaStream_t s) { transpose_baseline::transpose_naive(for_baseline, s); },
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

  const workbook::Comparison after = workbook::compare(b.candidate_out.download(), b.expected, workbook::Tolerance{});
  if (!after.ok()) m.output_failure = "the output was wrong after the timed runs: " + after.describe(workbook::Tolerance{});
  else if (b.candidate_out.guard_violation() >= 0) m.output_failure = "the timed runs wrote past the end of out";
  return m;
}

// "" when the measurements clear `bar`, else why not. `odd` is judged only when the bar asks.
std::string bar_failure(const Bar& bar, const Measurement& main, const Measurement& odd) {
  std::ostringstream why;
  why << std::fixed << std::setprecision(2);
  for (const Measurement* m : {&main, &odd}) {
    if (!m->output_failure.empty()) return m->output_failure;
    if (!m->launched)
      return "the launcher made no launch through workbook::launch(): launch the kernels with it, so that the "
             "grader can report their registers, shared memory and occupancy";
    if (m->percent_of_memcpy() > 100.0 * workbook::kCeilingSlack) {
      why << "measured at " << m->percent_of_memcpy() << "% of cudaMemcpy of the same bytes at " << m->shape.describe()
          << ", which no transpose can be: the measurement is wrong (does every call move all the floats?)";
      return why.str();
    }
  }
  if (main.speedup() < bar.min_speedup) {
    why << "speedup " << main.speedup() << "x over the naive transpose at " << kBarShape.describe() << ", the bar is "
        << bar.min_speedup << "x";
    return why.str();
  }
  if (main.percent_of_memcpy() < bar.min_percent_of_memcpy) {
    why << main.percent_of_memcpy() << "% of cudaMemcpy at " << kBarShape.describe() << ", the bar is "
        << bar.min_percent_of_memcpy << "%";
    return why.str();
  }
  if (odd.percent_of_memcpy() < bar.min_percent_of_memcpy_odd) {
    why << odd.percent_of_memcpy() << "% of cudaMemcpy at " << kOddShape.describe() << ", the bar is "
        << bar.min_percent_of_memcpy_odd << "% (every output row starts inside a 32-byte sector there)";
    return why.str();
  }
  return "";
}

workbook::StepRow row_for(const Step& step, const Measurement& m) {
  workbook::StepRow row;
  row.lab = kLab;
  row.step = std::string(step.id) + " " + step.title;
  row.measured_at = m.shape.describe();
  row.result = "info";
  row.time_ms = m.candidate_ms;
  row.rate = m.gb_per_s();
  row.percent_of_peak = m.percent_of_memcpy();
  row.reference = "cudaMemcpy";
  row.speedup = m.speedup();
  if (m.launched) workbook::add_resources(row, m.resources);
  return row;
}

// Both bar shapes: their buffers (inputs drawn and transposed on the CPU once), and what one
// launcher measured on them.
struct BarBuffers {
  TimedBuffers main{kBarShape};
  TimedBuffers odd{kOddShape};
};

struct BarMeasurements {
  Measurement main, odd;
};

BarMeasurements measure_at_bar_shapes(Launcher launcher, BarBuffers& buffers, cudaStream_t stream) {
  return {measure(launcher, buffers.main, stream), measure(launcher, buffers.odd, stream)};
}

void grade(const Step& step) {
  cudaStream_t stream = nullptr;
  workbook::StepRow failed = workbook::failing_row(kLab, std::string(step.id) + " " + step.title, step.bar.describe());

  const std::string failure = workbook::grade_correctness(failed, [&] {
    if (step.precheck != nullptr)
      if (std::string why = step.precheck(); !why.empty()) return why;
    return check_all_shapes(step.launcher, stream);
  });
  if (!failure.empty()) {
    FAIL_CHECK(failure);
    return;
  }
  if (workbook::session().correctness_only) return;

  std::string verdict;
  std::vector<workbook::StepRow> rows;
  const std::string error = workbook::failure_of([&] {
    BarBuffers buffers;
    const BarMeasurements m = measure_at_bar_shapes(step.launcher, buffers, stream);
    verdict = bar_failure(step.bar, m.main, m.odd);
    workbook::StepRow main_row = row_for(step, m.main);
    main_row.result = verdict.empty() ? "PASS" : "FAIL";
    main_row.bar = step.bar.describe();
    main_row.reason = verdict;
    if (verdict.empty() && step.experiment != nullptr) main_row.reason = "an experiment: see the handout";
    workbook::StepRow odd_row = row_for(step, m.odd);
    if (!m.odd.output_failure.empty()) {
      odd_row.result = "FAIL";
      odd_row.reason = m.odd.output_failure;
    }
    rows = {main_row, odd_row};
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
// Benchmark: GB/s of every step, the baseline and the diagnostic kernels against matrix size, with
// cudaMemcpy of the same bytes as the ceiling.

struct Curve {
  std::string name;
  Launcher launcher;
  bool transposes;  // false: a diagnostic whose output is not the transpose
  bool whole_tiles_only;
};

// Small matrices fit in the L2 and finish in microseconds, where the launch itself is a large part
// of the time. So each timed run transposes `copies` different matrices, one after the other,
// enough of them to move 512 MiB: the time per matrix is then the throughput a program that
// transposes many such matrices would see. cudaMemcpy is timed the same way.
struct RotatingBuffers {
  Shape shape;
  int copies;
  std::vector<std::unique_ptr<workbook::DeviceArray<float>>> ins, outs;
  std::vector<float> values, expected;
  explicit RotatingBuffers(Shape s)
      : shape(s), copies(static_cast<int>(std::max<std::size_t>(1, (std::size_t{512} << 20) / (2 * s.count() * sizeof(float))))) {
    values = workbook::random_floats(shape.count(), workbook::session().next_seed());
    expected = transpose_oracle::transpose(values, shape.rows, shape.cols);
    for (int i = 0; i < copies; ++i) {
      ins.push_back(std::make_unique<workbook::DeviceArray<float>>(shape.count()));
      outs.push_back(std::make_unique<workbook::DeviceArray<float>>(shape.count()));
      ins.back()->upload(values);
    }
  }
  TransposeProblem problem(int i) { return {ins[i]->data(), outs[i]->data(), shape.rows, shape.cols}; }
};

void bench(const std::string& csv_path) {
  std::ofstream csv(csv_path);
  if (!csv) throw std::runtime_error("cannot write " + csv_path);
  csv << "curve,rows,cols,matrices_per_run,time_ms_per_matrix,gb_per_s,percent_of_memcpy,memcpy_gb_per_s\n";
  std::vector<Curve> curves = {{"baseline: naive", transpose_baseline::transpose_naive, true, false}};
  for (const Step& step : steps()) curves.push_back({std::string(step.id) + " " + step.title, step.launcher, true, false});
  curves.push_back({"diagnostic: copy_plain", transpose_lab::copy_plain, false, true});
  curves.push_back({"diagnostic: copy_through_shared", transpose_lab::copy_through_shared, false, true});
  curves.push_back({"diagnostic: transpose_within_tiles", transpose_lab::transpose_within_tiles, false, true});
  curves.push_back({"diagnostic: move_tiles", transpose_lab::move_tiles, false, true});

  const std::vector<Shape> shapes = {{1024, 1024}, {1023, 2049}, {2048, 2048}, {4000, 4000},   {4096, 4096},
                                     {8191, 8191}, {8192, 8192}, {8192, 8191}, {16383, 16385}, {16384, 16384}};
  std::vector<std::string> broken;  // curves that failed once are not timed again
  for (const Shape& shape : shapes) {
    RotatingBuffers buffers(shape);
    for (const Curve& curve : curves) {
      if (std::find(broken.begin(), broken.end(), curve.name) != broken.end()) continue;
      if (curve.whole_tiles_only && (shape.rows % 32 != 0 || shape.cols % 32 != 0)) continue;
      const std::string failure = workbook::failure_of([&] {
        buffers.outs[0]->poison();
        curve.launcher(buffers.problem(0), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (curve.transposes) {
          const workbook::Comparison c = workbook::compare(buffers.outs[0]->download(), buffers.expected, workbook::Tolerance{});
          if (!c.ok()) return "wrong output at " + shape.describe() + ": " + c.describe(workbook::Tolerance{});
        }
        const std::vector<workbook::Timing> t = workbook::time_interleaved(
            {
                [&](cudaStream_t s) {
                  for (int i = 0; i < buffers.copies; ++i) curve.launcher(buffers.problem(i), s);
                },
                [&](cudaStream_t s) {
                  for (int i = 0; i < buffers.copies; ++i)
                    CUDA_CHECK(cudaMemcpyAsync(buffers.outs[i]->data(), buffers.ins[i]->data(), buffers.ins[i]->bytes(),
                                               cudaMemcpyDeviceToDevice, s));
                },
            },
            nullptr);
        const double ms = t[0].median_ms / buffers.copies, memcpy_ms = t[1].median_ms / buffers.copies;
        const double bytes = 2.0 * shape.count() * sizeof(float);
        csv << curve.name << ',' << shape.rows << ',' << shape.cols << ',' << buffers.copies << ',' << ms << ','
            << bytes / (ms * 1e6) << ',' << 100.0 * memcpy_ms / ms << ',' << bytes / (memcpy_ms * 1e6) << '\n';
        std::cout << std::left << std::setw(38) << curve.name << std::setw(16) << shape.describe() << std::fixed
                  << std::setprecision(0) << std::setw(6) << bytes / (ms * 1e6) << " GB/s " << std::setprecision(1)
                  << std::setw(6) << 100.0 * memcpy_ms / ms << "% of memcpy (" << std::setprecision(0)
                  << bytes / (memcpy_ms * 1e6) << " GB/s)\n";
        return std::string();
      });
      if (!failure.empty()) {
        std::cout << curve.name << ": skipped from here on (" << failure << ")\n";
        broken.push_back(curve.name);
      }
    }
  }
}

const bool kBenchRegistered = workbook::register_bench(kLab, bench);

}  // namespace

TEST_SUITE("03_transpose") {
  TEST_CASE("03.1 tiled through shared memory") { grade(steps()[0]); }
  TEST_CASE("03.2 padded tile") { grade(steps()[1]); }
  TEST_CASE("03.3 diagonal block order") { grade(steps()[2]); }
  TEST_CASE("03.4 at copy speed") { grade(steps()[3]); }
}

// Run on the reference solution only: each bar must reject the previous step's solution, or the
// step teaches nothing the grader can see. An experiment step (03.3) is exempt, and the step after
// it must then reject the solutions of both steps before it.
TEST_SUITE("03_transpose bars") {
  TEST_CASE("03_transpose bars reject the previous step") {
    CHECK_MESSAGE(steps().front().bar.min_speedup > 1.0, "the first bar must demand more than the baseline");
    BarBuffers buffers;
    std::vector<BarMeasurements> solution;
    for (const Step& step : steps()) solution.push_back(measure_at_bar_shapes(step.launcher, buffers, nullptr));
    for (std::size_t k = 1; k < steps().size(); ++k) {
      const Step& step = steps()[k];
      if (step.experiment != nullptr) {
        MESSAGE(step.id, " is an experiment, exempt: ", step.experiment);
        continue;
      }
      for (std::size_t earlier = k; earlier-- > 0;) {
        const Step& previous = steps()[earlier];
        const BarMeasurements& m = solution[earlier];
        std::ostringstream measured;
        measured << std::fixed << std::setprecision(2) << m.main.speedup() << "x, " << m.main.percent_of_memcpy()
                 << "% of memcpy; " << m.odd.percent_of_memcpy() << "% at " << kOddShape.describe();
        INFO(previous.id, " measured: ", measured.str());
        CHECK_MESSAGE(!bar_failure(step.bar, m.main, m.odd).empty(), "bar ", step.id, " (", step.bar.describe(),
                      ") does not discriminate: the solution of ", previous.id, " clears it");
        if (previous.experiment == nullptr) break;  // past an experiment step, check the one before it too
      }
    }
  }
}

// The given diagnostic kernels (labs/03_transpose/diagnostics.cu), checked on the solution's run:
// each computes what its comment says, and refuses the shapes it does not handle.
TEST_SUITE("03_transpose diagnostics") {
  TEST_CASE("03_transpose diagnostics compute what they claim") {
    for (const Shape& shape : {Shape{64, 96}, Shape{96, 64}}) {
      const std::size_t n = shape.count();
      const std::vector<float> values = workbook::random_floats(n, workbook::session().next_seed());
      workbook::DeviceArray<float> in(n), out(n);
      in.upload(values);
      // The expected output of each diagnostic, element by element, from its definition.
      std::vector<float> same(values), within(n), moved(n);
      for (int r = 0; r < shape.rows; ++r)
        for (int c = 0; c < shape.cols; ++c) {
          const int tile_r = r / 32 * 32, tile_c = c / 32 * 32, i = r % 32, j = c % 32;
          within[std::size_t(tile_r + j) * shape.cols + tile_c + i] = values[std::size_t(r) * shape.cols + c];
          moved[std::size_t(tile_c + i) * shape.rows + tile_r + j] = values[std::size_t(r) * shape.cols + c];
        }
      const std::vector<std::pair<Launcher, const std::vector<float>*>> cases = {
          {transpose_lab::copy_plain, &same},
          {transpose_lab::copy_through_shared, &same},
          {transpose_lab::transpose_within_tiles, &within},
          {transpose_lab::move_tiles, &moved}};
      for (const auto& [launcher, want] : cases) {
        out.poison();
        launcher(TransposeProblem{in.data(), out.data(), shape.rows, shape.cols}, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        const workbook::Comparison c = workbook::compare(out.download(), *want, workbook::Tolerance{});
        CHECK_MESSAGE(c.ok(), shape.describe(), ": ", c.describe(workbook::Tolerance{}));
      }
      CHECK_THROWS_AS(transpose_lab::copy_plain(TransposeProblem{in.data(), out.data(), 33, 32}, nullptr),
                      std::invalid_argument);
    }
  }
}
