#include "protocol/lab_facts.h"

#include <sstream>
#include <stdexcept>

namespace workbook {

std::string facts_text(const LabFacts& facts) {
  std::ostringstream text;
  text << "lab\t" << facts.lab << "\ntopic\t" << facts.topic << "\nfile\t" << facts.file << '\n';
  for (const StepFacts& step : facts.steps)
    text << "step\t" << step.id << '\t' << step.title << '\t' << step.bar << '\n';
  text << "metrics\t" << facts.metrics << "\ncolumns\t" << facts.columns << '\n';
  if (!facts.sizes.empty()) text << "sizes\t" << facts.sizes << '\n';
  return text.str();
}

StepFacts step_from_line(const std::string& line) {
  std::istringstream fields(line);
  StepFacts step;
  std::getline(fields, step.id, '\t');
  std::getline(fields, step.title, '\t');
  std::getline(fields, step.bar, '\t');
  return step;
}

LabFacts facts_from_text(const std::string& text) {
  LabFacts facts;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string fact, value;
    std::getline(fields, fact, '\t');
    std::getline(fields, value);
    if (fact == "lab") facts.lab = value;
    else if (fact == "topic") facts.topic = value;
    else if (fact == "file") facts.file = value;
    else if (fact == "metrics") facts.metrics = value;
    else if (fact == "columns") facts.columns = value;
    else if (fact == "sizes") facts.sizes = value;
    else if (fact == "step") facts.steps.push_back(step_from_line(value));
  }
  if (facts.lab.empty() || facts.steps.empty()) throw std::invalid_argument("no lab and no step described");
  return facts;
}

}  // namespace workbook
