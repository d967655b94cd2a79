// A lab's proofs as a table: what each mutant of solutions/NN_topic/proofs/mutants/ is, and what
// the grader must do with it. Each lab writes its table once, in solutions/NN_topic/proofs/proofs.h
// (`inline const workbook::proofs::Table kProofs{...}`); add_lab_proofs_from_table() (cmake/AddLab.cmake)
// compiles print_proofs.cpp against it at configure time and makes every target and test the
// table asks for (the meaning of each kind: add_lab_proofs() in cmake/AddLab.cmake). A defence is
// named by its enumerator, so a misspelt one does not compile; steps are ids, "02.1,02.3".
#pragma once

#include <vector>

#include "harness/defences.h"

namespace workbook::proofs {

using Steps = const char*;  // step ids, comma-separated: "02.1,02.2"

// Cheats one way, on steps it is fast enough to clear: with every defence on, each of those steps
// fails naming `defence`; with it off, it clears them (or, `honest`, is graded as honest work).
// `also_without`: defences off in both tests, where two catch one cheat.
struct DefenceMutant {
  const char* name;
  Defence defence;
  Steps steps;
  std::vector<Defence> also_without = {};
  bool honest = false;
};

// The mutant built again with its one defect fixed, which must then be correct on `steps`.
struct Control {
  const char* mutant;
  Steps steps;
};

// Its #include lines leave the lab: the #include check refuses it with a finding holding `finding`.
struct IncludeMutant {
  const char* name;
  const char* finding;
};

// Host code that cheats, judged: it gets its honest copy's verdicts (clears `clears`, fails
// `fails`), or, `reject`, fails every step.
struct HostMutant {
  const char* name;
  Steps clears = nullptr;
  Steps fails = nullptr;
  bool reject = false;
};

// Closed by the trust boundary alone, judged: on `steps`, graded on its own kernels' time
// (`refusal` null: "honest"), or failing with the planner's refusal, whose text is `refusal`.
struct BoundaryMutant {
  const char* name;
  Steps steps;
  const char* refusal = nullptr;
};

// A defence that works differently judged (JudgedDefence), or one that makes a cheat impossible
// rather than detects it (Closed): judged, each of `steps` fails (naming `defence`, for the first).
struct JudgedMutant {
  const char* name;
  Defence defence;
  Steps steps;
};

// Copies an answer the grader left in device memory, when told where it lies.
struct ResidueMutant {
  const char* name;
  Steps steps;
};

struct Table {
  std::vector<const char*> mutants = {};  // wrong kernels: every step rejected, linked and judged
  std::vector<Control> controls = {};
  std::vector<DefenceMutant> defence_mutants = {};
  std::vector<JudgedMutant> judged_defence_mutants = {};
  std::vector<IncludeMutant> include_mutants = {};
  std::vector<HostMutant> judged_host_mutants = {};
  std::vector<BoundaryMutant> boundary_mutants = {};
  std::vector<JudgedMutant> judged_closed_mutants = {};
  std::vector<ResidueMutant> residue_mutants = {};
  // Each names a mutant whose defect compute-sanitizer's tool finds.
  const char* memcheck_mutant = nullptr;
  const char* racecheck_mutant = nullptr;
  const char* synccheck_mutant = nullptr;
  std::vector<const char*> wide_loads = {};  // kernel-name parts whose kernels must use 16-byte loads and stores
  Steps sanitize_steps = nullptr;            // default: every step
  Steps repeat_steps = nullptr;              // default: every step
};

}  // namespace workbook::proofs
