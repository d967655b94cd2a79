// Grader for lab 02_memory: hide memory latency with fewer threads.
//
// The lab's facts for the step-grading skeleton (grader/harness/skeleton.h), which does the rest.
// Every step copies n floats. It is checked on fresh random inputs of many sizes, then timed
// against the baseline (one float per thread) and against cudaMemcpyAsync on the same buffers, at
// several occupancies. Occupancy is set the way Volkov did: dynamic shared memory the kernel never
// uses limits the blocks per SM. The oracle of a copy is its input, so correctness is bit-exact.
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "baseline.h"
#include "harness/skeleton.h"
#include "memory.h"

namespace {

using memory_lab::CopyProblem;

// Where a kernel is measured: its block size, and how many blocks the padding lets onto one SM
// (0: no padding, as many as the kernel's own resources allow).
struct LaunchShape {
  int threads_per_block;
  int blocks_per_sm;

  std::size_t padding_bytes() const {
    return blocks_per_sm == 0 ? 0 : workbook::occupancy_padding_bytes(blocks_per_sm);
  }
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
    } else if (workbook::session().compute_capability == 0) {  // no GPU asked (./workbook list): in warps
      const int warps = blocks_per_sm * threads_per_block / 32;
      text << warps << (warps == 1 ? " warp" : " warps") << " per SM (" << threads_per_block << " thr x "
           << blocks_per_sm << " blk)";
    } else {
      text << std::setprecision(3) << occupancy_percent() << "% occ. (" << threads_per_block << " thr x "
           << blocks_per_sm << " blk)";
    }
    return text.str();
  }
  bool operator==(const LaunchShape&) const = default;
};

// On a GPU with 64 warps per SM (every one since Volta), four warps are 6.25% and one is 1.56%.
constexpr LaunchShape kOneWarpPerSm{32, 1};
constexpr LaunchShape kLowOccupancy{128, 1};
constexpr LaunchShape kQuarterOccupancy{128, 4};
constexpr LaunchShape kFullOccupancy{128, 16};
constexpr LaunchShape kFinalShape{256, 0};

constexpr std::size_t kTimedFloats = std::size_t{1} << 26;  // 256 MiB each way, five times the L2

struct MemoryLab {
  using Problem = CopyProblem;
  using Condition = LaunchShape;
  using Step = workbook::Step<Problem, Condition>;
  struct CaseSpec {
    std::size_t n;
    LaunchShape shape;
  };
  static constexpr const char* kName = "02_memory";

  // The bars, calibrated on an H100 (the instructor's notes; the handout lists the same): each
  // admits its step's witness (the textbook form of its idea, the instructor's) by 5% and rejects the
  // previous step's reference solution ("02_memory bars" checks both). 02.5's and 02.6's are
  // cudaMemcpy's own speed.
  static const std::vector<Step>& steps() {
    static const std::vector<Step> all = {
        {.id = "02.1",
         .title = "several floats per thread",
         .launcher = memory_lab::copy_several_floats,
         .bar = {{kLowOccupancy, 1.76}}},
        {.id = "02.2", .title = "float2 loads", .launcher = memory_lab::copy_float2, .bar = {{kLowOccupancy, 4.07}}},
        {.id = "02.3", .title = "float4 loads", .launcher = memory_lab::copy_float4, .bar = {{kLowOccupancy, 6.53}}},
        {.id = "02.4",
         .title = "many float4 at low occupancy",
         .launcher = memory_lab::copy_many_float4,
         .bar = {{kLowOccupancy, 9.77, 76.51}}},
        {.id = "02.5",
         .title = "at memcpy speed",
         .launcher = memory_lab::copy_at_memcpy_speed,
         .bar = {{kFinalShape, 1.0, 98.0}},
         .witness = {.is_solution = "its bar is cudaMemcpy's own speed (98% of it): a vendor's number"}},
        // Hopper's bulk-copy engine: one warp per SM, of which one thread issues the copies.
        {.id = "02.6",
         .title = "the copy engine",
         .launcher = memory_lab::copy_with_copy_engine,
         .bar = {{kOneWarpPerSm, 1.0, 95.0}},
         .min_compute_capability = 90,
         .witness = {.is_solution =
                         "its bar is cudaMemcpy's own speed (95% of it) at one warp per SM: a vendor's number"}},
    };
    return all;
  }
  static Condition default_condition() { return kLowOccupancy; }
  static workbook::Reference reference() { return {"cudaMemcpy", true}; }
  // What ./workbook profile shows (profile.h): Volkov's bytes in flight, against occupancy.
  static std::vector<workbook::profile::Counter> counters() {
    namespace p = workbook::profile;
    return {
        p::dram_throughput("the bandwidth the copy reached, as % of device memory's peak: the step's goal"),
        p::achieved_occupancy("warps resident: the bars are judged at 6.25% occupancy, so warps cannot be the way"),
        p::bytes_in_flight_per_sm(0.7,
                                  "by Little's law at the handout's 0.7 us: about 16 KiB per SM keeps the H100's "
                                  "memory busy; more floats per load, and more loads per thread, raise it"),
        p::top_stall_reasons("long_scoreboard: warps wait for their loads, too few bytes in flight; lg_throttle: the "
                             "load queue is full, loads too narrow"),
    };
  }
  static std::string describe(const Step&, const Condition& shape) { return shape.describe(); }
  // Every step is also shown at a quarter and at full occupancy: Volkov's curve, row by row. The
  // copy engine's step at 6.25%, beside 02.4: its ring of shared memory leaves room for no more blocks.
  static std::vector<Condition> info_conditions(const Step& step) {
    if (step.min_compute_capability > 0) return {kLowOccupancy};
    return {kLowOccupancy, kQuarterOccupancy, kFullOccupancy};
  }

