// A "student's" host code for the planner test (test_planner_process.cpp): a function of each kind
// the judge asks a planner for, served on descriptors 3 and 4 as a lab's planner serves its own.
#include <cstddef>
#include <cstdio>
#include <stdexcept>

#include "planner.h"

namespace {

struct Shape {
  int rows = 0, cols = 0;
};
struct Occupancy {
  int blocks = 0;
  int limiter = 0;
};

std::size_t workspace_bytes(const Shape& shape) { return std::size_t(shape.rows) * shape.cols * 4 + 256; }

Occupancy occupancy_of(Shape shape, int threads) {
  std::printf("occupancy_of: a student's debugging line, on standard output\n");  // never on the plans' pipe
  std::fflush(stdout);
  return {threads / shape.cols, 2};
}

void todo_launcher(const Shape&, cudaStream_t) { throw workbook::NotImplemented("TODO(09.1) not implemented"); }

void refusing_launcher(const Shape& shape, cudaStream_t) {
  if (shape.rows <= 0) throw std::invalid_argument("rows must be positive");
}

std::size_t crashes(const Shape& shape) {
  volatile int* nowhere = nullptr;
  return static_cast<std::size_t>(*nowhere + shape.rows);
}

}  // namespace

int main() {
  workbook::serve_plans(3, 4,
                        {workbook::student_function("workspace_bytes", workspace_bytes),
                         workbook::student_function("occupancy_of", occupancy_of),
                         workbook::student_function("todo_launcher", todo_launcher),
                         workbook::student_function("refusing_launcher", refusing_launcher),
                         workbook::student_function("crashes", crashes)},
                        nullptr, [](const void*) -> std::string { return "no kernel is launched here"; });
  return 0;
}
