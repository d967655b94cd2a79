// Host-code mutant (the trust boundary): from the address of its own argument it walks the memory
// above it (in a linked grader, the caller's frames: the step's state, its bars) and writes 0 over
// every double there that could be a bar or a measured ratio. Linked, one such write let a copy
// pass 02.4 at 1.00x; judged, its argument lives in the planner, and nothing of the judge's is in
// reach. Its copy is honest: its verdicts must be its honest copy's, 02.4 and 02.6 failed.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "every_step.h"
#include "honest_copy.cuh"

namespace {

// The frames above the launcher's, a few pages of them, as far as its stack goes.
constexpr std::uintptr_t kScribbledBytes = 16 * 1024;

std::uintptr_t end_of_mapping_holding(std::uintptr_t address) {
  std::ifstream maps("/proc/self/maps");
  std::uintptr_t low = 0, high = 0;
  char dash = 0;
  std::string rest;
  while (maps >> std::hex >> low >> dash >> high && std::getline(maps, rest))
    if (low <= address && address < high) return high;
  return address;
}

void scribble_above(const void* start) {
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(start) & ~std::uintptr_t{7};
  const std::uintptr_t last = std::min(first + kScribbledBytes, end_of_mapping_holding(first));
  for (std::uintptr_t place = first; place + sizeof(double) <= last; place += sizeof(double)) {
    double value;
    std::memcpy(&value, reinterpret_cast<const void*>(place), sizeof value);
    if (value >= 1.0 && value <= 1000.0) {
      const double zero = 0.0;
      std::memcpy(reinterpret_cast<void*>(place), &zero, sizeof zero);
    }
  }
}

}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  scribble_above(&p);  // the defect
  honest_copy(p, p.n, stream);
}
