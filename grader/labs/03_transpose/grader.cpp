// Grader for lab 03_transpose: a transpose at the speed of a copy.
//
// The lab's facts for the step-grading skeleton (grader/harness/skeleton.h), which does the rest.
// Every step is checked on fresh random inputs of square, non-square and odd shapes and on pointers
// a few floats past an aligned address, then timed against the baseline (the naive transpose) and
// against cudaMemcpyAsync of the same bytes, at 8192 x 8192 and at 8191 x 8191. The oracle is the
// CPU transpose; floats are only moved, so the comparison is bit for bit.
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "baseline.h"
#include "check.h"
#include "harness/skeleton.h"
#include "oracle.h"
#include "transpose.h"

namespace {

using transpose_lab::TransposeProblem;
using Launcher = void (*)(const TransposeProblem&, cudaStream_t);

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

// 03.3: the block order, checked on the CPU against the formula in the handout.
std::string check_diagonal_order() {
  const std::vector<std::pair<unsigned, unsigned>> grids = {{1, 1}, {1, 5}, {5, 1},   {4, 4},
                                                            {7, 3}, {3, 7}, {64, 64}, {257, 256}};
  for (const auto& [grid_x, grid_y] : grids)
    for (unsigned y = 0; y < grid_y; ++y)
      for (unsigned x = 0; x < grid_x; ++x) {
        const unsigned b = x + grid_x * y;  // launch order
        transpose_lab::Tile want;
        want.y = b % grid_y;
        want.x = (b / grid_y + want.y) % grid_x;
        const transpose_lab::Tile got = transpose_lab::diagonal_tile_on_host(x, y, grid_x, grid_y);
        if (!(got == want)) {
          std::ostringstream why;
          why << "diagonal_tile(" << x << ", " << y << ", " << grid_x << ", " << grid_y << ") gave tile (" << got.x
              << ", " << got.y << "); the diagonal order in the handout gives (" << want.x << ", " << want.y << ")";
          return why.str();
        }
      }
  return "";
}

struct TransposeLab {
  using Problem = TransposeProblem;
  using Condition = Shape;
  using Step = workbook::Step<Problem, Condition>;
  // Pointers the student's kernel must handle besides cudaMalloc's 256-byte aligned ones: in one
  // float past an alignment boundary, out three floats past one, so that no row lines up with a
  // 16-byte or a 32-byte boundary by accident.
  struct CaseSpec {
    Shape shape;
    std::size_t in_offset = 0, out_offset = 0;  // in floats
  };
  static constexpr const char* kName = "03_transpose";

  // The bars, calibrated on an H100 (the instructor's notes; the handout lists the same). Each
  // admits its step's witness (the textbook form of its idea, the instructor's) by 5% and rejects the
  // previous step's reference solution, except 03.3's, an experiment, and 03.4's, cudaMemcpy's own
  // speed ("03_transpose bars" checks both sides).
  static const std::vector<Step>& steps() {
    static const std::vector<Step> all = {
        {.id = "03.1",
         .title = "tiled through shared memory",
         .launcher = transpose_lab::transpose_tiled,
         .bar = {{kBarShape, 1.88, 28.94}}},
        {.id = "03.2",
         .title = "padded tile",
         .launcher = transpose_lab::transpose_padded,
         .bar = {{kBarShape, 4.62, 70.93}}},
        {.id = "03.3",
         .title = "diagonal block order",
         .launcher = transpose_lab::transpose_diagonal,
         .bar = {{kBarShape, 5.38, 82.13}},
         .experiment =
             "the diagonal order fixed partition camping on GPUs that mapped addresses to memory partitions in plain "
             "stripes; the H100 hashes addresses over its partitions, and there the diagonal order measures a few "
             "percent "
             "slower than the row order it replaces. Its bar asks only that the remapped kernel stay close to 03.2",
         .precheck = check_diagonal_order},
        {.id = "03.4",
         .title = "at copy speed",
         .launcher = transpose_lab::transpose_at_copy_speed,
         .bar = {{kBarShape, 6.0, 95.0}, {kOddShape, 0, 85.0}},
         .witness = {.is_solution = "its bar is cudaMemcpy's own speed (95% of it): a vendor's number"}},
    };
    return all;
  }
  static Condition default_condition() { return kBarShape; }
  static workbook::Reference reference() { return {"cudaMemcpy", true}; }
  // What ./workbook profile shows (profile.h): coalescing in global memory, bank conflicts in shared.
  static std::vector<workbook::profile::Counter> counters() {
    namespace p = workbook::profile;
    return {
        p::global_sectors_per_request(true, "4 when a warp's 32 floats are consecutive: a row of the tile"),
        p::global_sectors_per_request(false,
                                      "4 when a warp stores along a row; 32 when it stores down a column, as "
                                      "the naive transpose does"),
        p::shared_wavefronts_per_request(true,
                                         "1 when a warp's 32 reads fall in 32 banks; 32 when it reads a column "
                                         "of an unpadded 32 x 32 tile, all in one bank (03.1): a padded row of "
                                         "33 floats (03.2) makes it 1"),
        p::shared_wavefronts_per_request(false, "the same for the tile's writes"),
        p::dram_throughput("the bandwidth the transpose reached, as % of device memory's peak: a copy's is its roof"),
    };
  }
  static std::string describe(const Step&, const Condition& shape) { return shape.describe(); }
  static std::vector<Condition> info_conditions(const Step&) { return {kBarShape, kOddShape}; }
  static std::string extra_requirement(const Step&, const Condition&, const workbook::Measurement&) { return ""; }

