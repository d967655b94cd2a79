// Grader for lab 05_fft: a batched 1024-point FFT, more outputs per thread, to cuFFT speed.
//
// The lab's facts for the step-grading skeleton (grader/harness/skeleton.h), which does the rest.
// Every step is checked on batches of 0, 1, 3, 65 and 65536 transforms of fresh random inputs, an
// impulse and a pure tone (whose spectra are known exactly), and an input 16 bytes past an aligned
// address, every output point against a double-precision FFT (on the CPU for small batches, on the
// GPU for large ones and after every timed call) with the FP32 tolerance of oracle.h; then timed
// at a batch of 65536 against the baseline (radix 2, one launch per stage through device memory)
// and against cufftExecC2C on the same inputs. cuFFT is the grader's, never the student's: student
// code must not link or include it (a static test checks).
//
// The bars sit between the reference solutions' speedups measured on the H100 (in
// the instructor's notes, with the command that measures them), each one the previous step's
// solution fails; the test "05_fft bars reject the previous step" checks that on every run of the
// solution.
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "baseline.h"
#include "check.h"
#include "fft.h"
#include "harness/skeleton.h"
#include "oracle.h"

namespace {

using fft_lab::FftProblem;
using fft_lab::kPoints;

// Where a step is measured: how many transforms.
struct Batch {
  int transforms = 0;
  // Not flushed from L2 before each timed call: a batch small enough to stay there (the input just
  // drawn, the output just poisoned). A call then lasts some 14 us on an H100, and no kernel runs at
  // a copy's pace (cuFFT neither): each transform's passes, exchanges and barriers, and how many
  // transforms an SM works on at once, set the time, where from device memory the bytes do.
  bool from_l2 = false;
  // A bar's condition on the step's kernel: its theoretical occupancy at most this (05.4).
  double max_occupancy = 1.0;
  double flops() const { return 5.0 * kPoints * fft_oracle::kLevels * transforms; }  // the convention: 5 N log2 N
  double bytes() const { return 2.0 * sizeof(float2) * kPoints * transforms; }       // read once, written once
  std::string describe() const {
    std::string text = "batch " + std::to_string(transforms) + (from_l2 ? " in L2" : "");
    if (max_occupancy < 1.0) text += " at occupancy <= " + std::to_string(int(100 * max_occupancy)) + "%";
    return text;
  }
  bool operator==(const Batch&) const = default;
};

constexpr Batch kBarBatch{65536};      // 512 MiB in, 512 MiB out
constexpr Batch kL2Batch{2048, true};  // 16 MiB in, 16 MiB out: both fit in the H100's 50 MiB L2
// 05.4's point is Volkov's: as fast with fewer threads. 16 points and their twiddles need some 48
// registers a thread: 62.5% at 64 threads a block, where 05.3's 32 registers give 100%.
constexpr Batch kLowOccupancyBarBatch{65536, false, 0.66};

// What each step is about, by design: points per thread, and exchanges through shared memory.
struct Design {
  int outputs_per_thread;
  int exchanges;
};
Design design_of(const std::string& id) {
  static const std::map<std::string, Design> by_step = {
      {"05.1", {2, 9}}, {"05.2", {4, 4}}, {"05.3", {8, 3}}, {"05.4", {16, 2}}, {"05.5", {16, 2}}};
  const auto found = by_step.find(id);
  return found == by_step.end() ? Design{0, 0} : found->second;
}

// Shared memory per transform of the step's kernel: the block's, over the transforms a block holds
// (its threads times the step's outputs per thread, over 1024). 0 when unknown.
double shared_bytes_per_transform(const std::string& id, const workbook::KernelResources& r) {
  const Design d = design_of(id);
  const double transforms_per_block =
      d.outputs_per_thread == 0 ? 1.0 : double(r.threads_per_block) * d.outputs_per_thread / kPoints;
  if (transforms_per_block <= 0) return 0;
  return double(r.static_shared_bytes + r.dynamic_shared_bytes) / transforms_per_block;
}

// The tolerance in force: the FP32 one, or without the [precision] defence Higham's bound.
fft_oracle::Tolerance tolerance() {
  return workbook::defence_enabled(workbook::Defence::kPrecision) ? fft_oracle::fp32_tolerance()
                                                                  : fft_oracle::worst_case_tolerance();
}

// Where a point outside the FP32 tolerance would still pass Higham's bound, the kernel computes
// the transform, only not in FP32 throughout: say so.
std::string precision_note(double error, double norm) {
  if (!workbook::defence_enabled(workbook::Defence::kPrecision)) return "";
  if (error > fft_oracle::worst_case_tolerance().allowed(norm, 0.0) * 4) return "";
  return workbook::tagged(
      workbook::Defence::kPrecision,
      "the error is what narrowed precision (FP16, BF16 or TF32 values, or twiddles built up over a "
      "long recurrence) produces, and far outside honest FP32 rounding: compute in FP32 throughout. ");
}

// The kinds of input a correctness case draws.
enum class Signal { kRandom, kImpulse, kTone };

// The input of an impulse case: transform b is a unit impulse at n = 37 b mod 1024, whose spectrum
// is exp(-2 pi i n k / 1024) everywhere: no output is zero, every one has modulus 1.
// The input of a tone case: transform b is exp(2 pi i f n / 1024) with f = 101 b + 5 mod 1024,
// whose spectrum is 1024 at k = f and 0 elsewhere.
std::vector<float> signal_values(Signal signal, int batch) {
  std::vector<float> values(std::size_t(batch) * kPoints * 2, 0.0f);
  for (int b = 0; b < batch; ++b) {
    if (signal == Signal::kImpulse) values[(std::size_t(b) * kPoints + (37 * b) % kPoints) * 2] = 1.0f;
    if (signal != Signal::kTone) continue;
    const int f = (101 * b + 5) % kPoints;
    for (int n = 0; n < kPoints; ++n) {
      const fft_oracle::Complex w = std::conj(fft_oracle::twiddle(std::int64_t(f) * n, kPoints));
      values[(std::size_t(b) * kPoints + n) * 2] = float(w.real());
      values[(std::size_t(b) * kPoints + n) * 2 + 1] = float(w.imag());
    }
  }
  return values;
}

// "point k of transform b got (re, im) want (re, im) (allowed +-e)", for a message.
std::string describe_point(std::size_t point, const float* got, const fft_oracle::Complex& want, double allowed) {
  std::ostringstream text;
  text << std::setprecision(9) << " transform " << point / kPoints << ", point " << point % kPoints << ": got ("
       << got[0] << ", " << got[1] << ") want (" << want.real() << ", " << want.imag() << ") (allowed +-" << allowed
       << ");";
  return text.str();
}

// Compares every output point with the CPU oracle: "" or the first mismatches.
std::string compare_on_cpu(const std::vector<float>& out, const std::vector<float>& in, int batch) {
  const fft_oracle::Tolerance allowed_by = tolerance();
  std::size_t wrong = 0;
  std::string note;
  std::string first;
  for (int b = 0; b < batch; ++b) {
    const std::vector<fft_oracle::Complex> x = fft_oracle::points_of(in, b);
    const std::vector<fft_oracle::Complex> want = fft_oracle::fft(x);
    const double norm = fft_oracle::norm_of(x);
    for (int k = 0; k < kPoints; ++k) {
      const std::size_t point = std::size_t(b) * kPoints + k;
      const double allowed = allowed_by.allowed(norm, std::abs(want[k]));
      const double error = std::abs(fft_oracle::Complex(out[2 * point], out[2 * point + 1]) - want[k]);
      if (error <= allowed) continue;
      if (wrong == 0) note = precision_note(error, norm);
      if (wrong < workbook::kMismatchesShown) first += describe_point(point, &out[2 * point], want[k], allowed);
      ++wrong;
    }
  }
  if (wrong == 0) return "";
  return note + std::to_string(wrong) + " of " + std::to_string(std::size_t(batch) * kPoints) +
         " output points differ from the double-precision transform by more than the FP32 tolerance:" + first;
}

// Describes point `point`, found wrong on the GPU, with the CPU oracle's value for it.
std::string describe_found(const std::vector<float>& out, const std::vector<float>& in, std::size_t point,
                           std::size_t wrong, std::size_t points) {
  const std::vector<fft_oracle::Complex> x = fft_oracle::points_of(in, point / kPoints);
  const fft_oracle::Complex want = fft_oracle::fft(x)[point % kPoints];
  const double norm = fft_oracle::norm_of(x);
  const double error = std::abs(fft_oracle::Complex(out[2 * point], out[2 * point + 1]) - want);
  return precision_note(error, norm) + std::to_string(wrong) + " of " + std::to_string(points) +
         " output points differ from the double-precision transform by more than the FP32 tolerance; the first:" +
         describe_point(point, &out[2 * point], want, tolerance().allowed(norm, std::abs(want)));
}

struct FftLab {
  using Problem = FftProblem;
  using Condition = Batch;
  using Step = workbook::Step<Problem, Condition>;
  struct CaseSpec {
    int batch = 0;
    Signal signal = Signal::kRandom;
    std::size_t offset = 0;  // floats past an aligned address
  };
  static constexpr const char* kName = "05_fft";

