// Grader for lab 06_reduce_scan: Harris's reduction ladder and the scan, to CUB speed.
//
// The lab's facts for the step-grading skeleton (grader/harness/skeleton.h), which does the rest.
// Its steps solve two problems: 06.1 to 06.6 sum n ints, 06.7 to 06.10 scan them (exclusive prefix
// sums). Each step is checked on fresh random ints (every 32-bit value equally likely, so the sums
// wrap) of many sizes, against the CPU oracle, every element; then timed against its baseline
// (Harris's first kernel, or a naive Hillis-Steele scan) and against CUB (DeviceReduce::Sum,
// DeviceScan::ExclusiveSum) at 2^28 ints, with every timed call's output checked on the device.
//
// The bars were measured on the H100 (the instructor's notes, with the command that
// measures them): each rejects the previous step's solution (06.5 and 06.8, experiments, excepted),
// and each admits its witness (the textbook form of its idea, the instructor's) by 5% (06.6 and 06.10,
// CUB's own speed, are their own witnesses); the tests "06_reduce_scan bars reject the previous step" and
// "06_reduce_scan bars admit each step's witness" check both.
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "baseline.h"
#include "check.h"
#include "harness/peaks.h"
#include "harness/skeleton.h"
#include "oracle.h"
#include "reduce_scan.h"

namespace {

using reduce_scan_lab::SumProblem;

enum class Operation { kSum, kScan };

// Where a step is measured: which problem, and how many ints.
struct Measure {
  Operation operation;
  std::size_t n;
  std::string describe() const {
    std::ostringstream text;
    text << (operation == Operation::kSum ? "sum of " : "scan of ");
    int log2 = 0;
    while ((std::size_t{1} << log2) < n) ++log2;
    if ((std::size_t{1} << log2) == n) text << "2^" << log2;
    else text << n;
    return text.str() + " ints";
  }
  bool operator==(const Measure&) const = default;
};

constexpr std::size_t kTimedInts = std::size_t{1} << 28;  // 1 GiB: twenty times the L2
constexpr Measure kSumBar{Operation::kSum, kTimedInts};
constexpr Measure kScanBar{Operation::kScan, kTimedInts};

struct ReduceScanLab {
  using Problem = SumProblem;
  using Condition = Measure;
  using Step = workbook::Step<Problem, Condition>;
  struct CaseSpec {
    Operation operation;
    std::size_t n;
    std::size_t in_offset;  // ints past a 256-byte boundary: 1 breaks every 16-byte alignment
    std::size_t out_offset;
  };
  static constexpr const char* kName = "06_reduce_scan";

