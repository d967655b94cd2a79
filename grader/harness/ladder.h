// The ladder. Each step's bar has two sides: it must admit the textbook form of the step's idea, its
// witness (lab.h), by kWitnessMargin (check_bars_admit_witnesses), and reject the previous step's
// reference solution (check_bars_discriminate). `./workbook calibrate` sets this GPU's bars between
// the two. All three walk the ladder by one rule, rung_of(): which steps are rungs, where a ladder
// starts, and which solutions a rung's bar must reject.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/grade_step.h"
#include "harness/lab.h"
#include "harness/reference_values.h"
#include "harness/witness_registry.h"
#include "protocol/rows.h"

namespace workbook {

// A step with a speed bar that this GPU can run. A measurement step (its cases are its bar) and a
// step this GPU cannot run are no rungs: neither checked nor measured against another.
template <typename Lab>
bool is_rung(const typename Lab::Step& step) {
  return step.measurement == nullptr && not_applicable_reason(step).empty();
}

// Where step `k` of a lab stands on its ladder.
template <typename Lab>
struct Rung {
  bool is_rung = false;
  // The first rung of the lab, or of its second ladder (Lab::starts_ladder: lab 06's scans after
  // its sums): its bar must demand more than the baseline, and rejects no solution.
  bool starts_ladder = false;
  // The solutions its bar must reject: the rung before it and, past an experiment step, each rung
  // back to one that is not an experiment. None for a ladder's first rung or an experiment (exempt).
  std::vector<const typename Lab::Step*> must_reject;
};

// The one rule by which the bars test and calibration walk a lab's ladder.
template <typename Lab>
Rung<Lab> rung_of(std::size_t k) {
  const auto& steps = Lab::steps();
  Rung<Lab> rung;
  rung.is_rung = is_rung<Lab>(steps[k]);
  if (!rung.is_rung) return rung;
  rung.starts_ladder = std::none_of(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(k), is_rung<Lab>);
  if constexpr (requires { Lab::starts_ladder(steps[k]); })
    rung.starts_ladder = rung.starts_ladder || Lab::starts_ladder(steps[k]);
  if (rung.starts_ladder || steps[k].experiment != nullptr) return rung;
  for (std::size_t earlier = k; earlier-- > 0;) {
    if (!is_rung<Lab>(steps[earlier])) continue;
    rung.must_reject.push_back(&steps[earlier]);
    if (steps[earlier].experiment == nullptr) break;
  }
  return rung;
}

// "12.31x, 45.60% of cuBLAS SGEMM": one measurement in the bar's two measures.
inline std::string in_bar_measures(const Measurement& m) {
  return fixed(m.speedup(), 2) + "x, " + fixed(m.percent_of_reference(), 2) + "% of " + m.reference.name;
}

// For the two ladder tests: whether step `k` has a bar they judge on this GPU. A step this GPU cannot
// run, and a measurement step (no speed bar), are said so in the test's output and skipped.
template <typename Lab>
bool judged_here(std::size_t k) {
  const typename Lab::Step& step = Lab::steps()[k];
  if (std::string why = not_applicable_reason(step); !why.empty()) {
    MESSAGE((std::string(step.id) + " " + why));
    return false;
  }
  if (!rung_of<Lab>(k).is_rung) {
    MESSAGE((std::string(step.id) + " is a measurement, not a rung: its cases are its bar"));
    return false;
  }
  return true;
}

// Run on the reference solution only: each bar must reject the previous step's solution, or the
// step teaches nothing the grader can see. An experiment step is exempt, and the step after it
// must then reject the solutions of both steps before it. A measurement step is no rung: it has no
// speed bar, and the first rung after it is measured against the baseline only.
template <typename Lab>
void check_bars_discriminate() {
  const auto& steps = Lab::steps();
  REQUIRE_FALSE(steps.empty());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    if (!judged_here<Lab>(k)) continue;
    const typename Lab::Step& step = steps[k];
    const Rung<Lab> rung = rung_of<Lab>(k);
    if (rung.starts_ladder) {
      for (std::size_t r = 0; r < step.bar.size(); ++r)
        CHECK_MESSAGE(graded_requirement(step, r).min_speedup > 1.0,
                      (std::string(step.id) + " starts a ladder: its bar must demand more than the baseline"));
      continue;
    }
    if (step.experiment != nullptr) {
      MESSAGE((std::string(step.id) + " is an experiment, exempt: " + step.experiment));
      continue;
    }
    for (const typename Lab::Step* before : rung.must_reject) {
      const typename Lab::Step& previous = *before;
      std::string rejected, measured;
      for (std::size_t r = 0; r < step.bar.size(); ++r) {
        const auto requirement = graded_requirement(step, r);
        const Measurement m = measure_at<Lab>(previous, requirement.at);
        measured += in_bar_measures(m) + " at " + Lab::describe(previous, requirement.at) + "; ";
        if (rejected.empty()) rejected = requirement_failure<Lab>(previous, requirement, m);
      }
      INFO((std::string(previous.id) + " measured: " + measured));
      CHECK_MESSAGE(!rejected.empty(), ("bar " + std::string(step.id) + " (" + describe_bar<Lab>(step) +
                                        ") does not discriminate: the solution of " + previous.id + " clears it"));
    }
  }
}

