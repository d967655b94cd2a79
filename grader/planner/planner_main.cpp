// main() of every planner, plan_<NN_topic>_<implementation>: the student's file (or the solution, a
// mutant) linked with this, the lab's list of functions (written by the build from the lab's header,
// grader/protocol/student_functions.cpp) and the
// planner's loop (planner.h), and nothing of the grader's judging code. It answers the judge's
// requests on descriptors 3 and 4 until the judge closes them. `--list` prints the functions it
// serves, one per line, for the test that checks the list against the student's file.
#include <cuda_runtime_api.h>

#include <cstring>
#include <exception>
#include <iostream>

#include "planner/planner.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const workbook::StudentFunction& function : workbook::lab_functions()) std::cout << function.name << '\n';
    return 0;
  }
  if (argc != 1) {
    std::cerr << "usage: " << argv[0] << " [--list]   (the judge starts it, with its requests on descriptor 3)\n";
    return 2;
  }
  // The launchers' stream: the default one. Nothing runs there (workbook::launch only records, and the
  // judge replays on its own stream), and it needs no CUDA context, which a planner cannot make: it
  // may make no ioctl (planner_process.h), and what a launcher asks of the runtime is asked of the
  // judge (planner_runtime.cpp). A step's judge makes the step's only context.
  const cudaStream_t stream = nullptr;
  try {
    workbook::serve_plans(3, 4, workbook::lab_functions(), stream);
  } catch (const std::exception& error) {
    std::cerr << "planner: " << error.what() << '\n';
    return 2;
  }
  return 0;
}
