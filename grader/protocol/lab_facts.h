// A lab's facts, as a grader or judge states them to the runner (`--describe`, the runner's one
// question to a lab): the lab, its topic, the file a student writes, its steps in the steps table's
// order, the ncu metrics its profile reads, its benchmark's columns and, given a seed, the sizes it
// draws. One writer (the grader's, grader/harness/queries.cpp) and one reader (the runner's,
// grader/runner/checkout.cpp), both here: a line a fact, tab-separated, the first field naming it.
//   lab     02_memory
//   topic   memory
//   file    labs/02_memory/memory.cu
//   step    02.1  TITLE  BAR              (a line a step)
//   metrics A,B,...
//   columns A,B,...
//   sizes   TEXT                          (only when a seed was given)
// Plain C++.
#pragma once

#include <string>
#include <vector>

namespace workbook {

struct StepFacts {
  std::string id, title, bar;  // "04.1", "coalesced thread arrangement", ">= 6x, >= 8% of cuBLAS SGEMM"
};

struct LabFacts {
  std::string lab, topic, file;
  std::vector<StepFacts> steps;
  std::string metrics, columns, sizes;
};

std::string facts_text(const LabFacts& facts);
// A step's line as --list-steps prints it, "ID<tab>TITLE<tab>BAR": the same fields as a step's fact.
StepFacts step_from_line(const std::string& line);
// Throws std::invalid_argument where the text names no lab or no step.
LabFacts facts_from_text(const std::string& text);

}  // namespace workbook