// How far above its bar a step's witness must measure, in every measure the bar has: room for a
// student's kernel that does what the handout says but not exactly as the witness does it (another
// block shape, another order of loads), on top of a run's noise (kRunToRunSpread, below).
inline constexpr double kWitnessMargin = 0.05;

// `step` with its witness in place of its reference solution: the same id, bars and conditions.
template <typename Lab>
typename Lab::Step witness_step(const typename Lab::Step& step) {
  typename Lab::Step witness = step;
  const WitnessLaunch<typename Lab::Problem> launch = witness_of<typename Lab::Problem>(step.id);
  witness.launcher = launch.launcher;
  witness.workspace_bytes = launch.workspace_bytes;
  witness.precheck = nullptr;  // a check of the student's other deliverable (03.3's order), not of a kernel
  return witness;
}

// `requirement` raised by kWitnessMargin: what a witness must reach.
template <typename Condition>
Requirement<Condition> with_witness_margin(Requirement<Condition> requirement) {
  requirement.min_speedup *= 1 + kWitnessMargin;
  requirement.min_percent_of_reference *= 1 + kWitnessMargin;
  return requirement;
}

// Run on the reference solution only: each rung's witness is correct on every case and clears its
// bar by kWitnessMargin. A bar that rejects the textbook form of its own idea fails students who did
// what the handout asked. A step whose witness is its reference solution (a vendor's number) is
// exempt: grading the solution is its test.
template <typename Lab>
void check_bars_admit_witnesses() {
  const auto& steps = Lab::steps();
  REQUIRE_FALSE(steps.empty());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    if (!judged_here<Lab>(k)) continue;
    const typename Lab::Step& step = steps[k];
    if (step.witness.is_solution != nullptr) {
      MESSAGE((std::string(step.id) + "'s witness is its reference solution: " + step.witness.is_solution));
      continue;
    }
    if (witness_of<typename Lab::Problem>(step.id).launcher == nullptr) {
      FAIL_CHECK((std::string(step.id) + " has no witness (solutions/NN_topic/proofs/witness.cu registers them): "
                                         "nothing shows that its bar admits the textbook form of its idea"));
      continue;
    }
    const typename Lab::Step witness = witness_step<Lab>(step);
    const std::string wrong = failure_of([&] { return check_all_cases<Lab>(witness); });
    CHECK_MESSAGE(wrong.empty(), (std::string(step.id) + "'s witness is wrong: " + wrong));
    if (!wrong.empty()) continue;
    for (std::size_t r = 0; r < step.bar.size(); ++r) {
      const auto requirement = graded_requirement(step, r);
      std::string measured;
      const std::string short_of = failure_of([&] {
        const Measurement m = measure_at<Lab>(witness, requirement.at);
        measured = in_bar_measures(m) + " at " + Lab::describe(step, requirement.at);
        return requirement_failure<Lab>(witness, with_witness_margin(requirement), m);
      });
      INFO((std::string(step.id) + "'s witness measured " + measured));
      CHECK_MESSAGE(short_of.empty(),
                    ("bar " + std::string(step.id) + " (" + describe_bar<Lab>(step) +
                     ") does not admit the textbook form of its idea with " + fixed(100 * kWitnessMargin, 0) +
                     "% to spare: " + short_of +
                     " (the bar raised by the margin). Lower the bar, or teach what it asks beyond the idea "
                     "in the handout"));
    }
  }
}

// A reference solution that fails on this GPU, in calibration (session.h's CalibrationError).
inline CalibrationError reference_failed(const std::string& step_id, const std::string& condition,
                                         const std::string& failure) {
  return CalibrationError("the reference solution of " + step_id + " fails at " + condition +
                          " on this GPU: " + failure +
                          ". That is an error of the workbook, not of the bars: no profile was written. Report it "
                          "with results/calibrate.log");
}

