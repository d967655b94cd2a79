// The ladder: each step's bar must reject the previous step's solution (check_bars_discriminate, run
// on the reference solutions), and `./workbook calibrate` sets this GPU's bars so that it still
// does. Both walk the ladder by one rule, rung_of(): which steps are rungs, where a ladder starts,
// and which solutions a rung's bar must reject.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "grade_step.h"
#include "lab.h"
#include "report.h"

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
  if constexpr (requires { Lab::starts_ladder(steps[k]); }) rung.starts_ladder = rung.starts_ladder || Lab::starts_ladder(steps[k]);
  if (rung.starts_ladder || steps[k].experiment != nullptr) return rung;
  for (std::size_t earlier = k; earlier-- > 0;) {
    if (!is_rung<Lab>(steps[earlier])) continue;
    rung.must_reject.push_back(&steps[earlier]);
    if (steps[earlier].experiment == nullptr) break;
  }
  return rung;
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
    const typename Lab::Step& step = steps[k];
    if (std::string why = not_applicable_reason(step); !why.empty()) {
      MESSAGE(step.id, " ", why);
      continue;
    }
    const Rung<Lab> rung = rung_of<Lab>(k);
    if (!rung.is_rung) {
      MESSAGE(step.id, " is a measurement, not a rung: its cases are its bar");
      continue;
    }
    if (rung.starts_ladder) {
      for (std::size_t r = 0; r < step.bar.size(); ++r)
        CHECK_MESSAGE(graded_requirement(step, r).min_speedup > 1.0, step.id,
                      " starts a ladder: its bar must demand more than the baseline");
      continue;
    }
    if (step.experiment != nullptr) {
      MESSAGE(step.id, " is an experiment, exempt: ", step.experiment);
      continue;
    }
    for (const typename Lab::Step* before : rung.must_reject) {
      const typename Lab::Step& previous = *before;
      std::string rejected, measured;
      for (std::size_t r = 0; r < step.bar.size(); ++r) {
        const auto requirement = graded_requirement(step, r);
        const Measurement m = measure_at<Lab>(previous, requirement.at);
        measured += fixed(m.speedup(), 2) + "x, " + fixed(m.percent_of_reference(), 2) + "% of " + m.reference.name + " at " +
                    Lab::describe(previous, requirement.at) + "; ";
        if (rejected.empty()) rejected = requirement_failure<Lab>(previous, requirement, m);
      }
      INFO(previous.id, " measured: ", measured);
      CHECK_MESSAGE(!rejected.empty(), "bar ", step.id, " (", describe_bar<Lab>(step), ") does not discriminate: the solution of ",
                    previous.id, " clears it");
    }
  }
}

// A reference solution that fails on this GPU, in calibration (session.h's CalibrationError).
inline CalibrationError reference_failed(const std::string& step_id, const std::string& condition, const std::string& failure) {
  return CalibrationError("the reference solution of " + step_id + " fails at " + condition + " on this GPU: " + failure +
                          ". That is an error of the workbook, not of the bars: no profile was written. Report it "
                          "with results/calibrate.log");
}

// The margin calibrated bars keep below what the reference solution measured on this GPU: the
// spread of repeated runs on an H100 (each lab's NOTES.md) is 1 to 3%.
inline constexpr double kCalibrationMargin = 0.05;

