#!/usr/bin/env bash
# The debug preset promises a synchronization after every launch: its CMake option must reach the
# compiler of every lab source as the define workbook::launch reads. Configures a scratch build
# with the option on (for sm_90, so no GPU is needed) and reads its compile commands.
#   test_sync_option.sh SOURCE_DIR
set -u
source_dir=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if ! cmake -S "$source_dir" -B "$scratch" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DWORKBOOK_SYNC_EVERY_LAUNCH=ON >"$scratch/configure.log" 2>&1; then
  tail -n 20 "$scratch/configure.log"
  echo "FAIL: could not configure"
  exit 1
fi
commands="$scratch/compile_commands.json"
total=$(grep -c '"command"' "$commands")
with_define=$(grep '"command"' "$commands" | grep -c -- '-DWORKBOOK_SYNC_EVERY_LAUNCH')
starter=$(grep '"command"' "$commands" | grep 'labs/02_memory/memory.cu' | grep -c -- '-DWORKBOOK_SYNC_EVERY_LAUNCH')
echo "$with_define of $total compile commands carry -DWORKBOOK_SYNC_EVERY_LAUNCH"
if [ "$total" -gt 0 ] && [ "$with_define" -eq "$total" ] && [ "$starter" -ge 1 ]; then echo "PASS"; exit 0; fi
echo "FAIL: the option does not reach every compile command"
exit 1
