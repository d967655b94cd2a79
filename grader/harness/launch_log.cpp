#include "workbook/launch_log.h"

namespace workbook {

std::vector<LaunchRecord>& recorded_launches() {
  static std::vector<LaunchRecord> launches;
  return launches;
}

void clear_recorded_launches() { recorded_launches().clear(); }

bool& planning_launches() {
  static bool planning = false;
  return planning;
}

}  // namespace workbook
