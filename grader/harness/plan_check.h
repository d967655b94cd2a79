// What a machine without a GPU can tell a student of their file (the grader's --plan-check, which
// `./workbook grade` runs there): every step's launcher is called in the student's planner, as the
// judge calls it, for each of the step's correctness cases, with arrays that are addresses only
// (buffers.h) and the described GPU's answers (described_device.h). Each plan is checked as the judge
// checks it on a GPU (plan::defect(): the shapes the GPU allows, copies and fills only into the
// arrays given) and never run, so what it finds is what a GPU's grading would refuse before running
// anything: a block too large, a launcher that throws at a size, a copy outside its arrays.
#pragma once

#include <string>
#include <vector>

#include "harness/judged_code.h"
#include "harness/lab.h"
#include "harness/session.h"
#include "workbook/cuda.h"

namespace workbook {

// What a GPU's grading would refuse, step by step (02.1: "several floats per thread, n = 0 at ...:
// why"), the steps not started yet, and those only a GPU can check. The judge must be judging without
// a GPU (main.cpp's --plan-check).
template <typename Lab>
PlanCheck check_plans() {
  PlanCheck checked;
  for (const typename Lab::Step& step : Lab::steps()) {
    if (step.launcher == nullptr) continue;  // a calculator in plain C++: its case's check calls it
    ++checked.steps;
    std::vector<typename Lab::CaseSpec> cases;
    if constexpr (requires { Lab::correctness_cases(step); }) cases = Lab::correctness_cases(step);
    else cases = Lab::correctness_cases();
    for (const typename Lab::CaseSpec& spec : cases) {
      const std::unique_ptr<Case<typename Lab::Problem>> c = Lab::make_case(spec);
      try {
        ++checked.calls;
        give_workspace(step, c->problem, c->arrays);
        step.launcher(c->problem, session().stream);
      } catch (const NotImplemented&) {
        checked.not_started.push_back(step.id);
        break;
      } catch (const NeedsAGpu&) {
        checked.needs_a_gpu.push_back(step.id);
        break;
      } catch (const std::exception& error) {
        checked.refusals.push_back({{step.id}, std::string(step.title) + ", " + c->where + ": " + error.what()});
        break;
      }
    }
  }
  return checked;
}

}  // namespace workbook
