// Lab 04's proofs (proofs_table.h).
#pragma once

#include "proofs_table.h"

inline const workbook::proofs::Table kProofs{
    .mutants = {"no_sync", "drop_partial_tile", "accumulate", "calls_cublas", "no_landed_wait", "stage_freed_early",
                "fixed_sizes_only"},
    // 04.11's hand-over, each with one defect; its control (the defect fixed) must be correct.
    .controls = {{"no_landed_wait", "04.11"}, {"stage_freed_early", "04.11"}},
    // Each cheats one way on steps it is fast enough to clear; without its defence it would. See lab
    // 02's table.
    .defence_mutants =
        {
            {"replay_by_pointer", workbook::Defence::kRememberedWork, "04.1,04.2"},
            {"fast_elsewhere", workbook::Defence::kCeiling, "04.1,04.2", {workbook::Defence::kRememberedWork}},
            {"tf32_inputs", workbook::Defence::kPrecision, "04.1,04.2"},
            {"tf32_partial_sums", workbook::Defence::kPrecision, "04.1,04.2"},
            {"clears_a", workbook::Defence::kInputChanged, "04.1,04.2"},
            {"writes_before_c", workbook::Defence::kGuard, "04.1,04.2"},
        },
    // cuBLAS reached through dlopen (no relocation names it; calls_cublas, above, links it): judged, it
    // runs in the planner, on addresses of the judge's that mean nothing there; the judge replays only
    // the token kernel, and every step fails.
    .judged_host_mutants = {{.name = "dlopens_cublas", .reject = true}},
    // Closed by the trust boundary alone, judged: the side stream's GEMM is replayed on the timed
    // stream, and the planner refuses the <<<>>> launches (the second honest only while its stream is
    // captured into a graph).
    .boundary_mutants =
        {
            {"side_stream", "04.1,04.2"},
            {"unrecorded_launch", "04.1,04.2", "past workbook::launch"},
            {"honest_when_captured", "04.1,04.2", "past workbook::launch"},
        },
    // Told where the grader's own product lies (a scratch array its baseline and cuBLAS write), it
    // copies it: judged, the inputs drawn afresh before every timed call make that another call's.
    .residue_mutants = {{"told_where_the_product_is", "04.1,04.2"}},
    .racecheck_mutant = "no_sync",
    .synccheck_mutant = "divergent_barrier",
    .wide_loads = {"BlockedPolicy, true>"},  // 04.7, 04.8 and 04.9 on rows that start 16-byte aligned
};
