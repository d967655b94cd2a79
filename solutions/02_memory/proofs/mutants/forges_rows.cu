// Host-code mutant (the trust boundary): it writes a passing row for every step wherever a row could
// go, from a constructor before main() and again at every call: every inherited descriptor it
// might hold (a step's rows once came on 3), every rows file it can name from its folder, and its
// console as a scorecard would print it. Linked into a grader, such writes forged verdicts; judged,
// they happen in the planner, which holds no descriptor of the judge's or the runner's and owns none
// of their files. Its copy is honest: its verdicts must be its honest copy's, 02.4 and 02.6 failed.
// (3 and 4 are the planner's own requests and plans: a write there garbles its own plans and fails
// every step, which proves nothing about the rows, so it leaves them alone.)
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "every_step.h"
#include "honest_copy.cuh"

namespace {

const char* const kForgedRow =
    "02_memory\t02.4\tmany float4 at low occupancy\tPASS\tFORGED\n02_memory\t02.6\tthe copy engine\tPASS\tFORGED\n";
const char* const kForgedConsole =
    "PASS  02.4 many float4 at low occupancy: FORGED\nPASS  02.6 the copy engine: FORGED\n6 of 6 steps pass\n";

void forge_everywhere() {
  for (int fd = 0; fd < 64; ++fd) {
    if (fd == 3 || fd == 4) continue;
    const char* text = fd <= 2 ? kForgedConsole : kForgedRow;
    (void)!write(fd, text, std::strlen(text));
  }
  for (const char* path : {"rows.tsv", "grade-rows.tsv", "../rows.tsv", "../grade-rows.tsv", "../../grade-rows.tsv",
                           "../../../grade-rows.tsv", "../../results/grade-rows.tsv", "/dev/tty"}) {
    const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) continue;
    (void)!write(fd, kForgedRow, std::strlen(kForgedRow));
    close(fd);
  }
}

struct ForgesFirst {
  ForgesFirst() { forge_everywhere(); }
} forges_first;

}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  forge_everywhere();  // the defect
  honest_copy(p, p.n, stream);
}
