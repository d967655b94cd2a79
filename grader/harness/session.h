// State shared by all test cases in one grader process: the seed, the rows they record, and the
// benchmarks the lab registered.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report.h"

namespace workbook {

struct Session {
  std::uint64_t seed = 0;     // printed at start; --seed=N replays a run
  std::uint64_t draws = 0;
  std::vector<StepRow> rows;  // recorded by this process's test cases, printed at the end
  // --correctness-only: check results on small shapes and time nothing. For runs under
  // compute-sanitizer, which makes every kernel a hundred times slower.
  bool correctness_only = false;

  // A fresh seed for every input drawn, all derived from `seed`: one process runs one test case,
  // so the same --seed and test case draw the same inputs again.
  std::uint64_t next_seed() { return seed ^ (0x9E3779B97F4A7C15ull * ++draws); }
};

Session& session();
void record(const StepRow& row);

// `./workbook bench LAB` runs the lab's benchmark: the grader binary with --bench=CSV calls the
// function the lab registered, which writes its sweep to that CSV file.
using BenchFunction = void (*)(const std::string& csv_path);
bool register_bench(const char* lab, BenchFunction function);

}  // namespace workbook