// The room calibration leaves on each side of a bar for a run's noise: the spread of repeated runs of
// one kernel on one GPU, 0.5 to 2% in the labs' NOTES.md. A bar set with kWitnessMargin alone would
// admit the witness by 5% in the run that set it and fail it by a hair in the next.
inline constexpr double kRunToRunSpread = 0.02;

// Where a calibrated bar goes in one measure (a speedup, or a % of the reference), from what the
// step's witness and its reference solution measured and the fastest solution it must reject (the
// baseline, for a ladder's first rung; NaN for an experiment, which rejects nothing). The bar may be
// no higher than admits the witness by kWitnessMargin and the solution, each with kRunToRunSpread to
// spare, and no lower than rejects that solution with the same spare: it goes to the middle of that
// range, geometrically (equal room on both sides). Where the range is empty the ladder needs
// mending: the bar admits, and *rejects stays false. A step whose witness is its reference solution
// (a vendor's number: `vendor_number`) keeps the rule of its built-in bar instead: kWitnessMargin
// under the solution, or midway to the rejected solution where that would let it through.
inline double bar_between(double witness, double solution, double rejected, bool vendor_number, bool* rejects) {
  if (vendor_number) {
    double bar = solution / (1 + kWitnessMargin);
    if (!std::isnan(rejected) && rejected >= bar && rejected < solution) bar = (solution + rejected) / 2;
    if (!std::isnan(rejected) && rejected < bar) *rejects = true;
    return bar;
  }
  const double highest = std::min(witness / (1 + kWitnessMargin), solution) / (1 + kRunToRunSpread);
  if (std::isnan(rejected)) return highest;
  const double lowest = rejected * (1 + kRunToRunSpread);
  if (lowest > highest) return highest;
  *rejects = true;
  return std::sqrt(lowest * highest);
}

// What a rung's bar must reject at one of its conditions: the solutions of the rungs before it, or,
// on a ladder's first rung, the baseline (1x; its % of the reference is in every measurement:
// percent over speedup). The fastest of them in each measure, and their numbers for the profile's
// comment.
struct Rejected {
  double speedup = NAN, percent = NAN;
  std::string text;
  bool by_own_condition = false;  // a lab's own condition (04.11's occupancy) rejects one whatever its speed
};
template <typename Lab>
Rejected fastest_rejected(const Rung<Lab>& rung, const Measurement& own, const typename Lab::Condition& at) {
  Rejected rejected;
  if (rung.starts_ladder) {
    rejected.speedup = 1.0;
    rejected.percent = own.percent_of_reference() / own.speedup();
    rejected.text = ", the baseline " + fixed(rejected.percent, 2) + "%";
  }
  for (const typename Lab::Step* before : rung.must_reject) {
    const Measurement theirs = measure_at<Lab>(*before, at);
    if (!theirs.failure.empty()) throw reference_failed(before->id, Lab::describe(*before, at), theirs.failure);
    rejected.speedup = std::isnan(rejected.speedup) ? theirs.speedup() : std::max(rejected.speedup, theirs.speedup());
    rejected.percent = std::isnan(rejected.percent) ? theirs.percent_of_reference()
                                                    : std::max(rejected.percent, theirs.percent_of_reference());
    rejected.text += std::string(", ") + before->id + "'s solution " + fixed(theirs.speedup(), 2) + "x, " +
                     fixed(theirs.percent_of_reference(), 2) + "%";
    if (!Lab::extra_requirement(*before, at, theirs).empty()) rejected.by_own_condition = true;
  }
  return rejected;
}