  static std::vector<CaseSpec> correctness_cases() {
    // Empty matrices first (the interface promises any count from 0), then the edges of a tile.
    std::vector<Shape> shapes = {{0, 0},   {0, 5},   {5, 0},    {1, 1},    {1, 7},    {7, 1},
                                 {2, 3},   {31, 33}, {33, 31},  {32, 32},  {33, 33},  {63, 65},
                                 {64, 64}, {65, 63}, {72, 200}, {1, 5000}, {5000, 1}, {257, 129}};
    // Not multiples of any tile; the sizes where partition effects showed on older GPUs; the odd
    // size the last bar is measured at, and the bar's own size (not under compute-sanitizer).
    if (!workbook::session().correctness_only)
      shapes.insert(shapes.end(),
                    {{1023, 2049}, {2049, 1023}, {4000, 4000}, {2048, 2048}, {4096, 4096}, kOddShape, kBarShape});
    for (const Shape& shape : drawn()) shapes.push_back(shape);
    std::vector<CaseSpec> cases;
    for (const Shape& shape : shapes) cases.push_back({shape});
    for (const Shape& shape : {Shape{64, 64}, Shape{31, 33}, Shape{200, 72}}) cases.push_back({shape, 1, 3});
    return cases;
  }

  // Drawn from the seed (drawn_sizes.h), rows and columns apart: any small matrix, a large one whose
  // rows and columns are no multiples of 64 (every step's tile is 32 or 64 on a side), and a thin
  // one, so that neither dimension's last tile is whole by luck.
  static std::vector<Shape> drawn() {
    workbook::SizeDraw draw(kName);
    const int large = workbook::session().correctness_only ? 1100 : 4500;  // small under compute-sanitizer
    const auto any = [&](int low, int high) { return static_cast<int>(draw.any(low, high)); };
    const auto off_tile = [&](int low, int high) { return static_cast<int>(draw.off_tile(low, high, 64)); };
    const Shape small{any(1, 700), any(1, 700)};
    const Shape big{off_tile(701, large), off_tile(701, large)};
    const Shape thin{any(1, 40), off_tile(701, 4 * large)};
    return {small, big, thin};
  }
  static std::string drawn_sizes() {
    std::string text;
    for (const Shape& shape : drawn()) text += (text.empty() ? "" : ", ") + shape.describe();
    return text;
  }

  // The device's check of a transpose, for the timed calls and the correctness cases alike: each
  // element against the input's element it comes from, drawn again from the input's seed.
  static std::function<void(cudaStream_t, workbook::DeviceMismatches*)> device_check(const workbook::Arrays& arrays,
                                                                                     const float* in, const float* out,
                                                                                     const Shape& shape) {
    return [&arrays, in, out, shape](cudaStream_t s, workbook::DeviceMismatches* result) {
      transpose_check::count_untransposed(out, shape.rows, shape.cols, arrays.seed_of(in), result, s);
    };
  }

