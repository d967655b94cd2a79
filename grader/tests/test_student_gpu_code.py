#!/usr/bin/env python3
"""A student's file is compiled to the build's GPU code, even under the compile's limits.

    test_student_gpu_code.py ROOT BUILD_DIR AUDIT

A student's file is compiled under grader/runner/limited.sh, whose memory limit is below what a
CUDA process needs to start: a compile that asks the GPU (nvcc's -arch=native) cannot see it there,
and nvcc falls back to its default architecture. This test
  1. finds no compile command in the build that asks the GPU (every one names its architectures);
  2. compiles, with the exact command the build uses for the GPU half of lab 04's student file (the
     fat binary the judge loads: cmake/StudentFile.cmake, _compile_students_file) and under limited.sh
     compile, a student's kernel that uses cp.async (lab 04's cp_async.cuh, sm_80 and later), and
     checks its fat binary carries the lab's GPU code (workbook_audit gpu-code);
  3. shows the check refuses nvcc's fallback: the same command with no architecture named.
CPU only: nothing runs on a GPU.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

STUDENT_KERNEL = r"""
// A student's 04.10-style copy of one tile through cp.async, as it would sit in labs/04_sgemm/sgemm.cu.
#include "cp_async.cuh"

__global__ void copy_tile_with_cp_async(const float* source, float* destination) {
  __shared__ alignas(16) float tile[256];
  sgemm_lab::copy_16_bytes(&tile[4 * threadIdx.x], source + 4 * threadIdx.x);
  sgemm_lab::commit_copies();
  sgemm_lab::wait_for_copies<0>();
  __syncthreads();
  destination[threadIdx.x] = tile[threadIdx.x];
}
"""

PLAIN_KERNEL = r"""
__global__ void add_one(float* x) { x[threadIdx.x] += 1.0f; }
"""

ASKS_THE_GPU = re.compile(r"(-arch[= ]|--gpu-architecture[= ])(native|all|all-major)\b")
ARCHITECTURE_FLAGS = re.compile(r"^(--generate-code=|-gencode|-arch=|--gpu-architecture=|-code=|--gpu-code=)")


def main():
    root, build_dir, audit = sys.argv[1:4]
    failures = []
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        commands = json.load(f)

    asking = [c["file"] for c in commands if ASKS_THE_GPU.search(c["command"])]
    if asking:
        failures.append("compile commands ask the GPU for their architectures (nvcc falls back to its default "
                        "under the compile's limits): " + ", ".join(asking[:5]))
    else:
        print(f"ok: none of the {len(commands)} compile commands asks the GPU for its architectures")

    student_file = os.path.join(root, "labs", "04_sgemm", "sgemm.cu")
    student = [c for c in commands if os.path.realpath(c["file"]) == os.path.realpath(student_file)
               and "lab04_sgemm_starter_gpu.dir" in c["command"]]
    if not student or " -fatbin" not in student[0]["command"]:
        print("FAIL: the build has no compile command for the GPU half of lab 04's student file (" + student_file +
              "), nvcc -fatbin")
        return 1
    argv = shlex.split(student[0]["command"])
    directory = student[0]["directory"]
    architectures = os.path.join(build_dir, "labs", "04_sgemm", "gpu_code.architectures")
    limited = os.path.join(root, "grader", "runner", "limited.sh")

    with tempfile.TemporaryDirectory() as scratch:
        def compile_as_student(source_text, name, keep_architectures):
            source = os.path.join(scratch, name + ".cu")
            with open(source, "w") as f:
                f.write(source_text)
            obj = os.path.join(scratch, name + ".o")
            command = []
            skip_next = False
            for i, word in enumerate(argv):
                if skip_next:
                    skip_next = False
                    continue
                if word == "-o":
                    command += ["-o", obj]
                    skip_next = True
                elif os.path.realpath(os.path.join(directory, word)) == os.path.realpath(student_file):
                    command.append(source)
                elif not keep_architectures and ARCHITECTURE_FLAGS.match(word):
                    continue
                else:
                    command.append(word)
            done = subprocess.run([limited, "compile"] + command, cwd=directory, capture_output=True, text=True)
            return obj, done

        def gpu_code(obj, name):
            return subprocess.run([audit, "gpu-code", "--object=" + obj, "--architectures=" + architectures,
                                   "--source=" + name], capture_output=True, text=True)

        obj, done = compile_as_student(STUDENT_KERNEL, "student_cp_async", keep_architectures=True)
        if done.returncode != 0:
            failures.append("a student's cp.async kernel does not compile under limited.sh with the build's flags:\n" +
                            done.stderr[-2000:])
        else:
            checked = gpu_code(obj, "student_cp_async.cu")
            if checked.returncode == 0:
                with open(architectures) as f:
                    print("ok: a student's cp.async kernel, compiled under limited.sh, carries the lab's GPU code "
                          "(CUDA architectures " + f.read().strip() + ")")
            else:
                failures.append("a student's cp.async kernel compiled under limited.sh lacks the lab's GPU code: " +
                                checked.stdout + checked.stderr)

        obj, done = compile_as_student(PLAIN_KERNEL, "student_default_arch", keep_architectures=False)
        if done.returncode != 0:
            failures.append("a plain kernel did not compile with nvcc's default architecture:\n" + done.stderr[-2000:])
        else:
            checked = gpu_code(obj, "student_default_arch.cu")
            if checked.returncode == 1 and "[gpu-code] student_default_arch.cu was compiled to" in checked.stdout:
                print("ok: nvcc's fallback is refused: " + checked.stdout.strip()[:160] + " ...")
            else:
                failures.append("the gpu-code check did not refuse nvcc's default architecture (exit " +
                                str(checked.returncode) + "): " + checked.stdout + checked.stderr)

    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