// The bars of the `k`th step of `Lab`'s table, calibrated on this GPU, as a profile's lines on `out`
// (calibrate() below).
template <typename Lab>
void calibrate_step(std::size_t k, std::ostream& out) {
  const typename Lab::Step& step = Lab::steps()[k];
  if (std::string why = not_applicable_reason(step); !why.empty()) {  // its built-in bars stay
    out << "# " << step.id << ": " << why << '\n';
    std::cout << "[workbook] " << step.name() << ": " << why << '\n';
    return;
  }
  const Rung<Lab> rung = rung_of<Lab>(k);
  if (!rung.is_rung) return;
  const bool has_witness = witness_of<typename Lab::Problem>(step.id).launcher != nullptr;
  const typename Lab::Step witness = witness_step<Lab>(step);
  if (has_witness)
    if (std::string wrong = failure_of([&] { return check_all_cases<Lab>(witness); }); !wrong.empty())
      throw CalibrationError("the witness of " + std::string(step.id) + " is wrong on this GPU: " + wrong +
                             ". That is an error of the workbook: no profile was written");
  std::vector<Requirement<typename Lab::Condition>> bars = step.bar;
  std::string note;
  std::vector<std::string> comments(bars.size());
  bool rejects = false;  // in some measure of some condition, as the bars test asks
  for (std::size_t r = 0; r < bars.size(); ++r) {
    const std::string at = Lab::describe(step, bars[r].at);
    const Measurement own = measure_at<Lab>(step, bars[r].at);
    if (!own.failure.empty()) throw reference_failed(step.id, at, own.failure);
    Measurement textbook = own;
    if (has_witness) {
      textbook = measure_at<Lab>(witness, bars[r].at);
      if (!textbook.failure.empty())
        throw CalibrationError("the witness of " + std::string(step.id) + " fails at " + at + " on this GPU: " +
                               textbook.failure + ". That is an error of the workbook: no profile was written");
    }
    const Rejected rejected = fastest_rejected<Lab>(rung, own, bars[r].at);
    rejects = rejects || rejected.by_own_condition;
    const double fastest_speedup = rejected.speedup, fastest_percent = rejected.percent;
    const bool vendor_number = step.witness.is_solution != nullptr;
    if (bars[r].min_speedup > 0)
      bars[r].min_speedup = bar_between(textbook.speedup(), own.speedup(), fastest_speedup, vendor_number, &rejects);
    if (bars[r].min_percent_of_reference > 0)
      bars[r].min_percent_of_reference = bar_between(textbook.percent_of_reference(), own.percent_of_reference(),
                                                     fastest_percent, vendor_number, &rejects);
    comments[r] =
        at + ": witness " +
        (has_witness ? fixed(textbook.speedup(), 2) + "x, " + fixed(textbook.percent_of_reference(), 2) + "%"
                     : std::string(step.witness.is_solution ? "the solution" : "none yet (the solution stands in)")) +
        "; solution " + in_bar_measures(own) + rejected.text;
  }
  if (!rung.must_reject.empty() && !rejects) {  // a first rung always rejects the baseline
    note = "no bar both admits the witness with " + fixed(100 * kWitnessMargin, 0) + "% to spare and rejects " +
           rung.must_reject.front()->id + "'s solution, each with " + fixed(100 * kRunToRunSpread, 0) +
           "% more for noise, on this GPU: the ladder needs mending";
    std::cout << "[workbook] warning: " << step.id << ": " << note << '\n';
  }
  for (std::size_t r = 0; r < bars.size(); ++r) {
    out << bar_line(step.id, r + 1, {bars[r].min_speedup, bars[r].min_percent_of_reference}) << "  # " << comments[r]
        << " (built in: " << fixed(step.bar[r].min_speedup, 2) << "x, "
        << fixed(step.bar[r].min_percent_of_reference, 2) << "%)";
    if (r == 0 && !note.empty()) out << "; " << note;
    out << '\n';
  }
  std::cout << "[workbook] " << step.name() << ": " << describe_bar<Lab>(step) << " -> calibrated";
  for (const auto& bar : bars)
    std::cout << ' ' << fixed(bar.min_speedup, 2) << "x/" << fixed(bar.min_percent_of_reference, 2) << '%';
  std::cout << (note.empty() ? "" : " (" + note + ")") << '\n';
}

// `./workbook calibrate` for one lab: each rung's reference solution, its witness and the solutions
// its bar must reject (rung_of()) measured on this GPU at the bar's conditions, as the two ladder
// tests measure them; each measure the built-in bar uses (speedup, % of the reference) set by
// bar_between(). Appends "STEP INDEX MIN_SPEEDUP MIN_PERCENT  # what was measured" lines to
// `profile_path`, the comment giving the witness's, the solution's and the rejected solutions'
// numbers; a step whose two sides cannot both hold on this GPU is said so, in the file and on the
// console (one of its ladder tests will fail there). A reference solution or a witness that fails
// (wrong, or above a [ceiling]) throws CalibrationError.
template <typename Lab>
void calibrate(const std::string& profile_path) {
  std::ofstream out(profile_path, std::ios::app);
  if (!out) throw std::runtime_error("cannot write " + profile_path);
  const std::time_t now = std::time(nullptr);
  char today[16];
  std::strftime(today, sizeof today, "%Y-%m-%d", std::gmtime(&now));
  out << "# " << Lab::kName << '\n' << "#   measured on " << today << " with seed " << session().seed << '\n';
  write_reference_values(Lab::kName, out);  // what its measurement steps are compared with, if any
  const auto& steps = Lab::steps();
  for (std::size_t k = 0; k < steps.size(); ++k) calibrate_step<Lab>(k, out);
}

}  // namespace workbook