  // The bars, calibrated on an H100 (the instructor's notes; the handout lists the same).
  // Each is one that the previous step's reference solution fails ("05_fft bars" checks it).
  static const std::vector<Step>& steps() {
    static const std::vector<Step> all = {
        {.id = "05.1",
         .title = "2 outputs per thread",
         .launcher = fft_lab::fft_2_outputs_per_thread,
         .bar = {{kBarBatch, 2.75, 20.94}}},
        {.id = "05.2",
         .title = "4 outputs per thread",
         .launcher = fft_lab::fft_4_outputs_per_thread,
         .bar = {{kBarBatch, 9.66, 73.82}}},
        {.id = "05.3",
         .title = "8 outputs per thread",
         .launcher = fft_lab::fft_8_outputs_per_thread,
         .bar = {{kBarBatch, 12.13, 92.72}}},
        // As fast as 05.3, at lower occupancy: the seed's point.
        {.id = "05.4",
         .title = "16 outputs per thread",
         .launcher = fft_lab::fft_16_outputs_per_thread,
         .bar = {{kLowOccupancyBarBatch, 12.22, 93.77}}},
        // cuFFT's speed from device memory, and nearer to it than 05.4 in a short call from L2.
        {.id = "05.5",
         .title = "at cuFFT speed",
         .launcher = fft_lab::fft_at_cufft_speed,
         .bar = {{kBarBatch, 12.0, 98.0}, {kL2Batch, 0.0, 82.0}},
         .witness = {.is_solution = "its bar is cuFFT's own speed (98% of it): a vendor's number"}},
    };
    return all;
  }
  static Condition default_condition() { return kBarBatch; }
  static workbook::Reference reference() { return {"cuFFT", false}; }  // a kernel may beat it
  // What ./workbook profile shows (profile.h): bank conflicts, local memory, device memory.
  static std::vector<workbook::profile::Counter> counters() {
    namespace p = workbook::profile;
    return {
        p::shared_wavefronts_per_request(true,
                                         "power-of-two strides land in one bank: above 1, the exchange through "
                                         "shared memory has bank conflicts (pad or swizzle the index)"),
        p::shared_wavefronts_per_request(false, "the same for the exchange's writes"),
        p::local_memory_instructions("an array of complex values indexed at run time lives in local memory; fully "
                                     "unrolled, it stays in registers: should be 0"),
        p::dram_throughput("a large FFT reads and writes every element once per pass: fewer passes, less traffic"),
    };
  }
  static std::string describe(const Step& step, const Condition& batch) {
    const Design d = design_of(step.id);
    if (d.outputs_per_thread == 0) return batch.describe();
    return batch.describe() + ", " + std::to_string(d.outputs_per_thread) + " outputs/thread, " +
           std::to_string(d.exchanges) + " exchanges";
  }
  static std::vector<Condition> info_conditions(const Step&) { return {kL2Batch}; }
  static std::string launch_note(const Step& step, const workbook::Measurement& m) {
    if (!m.resources || design_of(step.id).outputs_per_thread == 0) return "";
    std::ostringstream note;
    note << std::fixed << std::setprecision(0) << ", " << shared_bytes_per_transform(step.id, *m.resources)
         << " B shared/transform";
    return note.str();
  }
  static std::string extra_requirement(const Step&, const Condition& batch, const workbook::Measurement& m) {
    const std::string why = workbook::occupancy_above(m, batch.max_occupancy);
    return why.empty() ? "" : why + ": the point of this step is the same speed at lower occupancy";
  }

