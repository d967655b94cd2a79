// main() of every planner, plan_<NN_topic>_<implementation>: the student's file (or the solution, a
// mutant) linked with this, the lab's list of functions (grader/labs/NN_topic/planner.cpp) and the
// planner's loop (planner.h), and nothing of the grader's judging code. It answers the judge's
// requests on descriptors 3 and 4 until the judge closes them. `--list` prints the functions it
// serves, one per line, for the test that checks the list against the student's file.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstring>
#include <exception>
#include <iomanip>
#include <iostream>

#include "planner.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const workbook::StudentFunction& function : workbook::lab_functions()) std::cout << function.name << '\n';
    return 0;
  }
  if (argc != 1) {
    std::cerr << "usage: " << argv[0] << " [--list]   (the judge starts it, with its requests on descriptor 3)\n";
    return 2;
  }
  // The launchers' own stream: a real one where there is a GPU (a launcher may ask about it), none
  // where there is not (only host-only functions are asked for there).
  const auto began = std::chrono::steady_clock::now();
  cudaStream_t stream = nullptr;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  // Making it is the planner's CUDA start-up, which overlaps the judge's: said in the step's log, as a
  // step starts two CUDA contexts on one GPU, and a class graded on several GPUs starts many at once.
  std::cerr << "[workbook] the planner's CUDA start-up: " << std::fixed << std::setprecision(2)
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() << " s\n"
            << std::defaultfloat;
  try {
    workbook::serve_plans(3, 4, workbook::lab_functions(), stream);
  } catch (const std::exception& error) {
    std::cerr << "planner: " << error.what() << '\n';
    return 2;
  }
  return 0;
}
