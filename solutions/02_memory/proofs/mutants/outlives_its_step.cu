// Host-code mutant (the trust boundary): its first call leaves a grandchild behind, in a session of
// its own so that no signal to its parent's group reaches it, which wakes after the step's verdict
// and writes a passing row into every rows file it can name, then into every file of its folder's
// parents it can open. Nothing a step starts may outlive it: the runner ends what the step left, so
// the grandchild never wakes. Its copy is honest: its verdicts must be its honest copy's, 02.4 and
// 02.6 failed, and no file outside its own folder may change.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "every_step.h"
#include "honest_copy.cuh"

namespace {

void rewrite_later() {
  if (fork() != 0) return;  // the launcher goes on at once
  setsid();
  if (fork() != 0) _exit(0);  // the grandchild: its parent ended, it is nobody's child
  sleep(8);
  const char* const row = "02_memory\t02.4\tmany float4 at low occupancy\tPASS\tLINGERED\n";
  for (const char* path : {"rows.tsv", "grade-rows.tsv", "../grade-rows.tsv", "../../grade-rows.tsv",
                           "../../../grade-rows.tsv", "../../../class.csv", "../../../../class/class.csv",
                           "../../results.json", "../../grade.log"}) {
    const int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) continue;
    (void)!write(fd, row, std::strlen(row));
    close(fd);
  }
  _exit(0);
}

}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  static const bool left_behind = (rewrite_later(), true);  // the defect
  (void)left_behind;
  honest_copy(p, p.n, stream);
}
