// Grader for lab 01_latency: latency, throughput and Little's law.
//
// The lab's facts for the step-grading skeleton (grader/harness/skeleton.h), which does the rest.
// Steps 01.1 to 01.3 are measurements (Step::measurement): the student's code measures a latency or
// computes an occupancy, and each case checks it against the grader's own measurement of the same
// thing (its own chain and chase, whose values on this GPU come from reference_values.h because
// their kernels would be the answer; the CUDA API, in the same run), after checking that the work
// measured was really done (the chain's result, the chase's last link, bit for bit) and that the number is
// possible (in range, and no longer than the call took by the grader's events). Step 01.4 is a rung:
// FMA chains timed against the baseline (one chain per thread) and the FMA peak (the grader's own
// 8 chains per thread at full occupancy) at 6.25% and 25% occupancy.
//
// The bars come from H100 runs, kept with the commands that measure them in the instructor's notes;
// the handout lists the same.
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "baseline.h"
#include "check.h"
#include "harness/reference_values.h"
#include "harness/skeleton.h"
#include "latency.h"
#include "oracle.h"

namespace {

using latency_lab::LatencyProblem;

// Where 01.4 is measured, as in lab 02: the block size, and how many blocks the padding lets onto
// one SM (0: no padding, as many as the kernel's own resources allow).
struct LaunchShape {
  int threads_per_block;
  int blocks_per_sm;

