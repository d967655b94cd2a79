// Lab 05's proofs (proofs_table.h). The mutants are rejected on the H100 (NOTES.md): each wrong
// transform (FP16 points, a missing twiddle, conjugate twiddles, bit-reversed outputs) fails the
// FP32 tolerance on every step.
#pragma once

#include "proofs_table.h"

inline const workbook::proofs::Table kProofs{
    .mutants = {"half_precision", "missing_twiddle", "twiddle_sign", "bit_reversed_order", "fixed_sizes_only"},
    // Each cheats one way on steps it is fast enough to clear; without its defence it would.
    .defence_mutants = {{"replay_by_pointer", workbook::Defence::kRememberedWork, "05.1,05.2"}},
    // Closed by the trust boundary alone, judged: the side stream's FFT is replayed on the timed stream,
    // and the planner refuses the <<<>>> half of blocking_stream_split (half the batch on a blocking
    // stream of its own, joined by an event).
    .boundary_mutants = {{"side_stream", "05.1,05.2"}, {"blocking_stream_split", "05.1", "past workbook::launch"}},
};