// `./workbook calibrate` for one lab: each rung measured on this GPU at its bar's conditions, and
// the rung before it (and past an experiment, the one before that) at the same conditions, as
// check_bars_discriminate() measures them. A bar becomes what the solution measured less
// kCalibrationMargin, in the measures the built-in bar uses (speedup, % of the reference); where
// that lets the previous solution through, the measure with the wider gap is set midway between the
// two solutions instead. Appends "STEP INDEX MIN_SPEEDUP MIN_PERCENT  # what was measured" lines to
// `profile_path`; a step that cannot be told from the one before on this GPU is said so, in the file
// and on the console (its bars test will fail there). A reference solution that fails (wrong, slower
// than the baseline's bar, or above a [ceiling]) throws CalibrationError.
template <typename Lab>
void calibrate(const std::string& profile_path) {
  std::ofstream out(profile_path, std::ios::app);
  if (!out) throw std::runtime_error("cannot write " + profile_path);
  out << "# " << Lab::kName << '\n';
  const auto& steps = Lab::steps();
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const typename Lab::Step& step = steps[k];
    if (std::string why = not_applicable_reason(step); !why.empty()) {  // its built-in bars stay
      out << "# " << step.id << ": " << why << '\n';
      std::cout << "[workbook] " << step.name() << ": " << why << '\n';
      continue;
    }
    const Rung<Lab> rung = rung_of<Lab>(k);
    if (!rung.is_rung) continue;
    const bool first_rung = rung.starts_ladder;
    const std::vector<const typename Lab::Step*>& previous = rung.must_reject;
    std::vector<Requirement<typename Lab::Condition>> bars = step.bar;
    std::vector<Measurement> own;
    std::string note;
    for (std::size_t r = 0; r < bars.size(); ++r) {
      own.push_back(measure_at<Lab>(step, bars[r].at));
      const Measurement& m = own.back();
      if (!m.failure.empty()) throw reference_failed(step.id, Lab::describe(step, bars[r].at), m.failure);
      if (bars[r].min_speedup > 0) bars[r].min_speedup = std::max(m.speedup() * (1 - kCalibrationMargin), first_rung ? 1.05 : 0.0);
      if (bars[r].min_percent_of_reference > 0) bars[r].min_percent_of_reference = m.percent_of_reference() * (1 - kCalibrationMargin);
    }
    for (const typename Lab::Step* before : previous) {
      std::vector<Measurement> theirs;
      bool rejected = false;
      for (std::size_t r = 0; r < bars.size(); ++r) {
        theirs.push_back(measure_at<Lab>(*before, bars[r].at));
        if (!theirs[r].failure.empty()) throw reference_failed(before->id, Lab::describe(*before, bars[r].at), theirs[r].failure);
        rejected = rejected || !requirement_failure<Lab>(*before, bars[r], theirs[r]).empty();
      }
      if (rejected) continue;
      // The measure in which the two solutions differ most, relatively: its bar goes midway.
      double widest = 0;
      std::size_t widest_r = 0;
      bool in_speedup = true;
      for (std::size_t r = 0; r < bars.size(); ++r) {
        const double speedup_gap = bars[r].min_speedup > 0 ? 1 - theirs[r].speedup() / own[r].speedup() : 0;
        const double percent_gap =
            bars[r].min_percent_of_reference > 0 ? 1 - theirs[r].percent_of_reference() / own[r].percent_of_reference() : 0;
        if (speedup_gap > widest) widest = speedup_gap, widest_r = r, in_speedup = true;
        if (percent_gap > widest) widest = percent_gap, widest_r = r, in_speedup = false;
      }
      if (!note.empty()) note += "; ";
      if (widest <= 0) {
        note += std::string("cannot be told from ") + before->id + " on this GPU";
        std::cout << "[workbook] warning: " << step.id << "'s solution is no faster than " << before->id
                  << "'s on this GPU: its bar cannot reject it\n";
        continue;
      }
      if (in_speedup) bars[widest_r].min_speedup = (own[widest_r].speedup() + theirs[widest_r].speedup()) / 2;
      else bars[widest_r].min_percent_of_reference = (own[widest_r].percent_of_reference() + theirs[widest_r].percent_of_reference()) / 2;
      note += std::string("set midway between this solution and ") + before->id + "'s";
    }
    for (std::size_t r = 0; r < bars.size(); ++r) {
      out << step.id << ' ' << r + 1 << ' ' << fixed(bars[r].min_speedup, 2) << ' ' << fixed(bars[r].min_percent_of_reference, 2)
          << "  # " << Lab::describe(step, bars[r].at);
      out << ": measured " << fixed(own[r].speedup(), 2) << "x, " << fixed(own[r].percent_of_reference(), 2) << "% of "
          << own[r].reference.name;
      out << " (built in: " << fixed(step.bar[r].min_speedup, 2) << "x, " << fixed(step.bar[r].min_percent_of_reference, 2) << "%)";
      if (r == 0 && !note.empty()) out << "; " << note;
      out << '\n';
    }
    std::cout << "[workbook] " << step.name() << ": " << describe_bar<Lab>(step) << " -> calibrated";
    for (const auto& bar : bars) std::cout << ' ' << fixed(bar.min_speedup, 2) << "x/" << fixed(bar.min_percent_of_reference, 2) << '%';
    std::cout << (note.empty() ? "" : " (" + note + ")") << '\n';
  }
}

}  // namespace workbook
