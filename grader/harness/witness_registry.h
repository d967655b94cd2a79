// The registry of the witnesses' launchers, by step id: the harness's own, in every copy of the
// course, a student's too (it is not a witness). A witness is the textbook form of a step's idea
// (lab.h's Witness), against which its bar is set: code that would pass the step, so it lives in
// the instructor tree (solutions/NN_topic/proofs/witness.cu), which registers its launchers here
// when it is linked. Only the solution's grader links it: a student's build has no witness to find.
// Plain C++ (the launchers take a cudaStream_t).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>

namespace workbook {

template <typename Problem>
struct WitnessLaunch {
  void (*launcher)(const Problem&, cudaStream_t) = nullptr;
  std::size_t (*workspace_bytes)(const Problem&) = nullptr;  // as Step::workspace_bytes, for the witness
};

// Every witness registered for the lab whose problem is `Problem`, by step id ("02.1").
template <typename Problem>
std::map<std::string, WitnessLaunch<Problem>>& registered_witnesses() {
  static std::map<std::string, WitnessLaunch<Problem>> by_step;  // built on first use: no order of initialization
  return by_step;
}

// What a witness.cu writes at namespace scope, so that linking it registers its launchers:
//   const bool registered = workbook::register_witnesses<CopyProblem>({{"02.1", {several_floats}}, ...});
template <typename Problem>
bool register_witnesses(std::initializer_list<std::pair<const std::string, WitnessLaunch<Problem>>> witnesses) {
  for (const auto& witness : witnesses) registered_witnesses<Problem>().insert(witness);
  return true;
}

// The witness of step `id`, or launcher == nullptr when none is linked (a student's build).
template <typename Problem>
WitnessLaunch<Problem> witness_of(const std::string& id) {
  const auto found = registered_witnesses<Problem>().find(id);
  return found == registered_witnesses<Problem>().end() ? WitnessLaunch<Problem>{} : found->second;
}

}  // namespace workbook
