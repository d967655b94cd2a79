#!/usr/bin/env bash
# Submissions unpack safely (grader/runner/unpack.py, ./workbook grade --submission): a setuid
# member is written without its mode, links, devices and FIFOs are skipped, a member that climbs
# out with '..' or an absolute name refuses the archive, and so do a zip that unpacks to 201 MB and
# an archive of too many files; each refusal says why, before anything is built. A member's name is
# said as data, its escape sequences written visibly (as_data.h). CPU only.
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
# Names that erase the line they are said on and write PASS over it, or hold bytes that are not UTF-8.
with tarfile.open(f"{d}/named.tar", "w", format=tarfile.GNU_FORMAT) as t:
    member(t, "labs/02_memory/memory.cu")
    member(t, "x\x1b[2K\rPASS", kind=tarfile.SYMTYPE, link="/etc/passwd")
    member(t, "y\udc9b2J", kind=tarfile.SYMTYPE, link="/etc/passwd")
with tarfile.open(f"{d}/named-climbs.tar", "w") as t:
    member(t, "../\x1b[2K\rPASS.cu")
with tarfile.open(f"{d}/many.tar", "w") as t:
    for i in range(10001):
        member(t, f"f{i}", data=b"")
PY
unpack="$root/grader/runner/unpack.py"
python3 "$unpack" "$scratch/hostile.tar" "$scratch/out" >"$scratch/said" 2>&1
check "a setuid member is written as a plain 0644 file" test "$(stat -c %a "$scratch/out/labs/02_memory/memory.cu" 2>/dev/null)" = 644
check "devices, FIFOs and links are skipped, and said so" \
  bash -c "[ ! -e '$scratch/out/null' ] && [ ! -e '$scratch/out/pipe' ] && [ ! -L '$scratch/out/labs/05_fft/fft.cu' ] && [ \$(grep -c '^skipped' '$scratch/said') -eq 3 ]"
python3 "$unpack" "$scratch/named.tar" "$scratch/named" >"$scratch/named-said" 2>&1
check "a skipped member's name is said as data, its escape sequence and its bytes that are not UTF-8 written visibly" \
  bash -c "grep -qxF 'skipped x\\x1b[2K\\rPASS (a link)' '$scratch/named-said' && grep -qxF 'skipped y\\x9b2J (a link)' '$scratch/named-said' &&
           ! LC_ALL=C grep -q \$'[\\033\\r\\x9b]' '$scratch/named-said'"
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
expect_refused named-climbs.tar '../\x1b[2K\rPASS.cu'
check "a refused member's name reaches the console as data" bash -c "! (cd '$scratch' && '$root/workbook' grade --submission named-climbs.tar 2>&1) | grep -q \$'[\\033\\r]'"
check "nothing was written outside the folder" test ! -e /tmp/workbook-absolute.cu -a ! -e "$scratch/../outside.cu"
echo "$failures failed"
[ "$failures" -eq 0 ]