  static std::vector<CaseSpec> correctness_cases() {
    std::vector<CaseSpec> cases = {
        {0}, {1}, {3}, {64 + 1}, {3, Signal::kImpulse}, {3, Signal::kTone}, {3, Signal::kRandom, 4}};
    if (!workbook::session().correctness_only) cases.push_back({kBarBatch.transforms});  // not under compute-sanitizer
    for (int batch : drawn()) cases.push_back({batch});
    return cases;
  }

  // Drawn from the seed (drawn_sizes.h): a batch checked on the CPU, and a larger one that is no
  // multiple of 64 transforms, more than any step's block holds: its last block is never full.
  static std::vector<int> drawn() {
    workbook::SizeDraw draw(kName);
    const bool small = workbook::session().correctness_only;  // under compute-sanitizer
    const int first = static_cast<int>(draw.any(1, kCpuCheckLimit));
    return {first, static_cast<int>(draw.off_tile(kCpuCheckLimit + 1, small ? 3'000 : 70'000, 64))};
  }
  static std::string drawn_sizes() {
    const std::vector<int> batch = drawn();
    return "batches of " + std::to_string(batch[0]) + " and " + std::to_string(batch[1]) + " transforms";
  }

  // Batches up to this many transforms are checked on the CPU, point by point; larger ones on the GPU.
  static constexpr int kCpuCheckLimit = 256;