  static const std::vector<Step>& steps() {
    using namespace reduce_scan_lab;
    const auto sum = reduce_workspace_bytes;
    const auto scan = scan_workspace_bytes;
    static const std::vector<Step> all = {
        {.id = "06.1",
         .title = "interleaved addressing, no divergence",
         .launcher = reduce_interleaved,
         .bar = {{kSumBar, 1.24}},
         .workspace_bytes = sum},
        {.id = "06.2",
         .title = "sequential addressing",
         .launcher = reduce_sequential,
         .bar = {{kSumBar, 1.80}},
         .workspace_bytes = sum},
        {.id = "06.3",
         .title = "first add during load",
         .launcher = reduce_first_add_during_load,
         .bar = {{kSumBar, 2.78}},
         .workspace_bytes = sum},
        {.id = "06.4",
         .title = "last warp by shuffles",
         .launcher = reduce_last_warp_shuffled,
         .bar = {{kSumBar, 4.42}},
         .workspace_bytes = sum},
        {.id = "06.5",
         .title = "complete unrolling",
         .launcher = reduce_unrolled,
         .bar = {{kSumBar, 5.25}},
         .experiment = "complete unrolling bought Harris 41% on the G80; on the H100 the loop's few instructions hide "
                       "behind the memory latency and it buys 7%, too little for a bar that admits the textbook kernel "
                       "with room and still rejects 06.4's solution. Its bar asks only that unrolling lose nothing",
         .workspace_bytes = sum},
        {.id = "06.6",
         .title = "many elements per thread, one pass",
         .launcher = reduce_at_cub_speed,
         .bar = {{kSumBar, 6.5, 99.0}},
         .workspace_bytes = sum,
         .witness = {.is_solution = "its bar is CUB's own speed (99% of DeviceReduce::Sum): a vendor's number"}},
        {.id = "06.7",
         .title = "Blelloch, conflict-free",
         .launcher = scan_blelloch,
         .bar = {{kScanBar, 1.04}},
         .workspace_bytes = scan},
        {.id = "06.8",
         .title = "Hillis-Steele by warp shuffles",
         .launcher = scan_hillis_steele,
         .bar = {{kScanBar, 1.11}},
         .experiment = "fewer barriers for more additions: on the H100 the textbook kernel (1.19x) is 6% faster than "
                       "06.7's solution (1.12x), too little for a bar that admits it with room and still rejects 06.7. "
                       "Its bar asks only that it lose nothing to 06.7",
         .workspace_bytes = scan},
        {.id = "06.9",
         .title = "register-blocked reduce-then-scan",
         .launcher = scan_register_blocked,
         .bar = {{kScanBar, 1.62}},
         .workspace_bytes = scan},
        {.id = "06.10",
         .title = "single pass, decoupled look-back",
         .launcher = scan_decoupled_look_back,
         .bar = {{kScanBar, 2.6, 100.0}},
         .workspace_bytes = scan,
         .blocks_wait_for_others = true,
         .witness = {.is_solution =
                         "its bar is CUB's own speed (100% of DeviceScan::ExclusiveSum): a vendor's number"}},
    };
    return all;
  }
  static Condition default_condition() { return kSumBar; }
  static workbook::Reference reference() { return {"CUB", false}; }  // a kernel may beat it
  // What ./workbook profile shows (profile.h): reductions and scans are bound by device memory.
  static std::vector<workbook::profile::Counter> counters() {
    namespace p = workbook::profile;
    return {
        p::dram_throughput("the bandwidth reached, as % of device memory's peak: a reduction or a scan reads its "
                           "input once, so this is its roof"),
        p::achieved_occupancy("warps resident: loads in flight come from warps, or from several loads per thread"),
        p::global_sectors_per_request(true, "4 when a warp reads 32 consecutive values; more for strided reads"),
        p::top_stall_reasons("barrier: __syncthreads between a tree's levels (warp shuffles need none); "
                             "long_scoreboard: waiting for loads, too few in flight"),
    };
  }
  static std::string describe(const Step&, const Condition& measure) { return measure.describe(); }
  static std::vector<Condition> info_conditions(const Step&) { return {}; }
  static std::string extra_requirement(const Step&, const Condition&, const workbook::Measurement&) { return ""; }

  static Operation operation_of(const Step& step) { return step.bar.front().at.operation; }
  // The scans are a second ladder: 06.7's bar is not one 06.6 (a sum) could clear or fail.
  static bool starts_ladder(const Step& step) { return std::string(step.id) == "06.7"; }

  static std::vector<CaseSpec> correctness_cases(const Step& step) {
    std::vector<std::size_t> sizes = {0, 1, 2, 3, 31, 32, 33, 1000, 65521, 1000003};  // primes among them
    // A block and a tile, less one, exactly, and one more, for the sizes the steps use (256 and 512
    // elements per block, 4096 per tile), and a tile of tiles.
    for (std::size_t block : {256, 512, 4096, 256 * 256, 4096 * 256})
      sizes.insert(sizes.end(), {block - 1, block, block + 1});
    if (!workbook::session().correctness_only) sizes.insert(sizes.end(), {(std::size_t{1} << 24) + 1, kTimedInts});
    std::vector<CaseSpec> cases;
    for (std::size_t n : drawn()) sizes.push_back(n);
    const Operation operation = operation_of(step);
    for (std::size_t n : sizes) cases.push_back({operation, n, 0, 0});
    for (std::size_t n : {std::size_t{33}, std::size_t{4097}, std::size_t{1000003}})  // pointers not 16-byte aligned
      cases.push_back({operation, n, 1, 3});
    return cases;
  }