  std::size_t padding_bytes() const {
    return blocks_per_sm == 0 ? 0 : workbook::occupancy_padding_bytes(blocks_per_sm);
  }
  double occupancy_percent() const {
    const double max_warps = workbook::device_facts().max_threads_per_sm / 32.0;
    const double warps = blocks_per_sm == 0 ? max_warps : blocks_per_sm * threads_per_block / 32.0;
    return 100.0 * std::min(warps, max_warps) / max_warps;
  }
  // In warps per SM, which needs no GPU to say (`./workbook list`): 4 warps are 6.25% of an H100's 64.
  std::string describe() const {
    if (blocks_per_sm == 0) return std::to_string(threads_per_block) + " thr, full occ.";
    return std::to_string(blocks_per_sm * threads_per_block / 32) + " warps/SM (" + std::to_string(threads_per_block) +
           " thr x " + std::to_string(blocks_per_sm) + " blk)";
  }
  bool operator==(const LaunchShape&) const = default;
};

// 4 warps per SM, one per scheduler: 6.25% on every GPU since Volta.
constexpr LaunchShape kLowOccupancy{128, 1};
constexpr LaunchShape kQuarterOccupancy{128, 4};
constexpr LaunchShape kFullOccupancy{128, 0};

// 01.4's timed chains: 32 per thread slot of a 128-thread block on every SM, so that 1, 2, 4 or 8
// chains per thread fill whole waves at 1 and 4 blocks per SM; 2^16 FMAs each, so that a call
// takes milliseconds (at 0.1 ms, the launch and a block's first loads cost a tenth of it). With
// a = 1 - 2^-16 a chain keeps e^-1 of its start: every chain's end depends on where it started.
constexpr int kTimedLength = 1 << 16;
constexpr float kTimedA = 1.0f - 1.0f / kTimedLength;
constexpr float kTimedB = 1.0f / (1 << 18);
std::size_t timed_chains() { return std::size_t(workbook::device_facts().sm_count) * 128 * 32; }
// The FMA peak does the same FMAs as 8 chains per thread in one full wave of 128-thread blocks: 4
// times the chains, a quarter of the length each.
constexpr int kPeakChainsFactor = 4;

// 01.1's chain: 2^16 FMAs, a = 1 - 2^-16, so that its end depends on its start too.
constexpr int kLatencyLength = 1 << 16;
constexpr float kLatencyA = 1.0f - 1.0f / kLatencyLength;
constexpr float kLatencyB = 1.0f / (1 << 20);

// A latency must be within this fraction of the grader's own measurement (the bar; the
// H100's runs agree to 1%: NOTES.md).
constexpr double kLatencyTolerance = 0.05;
// What no GPU can do: a dependent FMA in less than a cycle, or in more than 100; a load in less
// than 10 cycles (no cache answers that fast) or more than 10000.
constexpr double kFmaCyclesMin = 1, kFmaCyclesMax = 100;
constexpr double kLoadCyclesMin = 10, kLoadCyclesMax = 10000;

// The seed papers' numbers, shown beside the measurements: Kolpakova's Kepler latencies
// ("Code GPU with CUDA": register dependency 10, L1 34, L2 160, global 350 cycles) and Volkov's
// GTX 480 (2010: 576 threads per SM at ILP 1 hide the arithmetic latency, 18 cycles x 32 lanes).
constexpr double kKeplerFmaCycles = 10, kGtx480FmaCycles = 18;

// What a student's 01.1 and 01.2 are compared with: this GPU's values from its bars profile, else
// the H100's (check.h; the grader's own chain and chase measure them, in the instructor tree).
const bool kReferencesDeclared = workbook::declare_reference_values("01_latency", kLatencyTolerance, [] {
  std::vector<workbook::ReferenceValue> values = {
      {latency_check::kFmaReferenceKey, "cycles per dependent FMA", latency_check::kH100FmaCycles}};
  for (const latency_check::ChaseLevel& level : latency_check::kChaseLevels)
    values.push_back({latency_check::load_reference_key(level.bytes), std::string("cycles per load, ") + level.name,
                      level.h100_cycles});
  return values;
}());

double sm_clock_khz() {
  int device = 0, khz = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  return khz;
}

std::string fixed(double value, int digits) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

// "4.07 (the H100's, built in)": a reference value as a row shows it.
std::string reference_text(const std::string& key, int digits) {
  const workbook::UsedReference reference = workbook::reference_value(key);
  return fixed(reference.value, digits) + " (" + reference.source + ")";
}

// "" when `cycles_per_op` (of `count` operations) is possible and within tolerance of the reference.
std::string latency_failure(double cycles_per_op, long long count, double min, double max,
                            const workbook::UsedReference& reference, double launcher_ms, const char* unit) {
  if (!(cycles_per_op >= min && cycles_per_op <= max))
    return fixed(cycles_per_op, 2) + " cycles per " + unit + " is impossible (no GPU takes less than " + fixed(min, 0) +
           " or more than " + fixed(max, 0) +
           "): are clock64() read just before and just after the timed part, and "
           "*cycles their difference?";
  // The kernel cannot have run for longer than the whole call did, even at the SM's highest clock.
  const double claimed_ms = cycles_per_op * count / sm_clock_khz();
  if (claimed_ms > launcher_ms * 1.05 + 0.002)
    return "your clock counts " + fixed(claimed_ms, 3) +
           " ms even at the SM's highest clock, but the whole call took " + fixed(launcher_ms, 3) +
           " ms by the grader's events: *cycles must be what the timed part took";
  if (std::abs(cycles_per_op / reference.value - 1) > kLatencyTolerance)
    return fixed(cycles_per_op, 2) + " cycles per " + unit + ", but the grader's own measurement is " +
           fixed(reference.value, 2) + " (" + reference.source + "); the bar is within " +
           fixed(100 * kLatencyTolerance, 0) + "%";
  return "";
}

long long as_cycles(const std::vector<std::int32_t>& two_words) {
  long long value = 0;
  std::memcpy(&value, two_words.data(), sizeof(value));
  return value;
}

enum class Kind { kFmaLatency, kLoadLatency, kOccupancy, kIlp };

struct LatencyLab {
  using Problem = LatencyProblem;
  using Condition = LaunchShape;
  using Step = workbook::Step<Problem, Condition>;
  struct CaseSpec {
    Kind kind;
    std::size_t size = 0;  // chains (01.4) or the working set's bytes (01.2)
    int length = 0;        // FMAs per chain
    LaunchShape shape{128, 0};
    const char* level = "";
    double kepler_cycles = 0;
  };
  static constexpr const char* kName = "01_latency";

