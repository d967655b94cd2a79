// A lab's proofs as a table: what each mutant of solutions/NN_topic/proofs/mutants/ is, and what
// the grader must do with it. Each lab writes its table once, in solutions/NN_topic/proofs/proofs.h
// (`inline const workbook::proofs::Table kProofs{...}`). The build compiles every file of mutants/
// (cmake/AddLab.cmake, add_lab_proofs: a library, its grader, and its planner unless it calls the
// grader's own code), and a control beside each file that has one (WORKBOOK_MUTANT_CONTROL); the
// lab's tests program (lab_tests.cpp) is compiled against this table and writes the tests it asks
// for. A defence is named by its enumerator, so a misspelt one does not compile; steps are ids,
// "02.1,02.3". Every test runs on the GPU (skipped without one) unless it says CPU.
#pragma once

#include <vector>

#include "harness/defences.h"

namespace workbook::proofs {

using Steps = const char*;  // step ids, comma-separated: "02.1,02.2"

// Cheats in one way that one defence (harness/defences.h) exists to catch, on the steps it is fast
// enough to clear, linked into its grader. With every defence on, each of those steps must fail
// naming the defence; with it off (--without), the mutant must clear them, or it proves nothing.
// `also_without`: defences off in both tests, where two defences catch one cheat (each is proved
// with the other off). `honest`: the mutant cheats on what other GPUs would do, not on speed (a
// block waiting on the order blocks start); with its defence off it must be graded as honest work
// (correct, no other defence tripped: it passes or misses its bar alone), since whether it is fast
// enough for the bar depends on the GPU, not on the defence.
struct DefenceMutant {
  const char* name;
  Defence defence;
  Steps steps;
  std::vector<Defence> also_without = {};
  bool honest = false;
};

// Shows that a mutant fails for its one named defect, not for something else in it: its file built
// again with WORKBOOK_MUTANT_CONTROL defined, which fixes only that defect (a fence put back, a word
// read whole), must pass the correctness of `steps` on the shapes --correctness-only checks (up to
// 2^20 + 1 ints in lab 06, where the look-back mutants fail for most seeds; the NOTES record the
// controls correct at every size when graded in full, where they then fail on speed alone).
struct Control {
  const char* mutant;
  Steps steps;
};

// Its #include lines leave the lab (include_mutants/<name>.cu, never compiled): a CPU test checks that
// `workbook_audit includes` refuses it with a finding that holds `finding`.
struct IncludeMutant {
  const char* name;
  const char* finding;
};

// Host code that cheats; judged, its tricks run in its planner, on nothing the judge measures: it
// must get its honest copy's verdicts (clear `clears`, fail `fails`), or, `reject`, fail every step
// (the planner refuses what it asks, e.g. a device-to-device copy).
struct HostMutant {
  const char* name;
  Steps clears = nullptr;
  Steps fails = nullptr;
  bool reject = false;
};

// Cheats in a way the trust boundary closes by itself, with no defence to catch it (work on a stream
// the timer does not see or left running past the call, launches past workbook::launch, someone
// else's kernels, the copy engines doing a kernel's work). Judged, it must gain nothing on `steps`:
// with `refusal` null, each is graded on its own kernels' time (passes or misses its bar, and trips
// no defence: work that escaped the timer would trip [ceiling]); else each fails with the
// planner's refusal, whose text is `refusal`.
struct BoundaryMutant {
  const char* name;
  Steps steps;
  const char* refusal = nullptr;
};

// Judged, as a student's file is. In `judged_defence_mutants`, a defence that works differently
// judged: one that reads the student's machine code ([block-order], [stage-reuse]: the judge reads
// the dump the build wrote of the file, machine_code.h), or the judge's replays ([work-launches]);
// each of `steps` must fail naming it. In `judged_closed_mutants`, a cheat one defence makes
// impossible rather than detects (inputs computed from a seed the judge no longer gives, state kept
// in the module's globals, set back before every call): with the defence on, each of `steps` must
// fail (for whatever its kernels then do: too slow); with it off (--without), the cheat must clear
// them. Or, where the cheat needs what only a grader's own process shows its code (the seed on its
// command line: a planner cannot see the judge's), the defence off is proved linked into its
// grader, where the trust boundary does not close it too: graded as honest work (correct, nothing
// tripped), and printing `proven_linked_by`, its word that the trick worked (mutant_word.sh), since
// whether the cheat is fast enough for the bar is the GPU's to say.
struct JudgedMutant {
  const char* name;
  Defence defence;
  Steps steps;
  const char* proven_linked_by = nullptr;
};

// Its kernels copy an answer the grader left in device memory (its baseline's or reference's product,
// in a scratch array). Judged with WORKBOOK_PROOF_SCRATCH_LOG, the judge tells its planner where the
// scratch arrays lie (buffers.cu), as no student is told. With every defence on it must be graded
// on its own kernels (--expect-honest: the scratch held another call's product, of inputs since
// drawn afresh); with [remembered-work] off (inputs kept) it copies this call's product and
// [ceiling] must catch it: so the copy works where an answer sits, and none sits within reach.
struct ResidueMutant {
  const char* name;
  Steps steps;
};

struct Table {
  // Wrong kernels: every step rejected, linked into their graders (a test a step) and, unless a
  // mutant calls the grader's own code (no planner links that), judged.
  std::vector<const char*> mutants = {};
  std::vector<Control> controls = {};
  std::vector<DefenceMutant> defence_mutants = {};
  std::vector<JudgedMutant> judged_defence_mutants = {};
  std::vector<IncludeMutant> include_mutants = {};
  std::vector<HostMutant> judged_host_mutants = {};
  std::vector<BoundaryMutant> boundary_mutants = {};
  std::vector<JudgedMutant> judged_closed_mutants = {};
  std::vector<ResidueMutant> residue_mutants = {};
  // Each names a mutant whose defect compute-sanitizer's tool finds: the tool runs on it (it must
  // report an error) and on the solution (it must report none), over the correctness half of
  // `sanitize_steps`, with exact-size allocations.
  const char* memcheck_mutant = nullptr;
  const char* racecheck_mutant = nullptr;
  const char* synccheck_mutant = nullptr;
  // The compiled solution's static checks (CPU): no spills, the starter's exported symbols the
  // solution's, and 16-byte loads and stores in the kernels whose demangled names hold a part here.
  std::vector<const char*> wide_loads = {};
  Steps sanitize_steps = nullptr;  // default: every step
  Steps repeat_steps = nullptr;    // judged 5 times with 5 seeds, the same verdicts; default: every step
};

}  // namespace workbook::proofs