  static std::unique_ptr<workbook::Case<Problem>> make_case(const CaseSpec& spec) {
    auto c = std::make_unique<workbook::Case<Problem>>();
    const Shape& shape = spec.shape;
    c->where = shape.describe();
    if (spec.in_offset != 0 || spec.out_offset != 0)
      c->where += " (in and out " + std::to_string(spec.in_offset) + " and " + std::to_string(spec.out_offset) +
                  " floats past an aligned address)";
    const float* in = c->arrays.input("in", shape.count(), spec.in_offset);
    float* out = c->arrays.output("out", shape.count(), spec.out_offset);
    c->problem = {in, out, shape.rows, shape.cols};
    c->check_on_device = device_check(c->arrays, in, out, shape);
    c->check_output = [c = c.get(), in, out, shape] {
      // Each element's truth is the input's element it comes from, drawn again from the input's seed.
      const workbook::FloatStream value_at(c->arrays.seed_of(in));
      const auto want_at = [&](std::size_t j) {
        return value_at(transpose_oracle::source_of(j, shape.rows, shape.cols));
      };
      const workbook::Comparison result = workbook::compare_with(c->arrays.download(out), want_at, {});
      return result.ok() ? "" : "out[c * rows + r] must be in[r * cols + c]; " + result.describe(workbook::Tolerance{});
    };
    return c;
  }

  static std::unique_ptr<workbook::Timed<Problem>> timed(const Condition& shape) {
    auto t = std::make_unique<workbook::Timed<Problem>>();
    const float* in = t->arrays.input("in", shape.count());
    float* out = t->arrays.output("out", shape.count());
    float* reference_out = t->arrays.scratch(shape.count());
    t->problem = {in, out, shape.rows, shape.cols};
    const TransposeProblem for_baseline{in, reference_out, shape.rows, shape.cols};
    t->baseline = [for_baseline](cudaStream_t s) { transpose_baseline::transpose_naive(for_baseline, s); };
    t->reference = [in, reference_out, bytes = shape.count() * sizeof(float)](cudaStream_t s) {
      CUDA_CHECK(cudaMemcpyAsync(reference_out, in, bytes, cudaMemcpyDeviceToDevice, s));
    };
    t->check_output = device_check(t->arrays, in, out, shape);
    t->bytes = 2.0 * shape.count() * sizeof(float);
    return t;
  }
};

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
      : shape(s),
        copies(static_cast<int>(std::max<std::size_t>(1, (std::size_t{512} << 20) / (2 * s.count() * sizeof(float))))) {
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
  workbook::BenchCsv csv(csv_path);
  std::vector<Curve> curves = {{"baseline: naive", transpose_baseline::transpose_naive, true, false}};
  for (const TransposeLab::Step& step : TransposeLab::steps())
    curves.push_back({step.name(), step.launcher, true, false});
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
        buffers.outs[0]->poison(workbook::session().stream);
        curve.launcher(buffers.problem(0), workbook::session().stream);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (curve.transposes) {
          const workbook::Comparison c =
              workbook::compare(buffers.outs[0]->download(), buffers.expected, workbook::Tolerance{});
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
            workbook::session().stream);
        const double ms = t[0].median_ms / buffers.copies, memcpy_ms = t[1].median_ms / buffers.copies;
        const double bytes = 2.0 * shape.count() * sizeof(float);
        csv.row({curve.name, shape.rows, shape.cols, buffers.copies, ms, bytes / (ms * 1e6), 100.0 * memcpy_ms / ms,
                 bytes / (memcpy_ms * 1e6)});
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

const bool kBenchRegistered =
    workbook::register_bench(TransposeLab::kName, bench,
                             {"curve", "rows", "cols", "matrices_per_run", "time_ms_per_matrix", "gb_per_s",
                              "percent_of_memcpy", "memcpy_gb_per_s"});
const bool kRegistered =
    workbook::register_lab<TransposeLab>();  // its steps, its bars tests, ./workbook list and calibrate

}  // namespace

// The given diagnostic kernels (labs/03_transpose/diagnostics.cu), checked on the solution's run:
// each computes what its comment says, and refuses the shapes it does not handle.
TEST_SUITE("03_transpose diagnostics") {
  TEST_CASE("03_transpose diagnostics compute what they claim") {
    for (const Shape& shape : {Shape{64, 96}, Shape{96, 64}}) {
      const std::size_t n = shape.count();
      const cudaStream_t stream = workbook::session().stream;
      workbook::Arrays arrays;
      const float* in = arrays.input("in", n);
      float* out = arrays.output("out", n);
      const std::vector<float> values = arrays.values_of(in);
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
        arrays.poison_outputs(stream);
        launcher(TransposeProblem{in, out, shape.rows, shape.cols}, stream);
        CUDA_CHECK(cudaDeviceSynchronize());
        const workbook::Comparison c = workbook::compare(arrays.download(out), *want, workbook::Tolerance{});
        CHECK_MESSAGE(c.ok(), shape.describe(), ": ", c.describe(workbook::Tolerance{}));
      }
      CHECK_THROWS_AS(transpose_lab::copy_plain(TransposeProblem{in, out, 33, 32}, stream), std::invalid_argument);
    }
  }
}
