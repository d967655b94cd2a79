#include "protocol/bars_profile.h"

#include <iomanip>
#include <stdexcept>

#include "protocol/config_lines.h"

namespace workbook {

namespace {

std::string two_decimals(double value) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(2) << value;
  return text.str();
}

}  // namespace

BarsProfile read_bars_profile(const std::string& path) {
  BarsProfile profile;
  for (const auto& [number, line] : config_lines(path, "bars profile")) {
    const std::string where = path + ":" + std::to_string(number) + ": ";
    std::istringstream fields(line);
    std::string step, extra;
    fields >> step;
    if (step == "reference") {
      std::string key;
      double value = 0;
      if (!(fields >> key >> value) || !(value > 0) || (fields >> extra))
        throw std::invalid_argument(where + "a reference line is reference KEY VALUE (VALUE > 0)");
      profile.reference_values[key] = value;
      continue;
    }
    std::size_t index = 0;
    CalibratedBar bar;
    if (!(fields >> index >> bar.min_speedup >> bar.min_percent_of_reference) || index == 0 || bar.min_speedup < 0 ||
        bar.min_percent_of_reference < 0 || (fields >> extra))
      throw std::invalid_argument(where + "a line is STEP INDEX MIN_SPEEDUP MIN_PERCENT_OF_REFERENCE (INDEX from 1)");
    std::vector<CalibratedBar>& of_step = profile.bars[step];
    if (of_step.size() < index) of_step.resize(index);
    of_step[index - 1] = bar;
  }
  return profile;
}

std::string bar_line(const std::string& step, std::size_t requirement_number, const CalibratedBar& bar) {
  return step + ' ' + std::to_string(requirement_number) + ' ' + two_decimals(bar.min_speedup) + ' ' +
         two_decimals(bar.min_percent_of_reference);
}

std::string reference_line(const std::string& key, double value) {
  return "reference " + key + ' ' + two_decimals(value);
}

}  // namespace workbook