  static const std::vector<Step>& steps() {
    using namespace latency_lab;
    static const std::vector<Step> all = {
        {"01.1",
         "FMA latency",
         measure_fma_latency,
         {},
         /*experiment=*/nullptr,
         /*precheck=*/nullptr,
         /*workspace_bytes=*/nullptr,
         /*blocks_wait_for_others=*/false,
         "within 5% of the grader's chain"},
        {"01.2",
         "load latency, by pointer chase",
         measure_load_latency,
         {},
         /*experiment=*/nullptr,
         /*precheck=*/nullptr,
         /*workspace_bytes=*/nullptr,
         /*blocks_wait_for_others=*/false,
         "a random cycle, within 5% of the grader's chase in L1, L2 and device memory"},
        {"01.3",
         "occupancy calculator",
         nullptr,
         {},
         /*experiment=*/nullptr,
         /*precheck=*/nullptr,
         /*workspace_bytes=*/nullptr,
         /*blocks_wait_for_others=*/false,
         "what the CUDA API says, at every shape, and a resource that limits it"},
        // The bar sits midway between the baseline (one chain per thread) and the witness: four chains,
        // Little's law at one warp per scheduler (4 cycles x 1 FMA a cycle), 86% and 98% of the peak at
        // 4 and 16 warps per SM on the H100 (NOTES.md); the reference, eight chains, 94% and 100%.
        {.id = "01.4",
         .title = "independent FMAs hide the latency",
         .launcher = fma_with_ilp,
         .bar = {{kLowOccupancy, 1.88, 43.70}, {kQuarterOccupancy, 1.40, 66.73}}},
    };
    return all;
  }
  static Kind kind_of(const Step& step) {
    const std::string id = step.id;
    return id == "01.1"   ? Kind::kFmaLatency
           : id == "01.2" ? Kind::kLoadLatency
           : id == "01.3" ? Kind::kOccupancy
                          : Kind::kIlp;
  }
  static Condition default_condition() { return kLowOccupancy; }
  static workbook::Reference reference() { return {"FMA peak", true}; }  // 8 chains per thread at full occupancy
  // What ./workbook profile shows (profile.h): 01.4's kernel, whose idea is the FMA pipe kept full by
  // independent chains at low occupancy.
  static std::vector<workbook::profile::Counter> counters() {
    namespace p = workbook::profile;
    return {
        p::fma_pipe("the FP32 units' busy cycles: Little's law asks for latency x throughput FMAs in flight to fill "
                    "them, from independent chains when warps are few"),
        p::metric("issue slots used (%)", "sm__inst_issued.avg.pct_of_peak_sustained_active", 1,
                  "one chain per thread lets a warp issue an FMA only when the previous one is done: a few % of the "
                  "slots; each independent chain adds one"),
        p::achieved_occupancy(
            "warps resident: the bar is judged at low occupancy, where only ILP can hide the latency"),
        p::top_stall_reasons("wait: an FMA waits for the one it depends on, a chain too short of independent work; "
                             "math_pipe_throttle: the pipe is full, the goal"),
    };
  }
  static std::string describe(const Step&, const Condition& shape) { return shape.describe(); }
  static std::vector<Condition> info_conditions(const Step& step) {
    if (kind_of(step) != Kind::kIlp) return {};
    return {kLowOccupancy, kQuarterOccupancy, kFullOccupancy};
  }

  static std::vector<CaseSpec> correctness_cases(const Step& step) {
    const bool small = workbook::session().correctness_only;
    std::vector<CaseSpec> cases;
    switch (kind_of(step)) {
      case Kind::kFmaLatency: cases.push_back({Kind::kFmaLatency, 1, kLatencyLength}); break;
      case Kind::kLoadLatency:
        for (const latency_check::ChaseLevel& level : latency_check::kChaseLevels)
          if (!small || level.bytes <= (std::size_t{4} << 20))
            cases.push_back({Kind::kLoadLatency, level.bytes, 0, {}, level.name, level.kepler_cycles});
        break;
      case Kind::kOccupancy: cases.push_back({Kind::kOccupancy}); break;
      case Kind::kIlp: {
        // Chains one less than, exactly, and one more than a block's worth at 1, 8 and 16 per thread.
        std::vector<std::size_t> counts = {1, 2, 31, 32, 33, 1000, 100003};
        for (std::size_t per_block : {128, 128 * 8, 128 * 16})
          counts.insert(counts.end(), {per_block - 1, per_block, per_block + 1});
        if (!small) counts.push_back(timed_chains() + 5);
        for (std::size_t chains : drawn()) counts.push_back(chains);
        for (const LaunchShape& shape : {kLowOccupancy, LaunchShape{256, 0}, LaunchShape{32, 0}})
          for (std::size_t chains : counts) cases.push_back({Kind::kIlp, chains, chains > 200000 ? 16 : 37, shape});
        cases.push_back({Kind::kIlp, 33, 1, kLowOccupancy});
        break;
      }
    }
    return cases;
  }

