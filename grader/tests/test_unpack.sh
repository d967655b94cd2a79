#!/usr/bin/env bash
# Submissions unpack safely (grader/runner/unpack.py, ./workbook grade --submission): a setuid
# member is written without its mode, links, devices and FIFOs are skipped, a member that climbs
# out with '..' or an absolute name refuses the archive, and so do a zip that unpacks to 201 MB and
# an archive of too many files; each refusal says why, before anything is built. CPU only.
#   test_unpack.sh ROOT
set -u
root=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export WORKBOOK_RESULTS="$scratch/results"  # its gradings' results are this test's own
failures=0
check() {  # description condition...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
python3 - "$scratch" <<'PY'
import io, sys, tarfile, zipfile
d = sys.argv[1]
def member(t, name, data=b"// a lab file\n", mode=0o644, kind=tarfile.REGTYPE, link=""):
    info = tarfile.TarInfo(name); info.type = kind; info.mode = mode; info.linkname = link
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    t.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
with tarfile.open(f"{d}/hostile.tar", "w") as t:
    member(t, "labs/02_memory/memory.cu", mode=0o6755)
    member(t, "null", kind=tarfile.CHRTYPE)
    member(t, "pipe", kind=tarfile.FIFOTYPE)
    member(t, "labs/05_fft/fft.cu", kind=tarfile.SYMTYPE, link="/etc/passwd")
with tarfile.open(f"{d}/climbs.tgz", "w:gz") as t:
    member(t, "../../outside.cu")
with tarfile.open(f"{d}/absolute.tar", "w") as t:
    member(t, "/tmp/workbook-absolute.cu")
with zipfile.ZipFile(f"{d}/bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("labs/02_memory/memory.cu", b"\0" * (201 * 1024 * 1024))
with tarfile.open(f"{d}/many.tar", "w") as t:
    for i in range(10001):
        member(t, f"f{i}", data=b"")
PY
unpack="$root/grader/runner/unpack.py"
python3 "$unpack" "$scratch/hostile.tar" "$scratch/out" >"$scratch/said" 2>&1
check "a setuid member is written as a plain 0644 file" test "$(stat -c %a "$scratch/out/labs/02_memory/memory.cu" 2>/dev/null)" = 644
check "devices, FIFOs and links are skipped, and said so" \
  bash -c "[ ! -e '$scratch/out/null' ] && [ ! -e '$scratch/out/pipe' ] && [ ! -L '$scratch/out/labs/05_fft/fft.cu' ] && [ \$(grep -c '^skipped' '$scratch/said') -eq 3 ]"
check "a 205 KB zip is not unpacked to 201 MB" test "$(ls -s "$scratch/bomb.zip" | cut -d' ' -f1)" -lt 1024
expect_refused() {  # archive text
  local output status=0
  output=$(cd "$scratch" && "$root/workbook" grade --submission "$1" 2>&1) || status=$?
  check "$1 is refused before anything is built ($2)" bash -c "[ $status -eq 2 ] && [[ \"\$1\" == *'$2'* ]] && [[ \"\$1\" != *building* ]]" _ "$output"
}
expect_refused climbs.tgz "would be written outside the folder"
expect_refused absolute.tar "would be written outside the folder"
expect_refused bomb.zip "unpacks to more than 64 MiB"
expect_refused many.tar "more than 10000 entries"
check "nothing was written outside the folder" test ! -e /tmp/workbook-absolute.cu -a ! -e "$scratch/../outside.cu"
echo "$failures failed"
[ "$failures" -eq 0 ]