  // Drawn from the seed (drawn_sizes.h): any size up to 2^20, and one up to 2^25 that is no multiple
  // of 2^20, a tile of tiles: every residue modulo a block's, a tile's and a tile of tiles' worth of
  // elements is as likely as any other.
  static std::vector<std::size_t> drawn() {
    workbook::SizeDraw draw(kName);
    const bool small = workbook::session().correctness_only;  // under compute-sanitizer
    const std::size_t tile_of_tiles = std::size_t{1} << 20;
    const std::size_t first = draw.any(1, small ? 70'000 : tile_of_tiles);
    return {first, small ? draw.off_tile(70'001, std::size_t{1} << 18, 4096)
                         : draw.off_tile(tile_of_tiles + 1, std::size_t{1} << 25, tile_of_tiles)};
  }
  static std::string drawn_sizes() {
    const std::vector<std::size_t> n = drawn();
    return "n = " + std::to_string(n[0]) + " and " + std::to_string(n[1]) + ", for the sums and the scans";
  }

  // The device's check of a sum or a scan of the n ints drawn from `in`'s seed, for the timed calls
  // and the correctness cases alike: the truth computed with CUB from the input drawn again, in
  // scratch of the grader's own in `arrays`.
  static std::function<void(cudaStream_t, workbook::DeviceMismatches*)> device_check(workbook::Arrays& arrays,
                                                                                     const std::int32_t* in,
                                                                                     const std::int32_t* out,
                                                                                     std::size_t n, bool scan) {
    reduce_scan_check::TruthScratch truth;
    truth.values = reinterpret_cast<std::int32_t*>(arrays.scratch(n));
    truth.truth = reinterpret_cast<std::int32_t*>(arrays.scratch(scan ? n : 1));
    // Without a GPU (--plan-check) no check runs, and CUB cannot be asked the size of its scratch.
    truth.temp_bytes = workbook::addresses_only() ? 1
                                                  : (scan ? reduce_scan_check::cub_scan_temp_bytes(n)
                                                          : reduce_scan_check::cub_sum_temp_bytes(n));
    truth.temp = arrays.scratch((truth.temp_bytes + 3) / 4);
    return [&arrays, in, out, n, scan, truth](cudaStream_t s, workbook::DeviceMismatches* result) {
      if (scan) reduce_scan_check::count_wrong_prefix_sums(out, n, arrays.seed_of(in), truth, result, s);
      else reduce_scan_check::count_wrong_sum(out, n, arrays.seed_of(in), truth, result, s);
    };
  }

  static std::unique_ptr<workbook::Case<Problem>> make_case(const CaseSpec& spec) {
    auto c = std::make_unique<workbook::Case<Problem>>();
    const bool scan = spec.operation == Operation::kScan;
    c->where = Measure{spec.operation, spec.n}.describe();
    if (spec.in_offset != 0) c->where += " (in and out not 16-byte aligned)";
    const std::int32_t* in = c->arrays.input_ints("in", spec.n, spec.in_offset);
    std::int32_t* out = c->arrays.output_ints("out", scan ? spec.n : 1, spec.out_offset);
    c->problem.in = in;
    c->problem.out = out;
    c->problem.n = spec.n;
    c->check_on_device = device_check(c->arrays, in, out, spec.n, scan);
    c->check_output = [c = c.get(), in, out, n = spec.n, scan]() -> std::string {
      // The input's values drawn again from its seed as the check needs them (oracle.h).
      const workbook::IntStream value_at(c->arrays.seed_of(in));
      const std::vector<std::int32_t> got = c->arrays.download(out);
      if (!scan) {
        const std::int32_t want = reduce_scan_oracle::sum_of(n, value_at);
        if (got[0] == want) return "";
        return "the sum is " + std::to_string(got[0]) + ", it should be " + std::to_string(want) +
               " (sums wrap modulo 2^32: add as unsigned int)";
      }
      const reduce_scan_oracle::WrongPrefixSums found = reduce_scan_oracle::wrong_prefix_sums(got, value_at);
      if (found.wrong == 0) return "";
      return std::to_string(found.wrong) + " of " + std::to_string(n) + " prefix sums are wrong, the first out[" +
             std::to_string(found.first) + "] = " + std::to_string(got[found.first]) + ", it should be " +
             std::to_string(found.should_be);
    };
    return c;
  }

  static std::unique_ptr<workbook::Timed<Problem>> timed(const Condition& measure) {
    auto t = std::make_unique<workbook::Timed<Problem>>();
    const bool scan = measure.operation == Operation::kScan;
    const std::size_t n = measure.n, out_count = scan ? n : 1;
    const std::int32_t* in = t->arrays.input_ints("in", n);
    std::int32_t* out = t->arrays.output_ints("out", out_count);
    t->problem.in = in;
    t->problem.out = out;
    t->problem.n = n;

    // The grader's own works write to scratch of their own.
    const auto scratch_ints = [&](std::size_t count) {
      return reinterpret_cast<std::int32_t*>(t->arrays.scratch(count));
    };
    const auto scratch_bytes = [&](std::size_t bytes) {
      return static_cast<void*>(t->arrays.scratch((bytes + 3) / 4));
    };
    SumProblem for_baseline;
    for_baseline.in = in;
    for_baseline.out = scratch_ints(out_count);
    for_baseline.n = n;
    for_baseline.workspace_bytes = scan ? reduce_scan_baseline::scan_naive_workspace_bytes(for_baseline)
                                        : reduce_scan_baseline::reduce_divergent_workspace_bytes(for_baseline);
    for_baseline.workspace = scratch_bytes(for_baseline.workspace_bytes);
    t->baseline = [for_baseline, scan](cudaStream_t s) {
      if (scan) reduce_scan_baseline::scan_naive(for_baseline, s);
      else reduce_scan_baseline::reduce_divergent(for_baseline, s);
    };

    std::int32_t* const cub_out = scratch_ints(out_count);
    const std::size_t cub_bytes =
        scan ? reduce_scan_check::cub_scan_temp_bytes(n) : reduce_scan_check::cub_sum_temp_bytes(n);
    void* const cub_temp = scratch_bytes(cub_bytes);
    t->reference = [in, cub_out, n, cub_temp, cub_bytes, scan](cudaStream_t s) {
      if (scan) reduce_scan_check::cub_exclusive_sum(in, cub_out, n, cub_temp, cub_bytes, s);
      else reduce_scan_check::cub_sum(in, cub_out, n, cub_temp, cub_bytes, s);
    };

    t->check_output = device_check(t->arrays, in, out, n, scan);
    t->bytes = double(n + (scan ? n : 0)) * sizeof(std::int32_t);  // read, and a scan's write
    return t;
  }
};

// ---------------------------------------------------------------------------------------------
// Benchmark: GB/s of every step against n, CUB as the line to beat.

void bench(const std::string& csv_path) {
  workbook::BenchCsv csv(csv_path);
  std::vector<ReduceScanLab::Step> curves = {{"baseline",
                                              "sum: Harris's kernel 1",
                                              reduce_scan_baseline::reduce_divergent,
                                              {{kSumBar}},
                                              nullptr,
                                              nullptr,
                                              reduce_scan_baseline::reduce_divergent_workspace_bytes},
                                             {"baseline",
                                              "scan: naive Hillis-Steele",
                                              reduce_scan_baseline::scan_naive,
                                              {{kScanBar}},
                                              nullptr,
                                              nullptr,
                                              reduce_scan_baseline::scan_naive_workspace_bytes}};
  curves.insert(curves.end(), ReduceScanLab::steps().begin(), ReduceScanLab::steps().end());
  for (int log2 = 16; log2 <= 28; log2 += 2) {
    const std::size_t n = std::size_t{1} << log2;
    for (const ReduceScanLab::Step& curve : curves) {
      const Measure at{ReduceScanLab::operation_of(curve), n};
      const std::string failure = workbook::failure_of([&] {
        const workbook::Measurement m = workbook::measure_at<ReduceScanLab>(curve, at);
        if (!m.failure.empty()) return m.failure;
        const double cub_gb_per_s = m.bytes / (m.reference_ms * 1e6);
        csv.row({curve.name(), at.operation == Operation::kSum ? "sum" : "scan", n, m.candidate_ms, m.rate(),
                 m.percent_of_reference(), cub_gb_per_s, workbook::measured_peaks().copy_gb_per_s});
        std::cout << std::left << std::setw(48) << curve.name() << std::setw(22) << at.describe() << std::fixed
                  << std::setprecision(0) << std::setw(7) << m.rate() << " GB/s " << std::setprecision(1)
                  << m.percent_of_reference() << "% of CUB (" << std::setprecision(0) << cub_gb_per_s << " GB/s)\n"
                  << std::defaultfloat;
        return std::string();
      });
      if (!failure.empty()) std::cout << curve.name() << " at " << at.describe() << ": skipped (" << failure << ")\n";
    }
  }
}

const bool kBenchRegistered = workbook::register_bench(
    ReduceScanLab::kName, bench,
    {"curve", "operation", "n", "time_ms", "gb_per_s", "percent_of_cub", "cub_gb_per_s", "copy_gb_per_s"});
const bool kRegistered =
    workbook::register_lab<ReduceScanLab>();  // its steps, its bars tests, ./workbook list and calibrate

}  // namespace
