#!/usr/bin/env bash
# The bars `./workbook list` shows are the bars grading asks: lab 02's starter grader lists 02.1's
# built-in bar (set on the H100) without a profile, and the profile's bar with --bars.
# usage: check_listed_bars.sh GRADE_02_MEMORY_STARTER H200_PROFILE
set -u
grader=$1 profile=$2
built_in=$("$grader" --list-steps | grep '^02\.1	')
profiled=$("$grader" --list-steps --bars="$profile" | grep '^02\.1	')
wanted=$(sed -nE 's/^02\.1 1 ([0-9.]+) .*/\1/p' "$profile" | head -n 1)
echo "built in: $built_in"
echo "profile:  $profiled"
[[ "$built_in" == *">= 1.76x"* ]] || { echo "FAIL: 02.1's built-in bar is not 1.76x"; exit 1; }
[[ -n "$wanted" && "$profiled" == *">= ${wanted}x"* ]] || { echo "FAIL: 02.1 listed with $profile is not its ${wanted}x"; exit 1; }
echo "ok: the listed bar follows the profile (${wanted}x, built in 1.76x)"
