// Lab 01's proofs (proofs_table.h). Each mutant's defect is in one step, and its other steps fail
// cleanly as not its own.
#pragma once

#include "proofs_table.h"

inline const workbook::proofs::Table kProofs{
    // occupancy_from_the_api: 01.3's count asked of the CUDA API about kernels of its own;
    // the API knows only this GPU, and 01.3 also asks about other GPUs' SMs.
    .mutants = {"dead_chain", "sequential_chase", "registers_unrounded", "chains_one_after_another", "fixed_sizes_only",
                "occupancy_from_the_api"},
    .controls = {{"table_in_module", "01.4"}},
    // A memo in the module's __device__ globals, filled on the first call and read on every later one:
    // with the module set back before every call it fills it again every call, and fails
    // 01.4 on speed; its control, the solution's chains in the same module, is correct.
    .judged_closed_mutants = {{"table_in_module", workbook::Defence::kFreshModule, "01.4"}},
};