  // Drawn from the seed (drawn_sizes.h), for 01.4's chains: any count up to 5,000, and one up to
  // 2^20 that is no multiple of 2,048 chains, a block's worth at 16 chains per thread: every residue
  // modulo a block's worth at any ILP the step allows is as likely as any other.
  static std::vector<std::size_t> drawn() {
    workbook::SizeDraw draw(kName);
    const bool small = workbook::session().correctness_only;  // under compute-sanitizer
    const std::size_t first = draw.any(1, 5'000);
    return {first, draw.off_tile(5'001, std::size_t{1} << (small ? 16 : 20), 2'048)};
  }
  static std::string drawn_sizes() {
    const std::vector<std::size_t> chains = drawn();
    return std::to_string(chains[0]) + " and " + std::to_string(chains[1]) + " chains for 01.4, at three block sizes";
  }

  static std::unique_ptr<workbook::Case<Problem>> make_case(const CaseSpec& spec) {
    switch (spec.kind) {
      case Kind::kFmaLatency: return fma_latency_case(spec);
      case Kind::kLoadLatency: return load_latency_case(spec);
      case Kind::kOccupancy: return occupancy_case();
      case Kind::kIlp: break;
    }
    return ilp_case(spec);
  }

  // 01.1: one chain, its end checked bit for bit, its cycles against the grader's chain.
  static std::unique_ptr<workbook::Case<Problem>> fma_latency_case(const CaseSpec& spec) {
    auto c = std::make_unique<workbook::Case<Problem>>();
    c->where = "a chain of " + std::to_string(spec.length) + " FMAs";
    const float* start = c->arrays.input("start", 1);
    float* end = c->arrays.output("end", 1);
    std::int32_t* cycles = c->arrays.output_ints("cycles", 2);  // two 4-byte words hold the 8-byte count
    c->problem.fma = {start, end, 1, spec.length, kLatencyA, kLatencyB};
    c->problem.cycles = reinterpret_cast<long long*>(cycles);
    c->check_output = [c = c.get(), start, end, cycles, length = spec.length]() -> std::string {
      const float want = latency_oracle::chain_end(c->arrays.values_of(start)[0], length, kLatencyA, kLatencyB);
      const float got = c->arrays.download(end)[0];
      if (std::isnan(got))
        return "*end was never written: store the chain's result (a chain whose result nobody uses is deleted by the "
               "compiler, and then there is nothing to time)";
      if (std::memcmp(&got, &want, sizeof(float)) != 0)
        return "*end = " + fixed(got, 9) + ", but the chain ends at " + fixed(want, 9) +
               ": each of its steps must be x = fmaf(x, a, b), one after another";
      if (workbook::session().correctness_only) return "";
      const double per_fma = double(as_cycles(c->arrays.download(cycles))) / length;
      return latency_failure(per_fma, length, kFmaCyclesMin, kFmaCyclesMax,
                             workbook::reference_value(latency_check::kFmaReferenceKey), c->launcher_ms,
                             "dependent FMA");
    };
    c->report = [c = c.get(), cycles, length = spec.length] {
      const double per_fma = double(as_cycles(c->arrays.download(cycles))) / length;
      std::string text = fixed(per_fma, 2) + " cycles per dependent FMA";
      if (!workbook::session().correctness_only)
        text += "; the grader's chain " + reference_text(latency_check::kFmaReferenceKey, 2) +
                "; Volkov's GTX 480 about " + fixed(kGtx480FmaCycles, 0) + ", Kolpakova's Kepler " +
                fixed(kKeplerFmaCycles, 0);
      return workbook::Reported{per_fma, "cycles", text};
    };
    return c;
  }

  // 01.2: the chase the launcher wrote must be one random cycle through every line, its last link
  // where following those links ends, and its cycles within tolerance of the grader's own chase.
  static std::unique_ptr<workbook::Case<Problem>> load_latency_case(const CaseSpec& spec) {
    auto c = std::make_unique<workbook::Case<Problem>>();
    c->where = fixed(double(spec.size) / 1024 >= 1024 ? double(spec.size) / (1 << 20) : double(spec.size) / 1024, 0) +
               (spec.size >= (std::size_t{1} << 20) ? " MiB (" : " KiB (") + spec.level + ")";
    std::int32_t* lines = c->arrays.output_ints("lines", spec.size / sizeof(std::uint32_t));
    std::int32_t* last = c->arrays.output_ints("last", 1);
    std::int32_t* cycles = c->arrays.output_ints("cycles", 2);
    latency_lab::PointerChase& chase = c->problem.chase;
    chase.lines = reinterpret_cast<std::uint32_t*>(lines);
    chase.bytes = spec.size;
    chase.seed = workbook::session().next_seed();
    chase.warmup_loads = latency_check::warmup_loads_for(spec.size);
    chase.timed_loads = latency_check::kTimedLoads;
    chase.last = reinterpret_cast<std::uint32_t*>(last);
    c->problem.cycles = reinterpret_cast<long long*>(cycles);
    c->check_output = [c = c.get(), lines, last, cycles, bytes = spec.size]() -> std::string {
      const std::vector<std::int32_t> downloaded = c->arrays.download(lines);
      const std::vector<std::uint32_t> words(downloaded.begin(), downloaded.end());
      if (std::string why = latency_oracle::chase_defect(words); !why.empty()) return why;
      const latency_lab::PointerChase& chase = c->problem.chase;
      std::uint32_t link = 0;
      for (long long i = 0; i < chase.warmup_loads + chase.timed_loads; ++i) link = words[link];
      const std::uint32_t got = static_cast<std::uint32_t>(c->arrays.download(last)[0]);
      if (got != link)
        return "*last = " + std::to_string(got) + ", but following the links from word 0 for " +
               std::to_string(chase.warmup_loads) + " + " + std::to_string(chase.timed_loads) + " loads ends at word " +
               std::to_string(link) +
               ": follow every link, and store where you end (a chase whose end nobody uses is "
               "deleted by the compiler)";
      if (workbook::session().correctness_only) return "";
      const double per_load = double(as_cycles(c->arrays.download(cycles))) / chase.timed_loads;
      return latency_failure(per_load, chase.timed_loads, kLoadCyclesMin, kLoadCyclesMax,
                             workbook::reference_value(latency_check::load_reference_key(bytes)), c->launcher_ms,
                             "load");
    };
    c->report = [c = c.get(), cycles, bytes = spec.size, kepler = spec.kepler_cycles] {
      const double per_load = double(as_cycles(c->arrays.download(cycles))) / c->problem.chase.timed_loads;
      std::string text = fixed(per_load, 1) + " cycles per load";
      if (!workbook::session().correctness_only)
        text += "; the grader's chase " + reference_text(latency_check::load_reference_key(bytes), 1) +
                "; Kolpakova's Kepler " + fixed(kepler, 0);
      return workbook::Reported{per_load, "cycles", text};
    };
    return c;
  }

  // The shapes of 01.3 a calculator got right, for its case's report.
  struct OccupancyTally {
    int shapes = 0, fewest_registers = 1 << 30, most_registers = 0;
    int other_shapes = 0;  // on other GPUs' SMs (latency_oracle::other_sms())
    std::map<std::string, int> limiters;
    int wrong = 0;
    std::string first_wrong;
  };

  // What a calculator's answer for one block gets wrong against `blocks` blocks per SM, limited by
  // one of `limiters` (`whose` count: the CUDA API's or the grader's); "" where nothing.
  static std::string occupancy_mistake(const latency_lab::Occupancy& yours, int blocks, int warps_per_block,
                                       const std::vector<latency_lab::Limiter>& limiters, const std::string& whose,
                                       const std::string& next_block) {
    if (yours.blocks != blocks)
      return "you count " + std::to_string(yours.blocks) + " blocks per SM, " + whose + " " + std::to_string(blocks);
    if (yours.warps != blocks * warps_per_block)
      return "you count " + std::to_string(yours.warps) + " warps for " + std::to_string(blocks) + " blocks of " +
             std::to_string(warps_per_block) + " warps";
    if (std::find(limiters.begin(), limiters.end(), yours.limiter) == limiters.end())
      return std::string("you name ") + latency_oracle::name_of(yours.limiter) + " as the limit, but " +
             latency_oracle::name_of(limiters.front()) + " is what stops " + next_block;
    return "";
  }

  // The calculator against the CUDA API on every probe kernel, block size and amount of shared
  // memory of this GPU; the grader's own count must agree with the API first.
  static void check_occupancy_on_this_gpu(OccupancyTally& tally) {
    const latency_lab::SmLimits sm = latency_check::sm_limits_of_this_gpu();
    const int optin = static_cast<int>(workbook::device_facts().shared_bytes_per_block_optin);
    for (const latency_check::OccupancyProbe& probe : latency_check::occupancy_probes())
      for (int threads : {32, 64, 96, 128, 160, 192, 256, 288, 384, 512, 640, 768, 1024})
        for (int shared : {0, 1, 3000, 12288, 40000, 50000, 77000, 116000, 232448}) {
          if (threads > probe.max_threads_per_block || shared > optin) continue;
          const latency_lab::BlockShape block{threads, probe.registers_per_thread, shared};
          const int api = latency_check::api_blocks_per_sm(probe, threads, std::size_t(shared));
          const latency_oracle::SmFit fit = latency_oracle::fit_blocks(block, sm);
          std::ostringstream at;
          at << threads << " threads, " << probe.registers_per_thread << " registers a thread, " << shared
             << " bytes of shared memory";
          if (fit.blocks != api)
            throw std::logic_error("the grader's own count (" + std::to_string(fit.blocks) +
                                   " blocks) disagrees with the "
                                   "CUDA API (" +
                                   std::to_string(api) + ") at " + at.str() +
                                   ": this GPU allocates differently from the SMs the lab knows; report it");
          const std::string why =
              occupancy_mistake(latency_lab::occupancy_of(block, sm), api, (threads + sm.warp_size - 1) / sm.warp_size,
                                fit.limiters, "the CUDA API", "a " + std::to_string(api + 1) + "th block");
          if (!why.empty() && tally.wrong++ == 0) tally.first_wrong = at.str() + ": " + why;
          if (why.empty()) {
            ++tally.shapes;
            tally.fewest_registers = std::min(tally.fewest_registers, probe.registers_per_thread);
            tally.most_registers = std::max(tally.most_registers, probe.registers_per_thread);
            ++tally.limiters[latency_oracle::name_of(fit.limiters.front())];
          }
        }
  }

  // And on SMs of other GPUs (and one of none), against the grader's own count: the CUDA API knows
  // only this GPU, so a calculator must count to pass.
  static void check_occupancy_on_other_sms(OccupancyTally& tally) {
    for (const latency_oracle::NamedSm& other : latency_oracle::other_sms())
      for (int registers : {1, 16, 24, 32, 37, 40, 41, 48, 56, 64, 72, 85, 96, 128, 168, 200, 255})
        for (int threads : {32, 64, 96, 160, 256, 384, 512, 768, 1024})
          for (int shared : {0, 1, 3000, 12288, 40000, 50000, 77000, 98000}) {
            if (shared > other.sm.shared_bytes) continue;
            const latency_lab::BlockShape block{threads, registers, shared};
            const latency_oracle::SmFit fit = latency_oracle::fit_blocks(block, other.sm);
            const std::string why = occupancy_mistake(latency_lab::occupancy_of(block, other.sm), fit.blocks,
                                                      (threads + other.sm.warp_size - 1) / other.sm.warp_size,
                                                      fit.limiters, "the grader", "another block");
            if (!why.empty() && tally.wrong++ == 0)
              tally.first_wrong = std::to_string(threads) + " threads, " + std::to_string(registers) +
                                  " registers a thread, " + std::to_string(shared) + " bytes of shared memory on " +
                                  other.name + " SM: " + why;
            if (why.empty()) ++tally.other_shapes;
          }
  }

  // 01.3: the student's calculator against the CUDA API on every probe kernel, block size and
  // amount of shared memory; its limiter against those the grader's own count finds. Then on other
  // GPUs' SMs, which the API cannot be asked about (a calculator that asked it would pass by copying the answer).
  static std::unique_ptr<workbook::Case<Problem>> occupancy_case() {
    auto c = std::make_unique<workbook::Case<Problem>>();
    auto tally = std::make_shared<OccupancyTally>();
    c->where = "block shapes on this GPU";
    c->check_output = [tally]() -> std::string {
      *tally = {};
      check_occupancy_on_this_gpu(*tally);
      check_occupancy_on_other_sms(*tally);
      if (tally->wrong == 0) return "";
      return std::to_string(tally->wrong) + " of " +
             std::to_string(tally->wrong + tally->shapes + tally->other_shapes) +
             " block shapes are wrong, the first at " + tally->first_wrong;
    };
    c->report = [tally] {
      std::string text = "as the CUDA API says at all " + std::to_string(tally->shapes) + " shapes (" +
                         std::to_string(tally->fewest_registers) + " to " + std::to_string(tally->most_registers) +
                         " registers a thread); limited by";
      for (const auto& [limiter, count] : tally->limiters) text += " " + limiter + " " + std::to_string(count) + ",";
      text.pop_back();
      text += "; and " + std::to_string(tally->other_shapes) + " shapes on " +
              std::to_string(latency_oracle::other_sms().size()) + " other GPUs' SMs as the grader counts them";
      return workbook::Reported{double(tally->shapes), "shapes", text};
    };
    return c;
  }

  // 01.4: every chain's end, bit for bit.
  static std::unique_ptr<workbook::Case<Problem>> ilp_case(const CaseSpec& spec) {
    auto c = std::make_unique<workbook::Case<Problem>>();
    c->where =
        std::to_string(spec.size) + " chains of " + std::to_string(spec.length) + " FMAs at " + spec.shape.describe();
    const float* start = c->arrays.input("start", spec.size);
    float* end = c->arrays.output("end", spec.size);
    c->problem.fma = {start, end, spec.size, spec.length, kTimedA, kTimedB};
    c->problem.threads_per_block = spec.shape.threads_per_block;
    c->problem.occupancy_padding_bytes = spec.shape.padding_bytes();
    c->check_output = [c = c.get(), start, end, length = spec.length]() -> std::string {
      const std::vector<float> starts = c->arrays.values_of(start);
      const std::vector<float> got = c->arrays.download(end);
      std::size_t wrong = 0, first = 0;
      float want_first = 0;
      for (std::size_t i = 0; i < starts.size(); ++i) {
        const float want = latency_oracle::chain_end(starts[i], length, kTimedA, kTimedB);
        if (std::memcmp(&got[i], &want, sizeof(float)) != 0 && wrong++ == 0) first = i, want_first = want;
      }
      if (wrong == 0) return "";
      return std::to_string(wrong) + " of " + std::to_string(starts.size()) + " chains end wrong, the first end[" +
             std::to_string(first) + "] = " + fixed(got[first], 9) + ", it should be " + fixed(want_first, 9);
    };
    return c;
  }

  static std::unique_ptr<workbook::Timed<Problem>> timed(const Condition& shape) {
    auto t = std::make_unique<workbook::Timed<Problem>>();
    const std::size_t chains = timed_chains();
    const float* start = t->arrays.input("start", chains);
    float* end = t->arrays.output("end", chains);
    t->problem.fma = {start, end, chains, kTimedLength, kTimedA, kTimedB};
    t->problem.threads_per_block = shape.threads_per_block;
    t->problem.occupancy_padding_bytes = shape.padding_bytes();

    LatencyProblem for_baseline = t->problem;
    for_baseline.fma.end = t->arrays.scratch(chains);
    t->baseline = [for_baseline](cudaStream_t s) { latency_baseline::fma_chains<1>(for_baseline, s); };
    LatencyProblem for_peak = t->problem;  // the FMA peak: 8 chains per thread, every warp slot full
    for_peak.fma.chains = chains * kPeakChainsFactor;
    for_peak.fma.length = kTimedLength / kPeakChainsFactor;
    for_peak.fma.start = t->arrays.scratch(for_peak.fma.chains);
    for_peak.fma.end = t->arrays.scratch(for_peak.fma.chains);
    for_peak.threads_per_block = kFullOccupancy.threads_per_block;
    for_peak.occupancy_padding_bytes = 0;
    t->reference = [for_peak](cudaStream_t s) { latency_baseline::fma_chains<8>(for_peak, s); };
    t->check_output = [t = t.get(), start, end, chains](cudaStream_t s, workbook::DeviceMismatches* result) {
      latency_check::count_wrong_chains(end, chains, kTimedLength, kTimedA, kTimedB, t->arrays.seed_of(start), result,
                                        s);
    };
    t->flops = 2.0 * double(chains) * kTimedLength;
    t->bytes = 2.0 * double(chains) * sizeof(float);
    t->timing.flush_l2 = false;  // 2 x 8 MB of chains, read once: there is nothing to flush
    return t;
  }

  // The lesson is the occupancy: a step measured at 6.25% must run there.
  static std::string extra_requirement(const Step&, const Condition& shape, const workbook::Measurement& m) {
    if (shape.blocks_per_sm == 0) return "";
    const std::string why = workbook::occupancy_above(m, shape.occupancy_percent() / 100.0);
    return why.empty() ? "" : why + ": launch the chains with problem.occupancy_padding_bytes of dynamic shared memory";
  }
};

// ---------------------------------------------------------------------------------------------
// Benchmark: Volkov's slides 16-22 redrawn on this GPU (% of the FMA peak against warps per SM, one
// curve per ILP, Little's law's prediction beside each), and the latency staircase (cycles per
// load against the working set, 4 KiB to 1 GiB).

constexpr int kBenchLength = 1 << 15;  // FMAs per chain: a millisecond a point

// TFLOP/s of the grader's kernel with kIlp chains per thread at `blocks_per_sm` blocks of 128.
template <int kIlp>
double tflops_at(int blocks_per_sm, float* start, float* end) {
  LatencyProblem p;
  const std::size_t chains =
      std::size_t(workbook::device_facts().sm_count) * 128 * blocks_per_sm * kIlp * 4;  // 4 waves
  p.fma = {start, end, chains, kBenchLength, kTimedA, kTimedB};
  p.threads_per_block = 128;
  p.occupancy_padding_bytes = workbook::occupancy_padding_bytes(blocks_per_sm);
  workbook::TimingOptions options;
  options.flush_l2 = false;
  options.min_runs = 5;
  options.max_runs = 30;
  const workbook::Timing timing =
      workbook::time_interleaved({[&](cudaStream_t s) { latency_baseline::fma_chains<kIlp>(p, s); }},
                                 workbook::session().stream, options)
          .front();
  workbook::clear_recorded_launches();
  return 2.0 * double(chains) * kBenchLength / (timing.median_ms * 1e9);
}

void bench(const std::string& csv_path) {
  workbook::BenchCsv csv(csv_path);
  const double latency = workbook::reference_value(latency_check::kFmaReferenceKey).value;  // Little's law's L
  const int schedulers = latency_check::sm_limits_of_this_gpu().schedulers;
  const std::size_t most_chains = std::size_t(workbook::device_facts().sm_count) * 128 * 16 * 8 * 4;
  float* start = nullptr;
  float* end = nullptr;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&start), most_chains * sizeof(float)));
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&end), most_chains * sizeof(float)));
  CUDA_CHECK(cudaMemset(start, 0, most_chains * sizeof(float)));
  // The FMA peak, as 01.4 measures it: 8 chains per thread, every warp slot full.
  const double peak = tflops_at<8>(16, start, end);
  std::cout << "dependent FMA: " << reference_text(latency_check::kFmaReferenceKey, 2) << " cycles; FMA peak "
            << fixed(peak, 1) << " TFLOP/s\n";
  for (int ilp : {1, 2, 3, 4, 8})
    for (int blocks_per_sm : {1, 2, 3, 4, 6, 8, 12, 16}) {
      const int warps = blocks_per_sm * 4;
      const double tflops = ilp == 1   ? tflops_at<1>(blocks_per_sm, start, end)
                            : ilp == 2 ? tflops_at<2>(blocks_per_sm, start, end)
                            : ilp == 3 ? tflops_at<3>(blocks_per_sm, start, end)
                            : ilp == 4 ? tflops_at<4>(blocks_per_sm, start, end)
                                       : tflops_at<8>(blocks_per_sm, start, end);
      const double percent = 100.0 * tflops / peak;
      // Little's law: each scheduler needs `latency` independent FMAs in flight to issue one a cycle.
      const double predicted = 100.0 * std::min(1.0, double(warps) / schedulers * ilp / latency);
      csv.row({"ILP " + std::to_string(ilp), ilp, warps, warps * 32, percent, predicted, "", ""});
      std::cout << "ILP " << ilp << ", " << std::setw(2) << warps << " warps per SM: " << fixed(percent, 1)
                << "% of the FMA peak (Little's law: " << fixed(predicted, 0) << "%)\n";
    }
  cudaFree(start);
  cudaFree(end);
  // The load-latency curve is the implementation's own chase (01.2's launcher: the student's, or the
  // solution's with --solution), one run at each working set.
  const std::size_t largest = std::size_t{1} << 30;
  std::uint32_t* lines = nullptr;
  std::uint32_t* last = nullptr;
  long long* cycles = nullptr;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&lines), largest));
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&last), sizeof(std::uint32_t)));
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&cycles), sizeof(long long)));
  for (std::size_t bytes = 4096; bytes <= largest; bytes *= 2) {
    latency_lab::LatencyProblem p;
    p.chase = {lines,
               bytes,
               0x5EEDull + bytes,
               static_cast<int>(std::min<std::size_t>(bytes / latency_check::kLineBytes, 1 << 18)),
               latency_check::kTimedLoads,
               last};
    p.cycles = cycles;
    try {
      latency_lab::measure_load_latency(p, workbook::session().stream);
      CUDA_CHECK(cudaStreamSynchronize(workbook::session().stream));
    } catch (const std::exception& error) {
      std::cout << "load latency: measure_load_latency (01.2) failed, so there is no curve: " << error.what() << '\n';
      break;
    }
    long long counted = 0;
    CUDA_CHECK(cudaMemcpy(&counted, cycles, sizeof(counted), cudaMemcpyDeviceToHost));
    const double per_load = double(counted) / latency_check::kTimedLoads;
    csv.row({"load latency", "", "", "", "", "", bytes, per_load});
    if (bytes == 4096) std::cout << "load latency, measured by measure_load_latency (01.2):\n";
    std::cout << std::setw(11) << bytes << " bytes: " << fixed(per_load, 1) << " cycles per load\n";
  }
  cudaFree(lines);
  cudaFree(last);
  cudaFree(cycles);
}

const bool kBenchRegistered =
    workbook::register_bench(LatencyLab::kName, bench,
                             {"curve", "ilp", "warps_per_sm", "threads_per_sm", "percent_of_peak", "predicted_percent",
                              "working_set_bytes", "cycles_per_load"});
const bool kRegistered =
    workbook::register_lab<LatencyLab>();  // its steps, its bars tests, ./workbook list and calibrate

}  // namespace
