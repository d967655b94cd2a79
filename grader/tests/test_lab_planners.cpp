// The labs' own planners (plan_<NN_topic>_<implementation>) answer a host-only function of the lab
// as the implementation answers it called directly, and give a starter's TODO back as one: 01.3's
// occupancy calculator and 06's workspace sizes, through the solution's planner and the starter's.
// Runs on the CPU (no kernel is launched); built where solutions/ is, as it links the solutions.
#include <doctest/doctest.h>

#include <cstddef>
#include <string>

#include "judge/planner_process.h"
#include "latency.h"
#include "reduce_scan.h"

TEST_CASE("lab planners: 01.3's calculator answers through the solution's planner as called directly") {
  workbook::PlannerProcess planner({WORKBOOK_PLANNER_01_SOLUTION});
  latency_lab::SmLimits h100;
  int compared = 0;
  for (int threads : {32, 96, 256, 1024})
    for (int registers : {16, 37, 64, 255})
      for (int shared : {0, 3000, 50000, 232448}) {
        const latency_lab::BlockShape block{threads, registers, shared};
        const latency_lab::Occupancy direct = latency_lab::occupancy_of(block, h100);
        const auto planned = workbook::planned_answer<latency_lab::Occupancy>(planner, "occupancy_of", block, h100);
        CHECK(planned.blocks == direct.blocks);
        CHECK(planned.warps == direct.warps);
        CHECK(planned.limiter == direct.limiter);
        ++compared;
      }
  CHECK(compared == 64);
}

TEST_CASE("lab planners: 06's workspace sizes through the solution's planner are the solution's own") {
  workbook::PlannerProcess planner({WORKBOOK_PLANNER_06_SOLUTION});
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{1} << 28}) {
    reduce_scan_lab::SumProblem shape;
    shape.n = n;
    CHECK(workbook::planned_answer<std::size_t>(planner, "reduce_workspace_bytes", shape) ==
          reduce_scan_lab::reduce_workspace_bytes(shape));
    CHECK(workbook::planned_answer<std::size_t>(planner, "scan_workspace_bytes", shape) ==
          reduce_scan_lab::scan_workspace_bytes(shape));
  }
}

TEST_CASE("lab planners: a starter's planner gives each TODO back as one") {
  workbook::PlannerProcess latency({WORKBOOK_PLANNER_01_STARTER});
  CHECK_THROWS_WITH_AS(workbook::planned_answer<latency_lab::Occupancy>(
                           latency, "occupancy_of", latency_lab::BlockShape{128, 32, 0}, latency_lab::SmLimits{}),
                       doctest::Contains("TODO(01.3)"), workbook::NotImplemented);
  workbook::PlannerProcess reduce({WORKBOOK_PLANNER_06_STARTER});
  CHECK_THROWS_WITH_AS(
      workbook::planned_answer<std::size_t>(reduce, "reduce_workspace_bytes", reduce_scan_lab::SumProblem{}),
      doctest::Contains("TODO(06.1)"), workbook::NotImplemented);
}
