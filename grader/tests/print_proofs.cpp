// Prints a lab's proofs table (proofs.h, found on the include path: solutions/NN_topic/proofs/) as
// add_lab_proofs()'s arguments, one a line, for add_lab_proofs_from_table() (cmake/AddLab.cmake),
// which compiles and runs this at configure time. Host C++ only.
#include <iostream>
#include <string>

#include "proofs.h"  // the lab's kProofs
#include "proofs_table.h"

namespace {

using namespace workbook;
using namespace workbook::proofs;

std::string name(Defence defence) { return std::string(name_of(defence)); }

// A keyword and its values, where there are any.
template <typename Items, typename Line>
void section(const char* keyword, const Items& items, Line line) {
  if (items.empty()) return;
  std::cout << keyword << '\n';
  for (const auto& item : items) std::cout << line(item) << '\n';
}

void one(const char* keyword, const char* value) {
  if (value != nullptr) std::cout << keyword << '\n' << value << '\n';
}

}  // namespace

int main() {
  const Table& t = kProofs;
  section("MUTANTS", t.mutants, [](const char* mutant) { return std::string(mutant); });
  section("MUTANT_CONTROLS", t.controls, [](const Control& c) { return std::string(c.mutant) + "|" + c.steps; });
  section("DEFENCE_MUTANTS", t.defence_mutants, [](const DefenceMutant& m) {
    std::string spec = std::string(m.name) + "|" + name(m.defence) + "|" + m.steps;
    std::string also;
    for (Defence other : m.also_without) also += (also.empty() ? "" : ",") + name(other);
    if (!also.empty()) spec += "|" + also;
    if (m.honest) spec += "|honest";
    return spec;
  });
  section("JUDGED_DEFENCE_MUTANTS", t.judged_defence_mutants,
          [](const JudgedMutant& m) { return std::string(m.name) + "|" + name(m.defence) + "|" + m.steps; });
  section("INCLUDE_MUTANTS", t.include_mutants,
          [](const IncludeMutant& m) { return std::string(m.name) + "|" + m.finding; });
  section("JUDGED_HOST_MUTANTS", t.judged_host_mutants, [](const HostMutant& m) {
    return m.reject ? std::string(m.name) + "|reject" : std::string(m.name) + "|" + m.clears + "|" + m.fails;
  });
  section("BOUNDARY_MUTANTS", t.boundary_mutants, [](const BoundaryMutant& m) {
    return std::string(m.name) + "|" + m.steps + "|" + (m.refusal == nullptr ? "honest" : m.refusal);
  });
  section("JUDGED_CLOSED_MUTANTS", t.judged_closed_mutants,
          [](const JudgedMutant& m) { return std::string(m.name) + "|" + name(m.defence) + "|" + m.steps; });
  section("RESIDUE_MUTANTS", t.residue_mutants,
          [](const ResidueMutant& m) { return std::string(m.name) + "|" + m.steps; });
  one("MEMCHECK_MUTANT", t.memcheck_mutant);
  one("RACECHECK_MUTANT", t.racecheck_mutant);
  one("SYNCCHECK_MUTANT", t.synccheck_mutant);
  section("WIDE_LOADS", t.wide_loads, [](const char* part) { return std::string(part); });
  one("SANITIZE_STEPS", t.sanitize_steps);
  one("REPEAT_STEPS", t.repeat_steps);
  return 0;
}
