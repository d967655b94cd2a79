// Host-code mutant (judged): the first launcher call starts a chain of 64 processes, each in a
// session of its own and each handed to a new parent (a middle process that exits at once) before
// the next is started, and each spinning on a CPU: a judge that found them one by one gave up after
// 5 s with all 64 alive, and in grade-class they ran on through the next students' gradings. The
// planner's processes live in a PID namespace of its own, and all end when it does. Its copy is
// honest: its verdicts must be its honest copy's, and no process of it outlives the grading.
#include <unistd.h>

#include "every_step.h"
#include "honest_copy.cuh"

namespace {

[[noreturn]] void link_of_the_chain(int left) {
  setsid();
  if (left > 1 && fork() == 0) {
    if (fork() == 0) link_of_the_chain(left - 1);
    _exit(0);
  }
  for (int fd = 0; fd < 3; ++fd) close(fd);
  for (;;) __asm__ volatile("");  // a CPU kept busy, as long as it lives
}

}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  static const bool started = [] {  // the defect
    if (fork() == 0) link_of_the_chain(64);
    return true;
  }();
  (void)started;
  honest_copy(p, p.n, stream);
}
