#!/usr/bin/env bash
# `grade` checks the code it grades for vendor libraries, in every copy: in a student's copy (no
# solutions/) whose 04.1 launcher calls cuBLAS and launches an empty kernel through
# workbook::launch, 04.1 fails naming the cuBLAS calls, and 04.2 does not. CPU only (the GPU is
# hidden: the results file still carries each step's reason); about a minute of building.
#   test_vendor_in_grade.sh SOURCE_DIR
set -u
source_dir=$1
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
(cd "$source_dir" && tar --exclude=./build --exclude=./results --exclude=./.git --exclude=./.scratch --exclude=./solutions \
   -cf - .) | (cd "$copy" && tar -xf -)
python3 - "$copy/labs/04_sgemm/sgemm.cu" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
start = text.index("void sgemm_coalesced(")
end = text.index("\n}\n", start) + 3
cheat = """namespace { __global__ void empty_kernel() {} }
void sgemm_coalesced(const GemmProblem& p, cudaStream_t stream) {
  static cublasHandle_t handle = nullptr;
  if (handle == nullptr) cublasCreate(&handle);
  cublasSetStream(handle, stream);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one, p.b, p.n, p.a, p.k, &zero, p.c, p.n);
  workbook::launch(empty_kernel, dim3(1), dim3(32), 0, stream);
}
"""
text = text[:start] + cheat + text[end:]
text = text.replace('#include "sgemm.h"\n', '#include "sgemm.h"\n#include <cublas_v2.h>\n', 1)
open(path, "w").write(text)
PY
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 04.1 04.2 --json r.json) >"$copy/log" 2>&1 || status=$?
vendor=$(grep -o '"name": "04_sgemm 04.1[^}]*' "$copy/r.json" 2>/dev/null)
other=$(grep -o '"name": "04_sgemm 04.2[^}]*' "$copy/r.json" 2>/dev/null)
if [ "$status" -eq 77 ] && [[ "$vendor" == *'[vendor] this step'*'cublasSgemm_v2'* ]] && [[ "$other" != *'[vendor]'* ]]; then
  echo "ok: 04.1 fails for its cuBLAS calls, 04.2 does not"
  exit 0
fi
echo "FAIL: grade exited $status; 04.1: $vendor; 04.2: $other"
tail -n 15 "$copy/log"
exit 1
