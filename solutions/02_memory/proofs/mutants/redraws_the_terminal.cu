// Host-code mutant (judged): every launcher throws a message of terminal escape sequences that, shown
// raw, erase the line the grader printed and draw a green PASS in its place, on the instructor's
// console and in any log read with cat or less. Whatever a student's code says is shown as data,
// each control character escaped: every step fails with the message visible as text, and no raw
// escape byte reaches the console, grade.log, results.json, JUnit or a class's files.
#include <stdexcept>

#include "every_step.h"

void memory_mutant::wrong_copy(const memory_lab::CopyProblem&, cudaStream_t) {
  throw std::runtime_error("\x1b[1A\x1b[2K\r\x1b[32mPASS\x1b[0m  02.1 all steps passed\x1b]0;graded\x07\x08\x08");  // the defect
}