  static std::unique_ptr<workbook::Case<Problem>> make_case(const CaseSpec& spec) {
    auto c = std::make_unique<workbook::Case<Problem>>();
    const int batch = spec.batch;
    const std::size_t floats = std::size_t(batch) * kPoints * 2;
    c->where = "batch " + std::to_string(batch);
    if (spec.signal == Signal::kImpulse) c->where += " of impulses";
    if (spec.signal == Signal::kTone) c->where += " of pure tones";
    if (spec.offset != 0)
      c->where += " (in and out " + std::to_string(spec.offset * sizeof(float)) + " bytes past an aligned address)";
    const float* in = spec.signal == Signal::kRandom
                          ? c->arrays.input("in", floats, spec.offset)
                          : c->arrays.input_values("in", signal_values(spec.signal, batch), spec.offset);
    float* out = c->arrays.output("out", floats, spec.offset);
    c->problem = {reinterpret_cast<const float2*>(in), reinterpret_cast<float2*>(out), batch};
    c->check_output = [c = c.get(), in, out, batch] {
      if (batch <= kCpuCheckLimit) return compare_on_cpu(c->arrays.download(out), c->arrays.values_of(in), batch);
      // The call has ended (the case waits for the whole device), so the truth computed now on the
      // device is never there while the student's kernels run. The output comes to the host only to
      // describe a mismatch: at batch 65536 it is 512 MiB.
      workbook::RunChecks check(1);
      fft_check::count_outside_tolerance(c->arrays.seed_of(in), reinterpret_cast<const float2*>(out), batch,
                                         tolerance(), check.slot(0), workbook::session().stream);
      const workbook::DeviceMismatches found = check.download().front();
      if (found.count == 0) return std::string();
      return describe_found(c->arrays.download(out), c->arrays.values_of(in), found.first, found.count,
                            std::size_t(batch) * kPoints);
    };
    return c;
  }

