// The grader's integrity defences, by class (docs/integrity.md is the threat model). Every failure
// a defence finds starts with its tag, e.g. "[remembered-work] ...", so that a student reads which
// rule was broken and the mutant tests can assert that the right defence caught their mutant.
// `--without=NAME` switches one class off: only the mutant tests use it, to prove that without the
// defence their mutant would have cleared the bars. Where a student's work runs and whose it is are
// not defences here: the trust boundary settles both (a judge replays only the plan's launches of the
// file's own kernels, on the stream it times; docs/integrity.md, part 1). Plain C++.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace workbook {

enum class Defence {
  kRememberedWork,  // fresh inputs and poisoned outputs before every timed run, every run's output checked
  kCeiling,         // no measurement faster than the same-run reference or the device's limits
  kPrecision,       // FP32 results within an FP32 tolerance, not a bound loose enough for TF32 or BF16
  kGuard,           // nothing written just before or just after an output
  kInputChanged,    // inputs come back unchanged
  kBlockOrder,      // blocks that wait for other blocks do not count on blocks starting in blockIdx order
  kStageReuse,      // shared memory that a copy-engine store reads is not loaded into before the store has read it
  kWorkLaunches,    // a bar's occupancy is that of the launches that take the call's time, not the register-heaviest's
  kSecretInputs,    // inputs drawn from a key nothing of the student's can read (off: from --seed, so that a proof's
                    // inputs repeat)
  kFreshModule,     // the student's module as it was loaded (its __device__ globals) at the start of every call
  kCallsAlike,      // every timed call flushed, prepared and timed launch by launch alike, so none can be told apart
};

inline constexpr std::array<Defence, 11> kAllDefences = {
    Defence::kRememberedWork, Defence::kCeiling,     Defence::kPrecision,  Defence::kGuard,
    Defence::kInputChanged,   Defence::kBlockOrder,  Defence::kStageReuse, Defence::kWorkLaunches,
    Defence::kSecretInputs,   Defence::kFreshModule, Defence::kCallsAlike};

constexpr std::string_view name_of(Defence defence) {
  switch (defence) {
    case Defence::kRememberedWork: return "remembered-work";
    case Defence::kCeiling: return "ceiling";
    case Defence::kPrecision: return "precision";
    case Defence::kGuard: return "guard";
    case Defence::kInputChanged: return "input-changed";
    case Defence::kBlockOrder: return "block-order";
    case Defence::kStageReuse: return "stage-reuse";
    case Defence::kWorkLaunches: return "work-launches";
    case Defence::kSecretInputs: return "secret-inputs";
    case Defence::kFreshModule: return "fresh-module";
    case Defence::kCallsAlike: return "calls-alike";
  }
  return "?";
}

inline std::optional<Defence> defence_named(std::string_view name) {
  for (Defence defence : kAllDefences)
    if (name_of(defence) == name) return defence;
  return std::nullopt;
}

// "[name] why": the form of every failure a defence reports.
inline std::string tagged(Defence defence, const std::string& why) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) about "[" + std::string(...).
  std::string text = "[";
  text += name_of(defence);
  text += "] ";
  text += why;
  return text;
}

// Whether a defence is on in this process (all are, unless a test switched one off).
bool defence_enabled(Defence defence);

}  // namespace workbook
