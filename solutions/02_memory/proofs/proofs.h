// Lab 02's proofs: each mutant of mutants/ and what the grader must do with it (proofs_table.h).
#pragma once

#include "proofs_table.h"

inline const workbook::proofs::Table kProofs{
    .mutants = {"skip_tail", "write_past_end", "first_call_only", "stores_before_landing", "fixed_sizes_only"},
    // The copy engine's two waits (02.6), each left out by one mutant and put back by its control.
    // Without the wait for a store to read its stage, the copy is right on the H100 (its copy engine
    // works in order): only the machine-code check [stage-reuse] can reject it.
    .controls = {{"stores_before_landing", "02.6"}, {"stage_reused_before_read", "02.6"}, {"decoy_launch", "02.1,02.4"}},
    // Each cheats one way on steps it is fast enough to clear; without its defence it would. The
    // ceiling backs the first up (a copy that gains anything is above cudaMemcpy at full occupancy),
    // so it is proved with it off; fast_elsewhere proves the ceiling itself, with [remembered-work] off:
    // its copy on a stream of its own is not ordered after the grader poisons the output, so that
    // check catches it too whenever the poison lands after the copy (on four H200s, 2026-11-28, in
    // every run: NOTES.md, "fast_elsewhere's proof of [ceiling], with [remembered-work] off").
    .defence_mutants =
        {
            {"partial_recompute", workbook::Defence::kRememberedWork, "02.1,02.2,02.3", {workbook::Defence::kCeiling}},
            {"clears_input", workbook::Defence::kInputChanged, "02.1,02.2"},
            {"writes_before_out", workbook::Defence::kGuard, "02.1,02.2"},
            {"fast_elsewhere", workbook::Defence::kCeiling, "02.1,02.2,02.3", {workbook::Defence::kRememberedWork}},
            {"stage_reused_before_read", workbook::Defence::kStageReuse, "02.6"},
            // A do-nothing kernel holding 254 registers beside a full-occupancy copy: the register-heaviest
            // launch once set the occupancy a step was judged at.
            {"decoy_launch", workbook::Defence::kWorkLaunches, "02.1,02.4"},
        },
    // Its defence reads machine code: judged, from the dump the build wrote beside the file's library.
    // The decoy, judged as a student's file is: the judge's replays are timed launch by launch too.
    // The same ring reusing its stages at the timed size alone: the check reads the timed
    // plans' kernels too.
    .judged_defence_mutants = {{"stage_reused_before_read", workbook::Defence::kStageReuse, "02.6"},
                               {"reuses_stages_only_when_timed", workbook::Defence::kStageReuse, "02.6"},
                               {"decoy_launch", workbook::Defence::kWorkLaunches, "02.1,02.4"}},
    // Each #include leaves the lab: the #include check refuses it before it is compiled.
    .include_mutants = {{"include_the_solution", "'..' leaves the folder"},
                        {"include_a_system_file", "an absolute path"},
                        {"include_by_macro", "a file named by a macro"},
                        {"include_the_grader", "a file of the workbook's own"},
                        {"include_a_protocol_header", "the grader's own header"},
                        {"include_a_harness_header_by_folder", "the grader's own header"}},
    // Host code that cheats (code before main and after the verdict, a process, a raw system call, an
    // interposed CUDA function, a side stream, rows forged from a constructor and at every call, a
    // grandchild left to rewrite files, pointer arithmetic from the launcher's argument, a grandchild
    // left to keep the GPU busy), judged: the tricks run in the planner, so each mutant's verdicts are
    // its honest copy's (02.1-02.3 cleared; 02.4 at 6.25% and 02.6 at one warp per SM, far short).
    .judged_host_mutants =
        {
            {"constructor_before_grading", "02.1,02.2,02.3", "02.4,02.6"},
            {"at_exit_after_grading", "02.1,02.2,02.3", "02.4,02.6"},
            {"forks_a_process", "02.1,02.2,02.3", "02.4,02.6"},
            {"interposes_cuda_events", "02.1,02.2,02.3", "02.4,02.6"},
            {"system_call_in_asm", "02.1,02.2,02.3", "02.4,02.6"},
            {"side_stream", "02.1,02.2,02.3", "02.4,02.6"},
            {"forges_rows", "02.1,02.2,02.3", "02.4,02.6"},
            {"outlives_its_step", "02.1,02.2,02.3", "02.4,02.6"},
            {"scribbles_by_pointer", "02.1,02.2,02.3", "02.4,02.6"},
            // 02.2's copy, and a process left behind to keep the GPU busy while the steps are timed:
            // a planner's processes can start no CUDA and are ended before timing, so it
            // gains nothing.
            {"keeps_the_gpu_busy", "02.1,02.2", "02.3,02.4,02.6"},
            // A copy whose kernel prints forged verdicts: the judge labels its prints. Its
            // printf costs it 02.3 (6.43x against 7.06x on an H200), a margin too thin to prove anything by.
            {"prints_like_the_grader", "02.1,02.2", "02.4,02.6"},
            // A launcher that reads the reference solution from the grading checkout and throws it:
            // the planner reads nothing of the checkout, finds nothing, copies honestly.
            {"reads_the_answer_key", "02.1,02.2,02.3", "02.4,02.6"},
            // A chain of 64 processes, each in a session of its own and handed to a new parent:
            // all end with the planner's PID namespace.
            {"chain_outlives_its_step", "02.1,02.2,02.3", "02.4,02.6"},
            // A copy that copies nothing once a word past its __device__ variable's end is set by an
            // earlier call: the judge sets the module's whole memory back, slots included.
            {"remembers_past_its_variable", "02.1,02.2,02.3", "02.4,02.6"},
            // Escape sequences thrown as a failure: shown as text, every step failed.
            {"redraws_the_terminal", nullptr, nullptr, true},
        },
    // Work the timer would not see, launches past workbook::launch, the grader's kernel and the copy
    // engines, each closed by the trust boundary alone, judged: a side stream's copy is replayed on the
    // timed stream (timed, so no faster than it is); a copy left running, <<<>>> (a quarter of the copy
    // on the legacy default stream), launches honest only while captured into a graph: the planner
    // refuses every launch past workbook::launch; it holds no kernel of the grader's to find by
    // address, and refuses every device-to-device copy.
    .boundary_mutants =
        {
            {"side_stream", "02.1,02.2,02.3"},
            {"left_running", "02.1,02.2,02.3", "past workbook::launch"},
            {"unrecorded_launch", "02.1,02.2,02.3,02.4", "past workbook::launch"},
            {"legacy_default_stream", "02.1,02.2,02.3", "past workbook::launch"},
            {"honest_when_captured", "02.1,02.2,02.3,02.4", "past workbook::launch"},
            {"foreign_kernel_by_address", "02.1,02.2,02.3"},
            {"copies_with_memcpy_async", "02.1,02.2,02.3", "may copy only from the host"},
        },
    // A probe that spins only where the output is still in L2, beside a copy at full occupancy: it set
    // the occupancy of the one call once timed launch by launch, the only one with no flush before it.
    .judged_closed_mutants = {{"spins_when_l2_is_warm", workbook::Defence::kCallsAlike, "02.1,02.4"}},
    .memcheck_mutant = "reads_past_end",
    .wide_loads = {"copy_vectors_kernel<float4", "copy_pipelined_kernel"},
};
