// Lab 06's proofs (proofs_table.h). The mutants are rejected on the H100 (NOTES.md): the look-back
// races show in the grader's correctness cases, and each look-back mutant has a control, the same
// source with its one defect fixed, that must be correct. Tiles numbered by blockIdx.x never fail
// on a GPU that starts blocks in order: [block-order] reads the look-back step's machine code for
// blockIdx.
#pragma once

#include "proofs_table.h"

inline const workbook::proofs::Table kProofs{
    .mutants = {"divergent_everywhere", "drops_tail", "look_back_unfenced", "look_back_torn", "fixed_sizes_only"},
    .controls = {{"look_back_unfenced", "06.10"}, {"look_back_torn", "06.10"}, {"look_back_polls_with_cp_async", "06.10"}},
    // Each cheats one way on the steps with the hardest bars; without its defence it would clear them.
    // Tiles by blockIdx.x cheat on what other GPUs do, not on speed: without [block-order] it is graded
    // on its own time: it clears 06.10 on the H100 (NOTES), and missed it on an H200 (3.52x, the bar 3.81x).
    .defence_mutants =
        {
            {.name = "look_back_by_block_index", .defence = workbook::Defence::kBlockOrder, .steps = "06.10", .honest = true},
            // The same tiles by blockIdx.x, polling with cp.async (LDGSTS) and publishing with one strong
            // store: no atomic, no fence, no strong load.
            {.name = "look_back_polls_with_cp_async", .defence = workbook::Defence::kBlockOrder, .steps = "06.10", .honest = true},
            {"replay_by_pointer", workbook::Defence::kRememberedWork, "06.6", {workbook::Defence::kCeiling}},
        },
    // Its defence reads machine code: judged, from the dump the build wrote beside the file's library.
    .judged_defence_mutants = {{"look_back_by_block_index", workbook::Defence::kBlockOrder, "06.10"},
                               {"look_back_polls_with_cp_async", workbook::Defence::kBlockOrder, "06.10"}},
    // A sum that recovers the inputs' key from the ints it reads and keeps the next calls' sums in its
    // module, computed ahead: against the old generator (SplitMix64) and the old module reset it
    // cleared 06.6 (NOTES.md); now its search finds no key, it keeps nothing, and it fails every step.
    .judged_host_mutants = {{.name = "predicts_next_inputs", .reject = true}},
    // Judged, the side stream's sum and scan are replayed on the timed stream: the boundary closes it alone.
    .boundary_mutants = {{"side_stream", "06.6,06.10"}},
    .racecheck_mutant = "no_barrier_between_sweeps",
    .wide_loads = {"scan_look_back_kernel"},  // 16-byte loads and stores of whole tiles
    .sanitize_steps = "06.1,06.4,06.6,06.7,06.8,06.9,06.10",
};
