#include "harness/session.h"

#include <sys/random.h>

#include <stdexcept>

#include "harness/random.cuh"

namespace workbook {

Session& session() {
  static Session instance;
  return instance;
}

std::uint64_t Session::next_seed() {
  const std::uint64_t root = disabled.contains(Defence::kSecretInputs) ? seed : data_key;
  return seed_of_draw(root, ++draws);
}

void Session::start_drawing_for_a_step() {
  draws = 0;
  if (data_key_given) return;
  // The kernel's random source (getrandom): nothing of the student's sees it, and no two steps share a key.
  std::uint64_t key = 0;
  if (getrandom(&key, sizeof key, 0) != static_cast<ssize_t>(sizeof key))
    throw std::runtime_error("the grader could not draw a key for its inputs from the system's random source");
  data_key = key;
}

// A failed row names the defence that failed it, in a column of its own.
void record(const StepRow& row) {
  StepRow kept = row;
  if (kept.verdict == Verdict::kFail) kept.defence = defence_named_in(kept.reason);
  session().rows.push_back(kept);
}

}  // namespace workbook