  static std::unique_ptr<workbook::Timed<Problem>> timed(const Condition& batch) {
    auto t = std::make_unique<workbook::Timed<Problem>>();
    const std::size_t floats = std::size_t(batch.transforms) * kPoints * 2;
    const float* in = t->arrays.input("in", floats);
    float* out = t->arrays.output("out", floats);
    const auto* x = reinterpret_cast<const float2*>(in);
    auto* baseline_out = reinterpret_cast<float2*>(t->arrays.scratch(floats));
    auto* cufft_out = reinterpret_cast<float2*>(t->arrays.scratch(floats));
    t->problem = {x, reinterpret_cast<float2*>(out), batch.transforms};
    const int transforms = batch.transforms;
    fft_check::cufft_forward(x, cufft_out, transforms,
                             workbook::session().stream);  // the plan, made outside the timing
    t->baseline = [x, baseline_out, transforms](cudaStream_t s) {
      fft_baseline::fft_radix2_per_stage({x, baseline_out, transforms}, s);
    };
    t->reference = [x, cufft_out, transforms](cudaStream_t s) {
      fft_check::cufft_forward(x, cufft_out, transforms, s);
    };
    // The truth is the transform of what the generator drew, whatever the kernel did to the input since.
    t->check_output = [t = t.get(), in, out, transforms](cudaStream_t s, workbook::DeviceMismatches* result) {
      fft_check::count_outside_tolerance(t->arrays.seed_of(in), reinterpret_cast<const float2*>(out), transforms,
                                         tolerance(), result, s);
    };
    t->flops = batch.flops();
    // From L2, the traffic is L2's: the device-memory ceiling does not apply to it.
    t->bytes = batch.from_l2 ? 0.0 : batch.bytes();
    t->timing.flush_l2 = !batch.from_l2;
    return t;
  }
};

// ---------------------------------------------------------------------------------------------
// Benchmark: GFLOP/s and GB/s of every step against the batch, cuFFT as the line to beat, and the
// occupancy of each (Volkov's slide 73: GFLOP/s up, occupancy down, as outputs per thread grow).

void bench(const std::string& csv_path) {
  workbook::BenchCsv csv(csv_path);
  std::vector<FftLab::Step> curves = {
      {"baseline", "radix 2, a launch per stage", fft_baseline::fft_radix2_per_stage, {}}};
  curves.insert(curves.end(), FftLab::steps().begin(), FftLab::steps().end());
  for (const Batch batch :
       {Batch{1}, Batch{16}, Batch{132}, Batch{1024}, Batch{4096}, Batch{16384}, Batch{65536}, kL2Batch}) {
    for (const FftLab::Step& curve : curves) {
      const std::string failure = workbook::failure_of([&] {
        const workbook::Measurement m = workbook::measure_at<FftLab>(curve, batch);
        if (!m.failure.empty()) return m.failure;
        const Design d = design_of(curve.id);
        const workbook::KernelResources& r = *m.resources;
        const double shared_per_transform = shared_bytes_per_transform(curve.id, r);
        const double gb_per_s = batch.bytes() / (m.candidate_ms * 1e6);
        const double cufft_gb_per_s = batch.bytes() / (m.reference_ms * 1e6);
        csv.row({curve.name(), batch.transforms, batch.from_l2 ? "L2" : "device memory", m.candidate_ms, m.rate(),
                 gb_per_s, m.percent_of_reference(), cufft_gb_per_s, 100.0 * r.occupancy, r.registers_per_thread,
                 d.outputs_per_thread, shared_per_transform});
        std::cout << std::left << std::setw(40) << curve.name() << std::setw(14) << batch.describe() << std::fixed
                  << std::setprecision(0) << std::setw(7) << m.rate() << " GFLOP/s " << std::setw(6) << gb_per_s
                  << " GB/s " << std::setprecision(1) << std::setw(6) << m.percent_of_reference() << "% of cuFFT ("
                  << std::setprecision(0) << cufft_gb_per_s << " GB/s)  occupancy " << 100.0 * r.occupancy << "%, "
                  << r.registers_per_thread << " regs, " << shared_per_transform << " B shared/transform\n"
                  << std::defaultfloat;
        return std::string();
      });
      if (!failure.empty()) std::cout << curve.id << " at " << batch.describe() << ": skipped (" << failure << ")\n";
    }
  }
}

const bool kBenchRegistered = workbook::register_bench(
    FftLab::kName, bench,
    {"curve", "batch", "source", "time_ms", "gflop_per_s", "gb_per_s", "percent_of_cufft", "cufft_gb_per_s",
     "occupancy_percent", "registers", "outputs_per_thread", "shared_bytes_per_transform"});
const bool kRegistered = workbook::register_lab<FftLab>();  // its steps, its bars tests, ./workbook list and calibrate

}  // namespace