  static std::vector<CaseSpec> correctness_cases() {
    std::vector<std::size_t> sizes = {0, 1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 63, 64, 65, 1000};
    // One less than, exactly, and one more than the work of a block, for the block sizes the grader
    // uses and the per-thread work of every step (1, 4, 8 and 16 floats, 16 float4).
    for (std::size_t threads : {128, 256})
      for (std::size_t floats_per_thread : {1, 4, 8, 16, 64}) {
        const std::size_t tile = threads * floats_per_thread;
        sizes.insert(sizes.end(), {tile - 1, tile, tile + 1});
      }
    // Around whole stages of 16 to 128 KiB (02.6's ring): one short of a stage, one, one more, and
    // three with a tail that is not a multiple of 16 bytes.
    for (std::size_t stage_floats : {4096, 8192, 16384, 32768})
      sizes.insert(sizes.end(), {stage_floats - 1, stage_floats, stage_floats + 1, 3 * stage_floats + 5});
    // A large size that is a multiple of nothing useful (left out under compute-sanitizer): many
    // stages for every SM.
    if (!workbook::session().correctness_only) sizes.push_back((std::size_t{1} << 24) + 1001);
    // And two drawn from the seed, which no list can anticipate.
    for (std::size_t n : drawn()) sizes.push_back(n);
    // Four block sizes, so that a kernel that assumes one is caught.
    std::vector<CaseSpec> cases;
    for (const LaunchShape& shape : {kLowOccupancy, kOneWarpPerSm, LaunchShape{256, 0}, LaunchShape{32, 0}})
      for (std::size_t n : sizes) cases.push_back({n, shape});
    return cases;
  }

