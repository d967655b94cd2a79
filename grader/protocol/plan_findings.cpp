#include "protocol/plan_findings.h"

#include <regex>

namespace workbook {

namespace {
constexpr std::string_view kMark = "[workbook] plan-check: ";
}  // namespace

std::string plan_finding_line(const PlanFinding& finding) {
  std::string steps;
  for (const std::string& id : finding.steps) steps += (steps.empty() ? "" : ", ") + id;
  std::string what = finding.what;
  for (char& c : what)
    if (c == '\n' || c == '\r') c = ' ';  // one line, whatever the launcher threw
  return std::string(kMark) + steps + ": " + what;
}

std::optional<PlanFinding> plan_finding_from_line(std::string_view line) {
  if (!line.starts_with(kMark)) return std::nullopt;
  static const std::regex finding(R"(^([0-9]{2}\.[0-9]+(?:, [0-9]{2}\.[0-9]+)*): (.*)$)");
  const std::string rest(line.substr(kMark.size()));
  std::smatch m;
  if (!std::regex_match(rest, m, finding)) return std::nullopt;
  PlanFinding found;
  static const std::regex id("[0-9]{2}\\.[0-9]+");
  const std::string steps = m[1].str();
  for (auto it = std::sregex_iterator(steps.begin(), steps.end(), id); it != std::sregex_iterator(); ++it)
    found.steps.push_back(it->str());
  found.what = m[2].str();
  return found;
}

}  // namespace workbook