// The yardsticks, checked like a student's kernel.
TEST_SUITE("05_fft reference") {
  TEST_CASE("05_fft cuFFT computes what the oracle does, well inside the tolerance") {
    const FftLab::Step cufft{
        "cuFFT",
        "cufftExecC2C",
        [](const FftProblem& p, cudaStream_t s) { fft_check::cufft_forward(p.in, p.out, p.batch, s); },
        {}};
    const std::string why = workbook::check_all_cases<FftLab>(cufft);
    CHECK_MESSAGE(why.empty(), "cuFFT disagrees with the oracle: ", why);
  }
  TEST_CASE(
      "05_fft the GPU check agrees with the CPU oracle, and honest FP32 stays within a quarter of the tolerance") {
    // cuFFT's output at a batch the CPU can check too: the GPU check must pass it at the tolerance
    // and at a quarter of it, and fail one point moved by ten times the tolerance.
    const cudaStream_t stream = workbook::session().stream;
    const auto c = FftLab::make_case({200});
    fft_check::cufft_forward(c->problem.in, c->problem.out, c->problem.batch, stream);
    CUDA_CHECK(cudaDeviceSynchronize());
    REQUIRE_MESSAGE(c->check_output().empty(), "the CPU oracle rejects cuFFT");
    const std::uint64_t seed = c->arrays.seed_of(reinterpret_cast<const float*>(c->problem.in));
    const fft_oracle::Tolerance fp32 = fft_oracle::fp32_tolerance();
    const fft_oracle::Tolerance quarter{fp32.per_norm / 4, fp32.per_output / 4};
    workbook::RunChecks checks(3);
    fft_check::count_outside_tolerance(seed, c->problem.out, 200, fp32, checks.slot(0), stream);
    fft_check::count_outside_tolerance(seed, c->problem.out, 200, quarter, checks.slot(1), stream);
    const std::vector<float> in = c->arrays.values_of(reinterpret_cast<const float*>(c->problem.in));
    const std::size_t point = 77 * kPoints + 300;
    const std::vector<fft_oracle::Complex> x = fft_oracle::points_of(in, 77);
    const fft_oracle::Complex want = fft_oracle::fft(x)[300];
    const float2 moved{float(want.real() + 10 * fp32.allowed(fft_oracle::norm_of(x), std::abs(want))),
                       float(want.imag())};
    CUDA_CHECK(cudaMemcpy(c->problem.out + point, &moved, sizeof moved, cudaMemcpyHostToDevice));
    fft_check::count_outside_tolerance(seed, c->problem.out, 200, fp32, checks.slot(2), stream);
    const std::vector<workbook::DeviceMismatches> found = checks.download();
    CHECK_MESSAGE(found[0].count == 0, "the GPU check rejects what the CPU oracle accepts");
    CHECK_MESSAGE(found[1].count == 0, "cuFFT's error reaches a quarter of the tolerance at ", found[1].first);
    CHECK_MESSAGE(found[2].count == 1, "the GPU check found ", found[2].count, " wrong points, not 1");
    CHECK(found[2].first == point);
  }
}