  // Drawn from the seed (drawn_sizes.h): any size up to 2^20, and one up to 2^24 that is no multiple
  // of 65,536 floats, the most any step hands one block (a stage pair of 02.6's ring, 64 float4 of
  // 256 threads): every residue modulo every step's work per block is as likely as any other.
  static std::vector<std::size_t> drawn() {
    workbook::SizeDraw draw(kName);
    const bool small = workbook::session().correctness_only;  // under compute-sanitizer
    const std::size_t first = draw.any(1, small ? 70'000 : std::size_t{1} << 20);
    return {first,
            draw.off_tile(small ? 70'001 : (std::size_t{1} << 20) + 1, std::size_t{1} << (small ? 18 : 24), 65'536)};
  }
  static std::string drawn_sizes() {
    const std::vector<std::size_t> n = drawn();
    return "n = " + std::to_string(n[0]) + " and " + std::to_string(n[1]) + ", at four block sizes";
  }

  // The device's check of a copy, for the timed calls and the correctness cases alike: the truth is
  // what the generator put in `in`, drawn again from its seed, whatever the kernel did to `in` since.
  static std::function<void(cudaStream_t, workbook::DeviceMismatches*)> device_check(const workbook::Arrays& arrays,
                                                                                     const float* in, const float* out,
                                                                                     std::size_t n) {
    return [&arrays, in, out, n](cudaStream_t s, workbook::DeviceMismatches* result) {
      workbook::count_changed_from_random(out, n, arrays.seed_of(in), result, s);
    };
  }

  static std::unique_ptr<workbook::Case<Problem>> make_case(const CaseSpec& spec) {
    auto c = std::make_unique<workbook::Case<Problem>>();
    c->where = "n = " + std::to_string(spec.n) + " at " + spec.shape.describe();
    const float* in = c->arrays.input("in", spec.n);
    float* out = c->arrays.output("out", spec.n);
    c->problem = {in, out, spec.n, spec.shape.threads_per_block, spec.shape.padding_bytes()};
    c->check_on_device = device_check(c->arrays, in, out, spec.n);
    c->check_output = [c = c.get(), in, out] {
      // A copy's truth is its input, drawn again from the input's seed as the comparison reads it.
      const workbook::Comparison result =
          workbook::compare_with(c->arrays.download(out), workbook::FloatStream(c->arrays.seed_of(in)), {});
      return result.describe(workbook::Tolerance{});
    };
    return c;
  }

  static std::unique_ptr<workbook::Timed<Problem>> timed(const Condition& shape) {
    auto t = std::make_unique<workbook::Timed<Problem>>();
    const float* in = t->arrays.input("in", kTimedFloats);
    float* out = t->arrays.output("out", kTimedFloats);
    float* reference_out = t->arrays.scratch(kTimedFloats);
    t->problem = {in, out, kTimedFloats, shape.threads_per_block, shape.padding_bytes()};
    const CopyProblem for_baseline{in, reference_out, kTimedFloats, shape.threads_per_block, shape.padding_bytes()};
    t->baseline = [for_baseline](cudaStream_t s) { memory_baseline::copy_one_float_per_thread(for_baseline, s); };
    t->reference = [in, reference_out](cudaStream_t s) {
      CUDA_CHECK(cudaMemcpyAsync(reference_out, in, kTimedFloats * sizeof(float), cudaMemcpyDeviceToDevice, s));
    };
    t->check_output = device_check(t->arrays, in, out, kTimedFloats);
    t->bytes = 2.0 * kTimedFloats * sizeof(float);
    return t;
  }

  // The lesson is the occupancy: a step measured at 6.25% must run there.
  static std::string extra_requirement(const Step&, const Condition& shape, const workbook::Measurement& m) {
    if (shape.blocks_per_sm == 0) return "";
    const std::string why = workbook::occupancy_above(m, shape.occupancy_percent() / 100.0);
    return why.empty() ? "" : why + ": launch the copy with problem.occupancy_padding_bytes of dynamic shared memory";
  }
};

// ---------------------------------------------------------------------------------------------
// Benchmark: Volkov's slides 31-40 redrawn on this GPU, fraction of memcpy against occupancy.

void bench(const std::string& csv_path) {
  workbook::BenchCsv csv(csv_path);
  std::vector<MemoryLab::Step> curves = {
      {"baseline", "one float per thread", memory_baseline::copy_one_float_per_thread, {}}};
  curves.insert(curves.end(), MemoryLab::steps().begin(), MemoryLab::steps().end());
  // One warp per SM, then 128-thread blocks, 1 to 16 of them. The copy engine's step runs at its
  // two shapes only: its ring of shared memory leaves room for one block per SM.
  std::vector<LaunchShape> shapes = {kOneWarpPerSm};
  for (int blocks_per_sm : {1, 2, 3, 4, 6, 8, 12, 16}) shapes.push_back({128, blocks_per_sm});
  for (const MemoryLab::Step& step : curves) {
    if (!workbook::not_applicable_reason(step).empty()) {
      std::cout << step.name() << ": skipped (" << workbook::not_applicable_reason(step) << ")\n";
      continue;
    }
    for (const LaunchShape& shape : shapes) {
      if (step.min_compute_capability > 0 && !(shape == kOneWarpPerSm || shape == kLowOccupancy)) continue;
      const int blocks_per_sm = shape.blocks_per_sm;
      const std::string failure = workbook::failure_of([&] {
        const workbook::Measurement m = workbook::measure_at<MemoryLab>(step, shape);
        if (!m.failure.empty()) return m.failure;
        const double bytes_per_thread = static_cast<double>(kTimedFloats * sizeof(float)) /
                                        (double(m.resources->grid_blocks) * m.resources->threads_per_block);
        csv.row({step.name(), bytes_per_thread, shape.threads_per_block, blocks_per_sm, 100.0 * m.occupancy,
                 m.candidate_ms, m.rate(), m.percent_of_reference()});
        std::cout << std::left << std::setw(40) << step.name() << std::setw(34) << shape.describe() << std::fixed
                  << std::setprecision(0) << std::setw(7) << m.rate() << " GB/s " << std::setprecision(1)
                  << m.percent_of_reference() << "% of memcpy\n";
        return std::string();
      });
      if (!failure.empty()) {
        std::cout << step.name() << ": skipped (" << failure << ")\n";
        break;
      }
    }
  }
}

const bool kBenchRegistered =
    workbook::register_bench(MemoryLab::kName, bench,
                             {"step", "bytes_per_thread", "threads_per_block", "blocks_per_sm", "occupancy_percent",
                              "time_ms", "gb_per_s", "percent_of_memcpy"});
const bool kRegistered =
    workbook::register_lab<MemoryLab>();  // its steps, its bars tests, ./workbook list and calibrate

}  // namespace
