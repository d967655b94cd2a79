#!/usr/bin/env bash
# `grade` audits the host code it grades before running any of it (the host-code audit), in every
# copy: in a student's copy (no solutions/) whose 04.1 launcher calls cuBLAS and launches an empty
# kernel through workbook::launch, every step of lab 04 fails naming the cuBLAS import; and a
# submission whose file includes /etc/passwd is refused before the compiler reads it. CPU only
# (the GPU is hidden: the results file still carries each step's reason); a few minutes of building.
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
# Declared by hand, not included: the #include check would refuse <cublas_v2.h> before compiling;
# this cheat is for the object file's audit to find.
declarations = """extern "C" {
typedef struct cublasContext* cublasHandle_t;
typedef enum { CUBLAS_OP_N = 0 } cublasOperation_t;
int cublasCreate_v2(cublasHandle_t*);
int cublasSetStream_v2(cublasHandle_t, cudaStream_t);
int cublasSgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float*, const float*, int,
                   const float*, int, const float*, float*, int);
}
#define cublasCreate cublasCreate_v2
#define cublasSetStream cublasSetStream_v2
#define cublasSgemm cublasSgemm_v2
"""
text = text.replace('#include "sgemm.h"\n', '#include "sgemm.h"\n' + declarations, 1)
open(path, "w").write(text)
PY
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 04.1 04.2 --json r.json) >"$copy/log" 2>&1 || status=$?
vendor=$(grep -o '"name": "04_sgemm 04.1[^}]*' "$copy/r.json" 2>/dev/null)
other=$(grep -o '"name": "04_sgemm 04.2[^}]*' "$copy/r.json" 2>/dev/null)
failures=0
# Refused before anything ran: the verdicts are known without a GPU (exit 1, not 77).
if [ "$status" -eq 1 ] && [[ "$vendor" == *'[host-code] imports cublas'* ]] && [[ "$other" == *'[host-code] imports cublas'* ]]; then
  echo "ok: 04.1 and 04.2 fail for the lab's cuBLAS imports, unrun"
else
  echo "FAIL: grade exited $status; 04.1: $vendor; 04.2: $other"; tail -n 15 "$copy/log"; failures=$((failures + 1))
fi

mkdir -p "$copy/alice/labs/02_memory"
printf '#include "memory.h"\n#include "/etc/passwd"\n' >"$copy/alice/labs/02_memory/memory.cu"
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade --submission alice --json a.json) >"$copy/log" 2>&1 || status=$?
if [ "$status" -eq 1 ] && grep -q '\[host-code\] memory.cu:2: #include \\"/etc/passwd\\": an absolute path' "$copy/a.json" &&
   ! grep -q 'root:' "$copy/log"; then
  echo "ok: a submission that includes /etc/passwd is refused before the compiler reads it"
else
  echo "FAIL: grade --submission exited $status"; cat "$copy/a.json"; tail -n 15 "$copy/log"; failures=$((failures + 1))
fi
[ "$failures" -eq 0 ]
