#!/usr/bin/env python3
"""scripts/check-gfx906-scratch.py, which CI runs on the AMD build of the
shipped libraries: its reading of the AMDGPU metadata, the device-only
commands it derives from a build's compile_commands.json, and, where clang
and ROCm's device libraries are installed, a build of two kernels of which
one needs scratch: the check names that one and fails, and passes without
it. (CI sets KOPT_REQUIRE_AMD_TOOLCHAIN=1, so a missing toolchain fails
there instead of skipping.)"""
import contextlib
import importlib.util
import io
import json
import os
import shutil
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "check-gfx906-scratch.py")
spec = importlib.util.spec_from_file_location("check_gfx906_scratch", SCRIPT)
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

CLANG = "clang++-15"
DEVICE_LIBS = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"

# Two kernels as clang 15 writes them: arguments with names of their own
# (deeper than the kernel's keys), one kernel with a private segment, one
# with a dynamic stack, one with neither.
METADATA = """\t.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .name:           x
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .name:           spills
    .private_segment_fixed_size: 112
    .uses_dynamic_stack: false
  - .args:
      - .name:           y
        .offset:         0
        .size:           4
        .value_kind:     by_value
    .name:           calls_through_a_pointer
    .private_segment_fixed_size: 0
    .uses_dynamic_stack: true
  - .name:           clean
    .private_segment_fixed_size: 0
    .uses_dynamic_stack: false
amdhsa.target:   amdgcn-amd-amdhsa--gfx906
amdhsa.version:
  - 1
  - 1
...
\t.end_amdgpu_metadata
"""

CLEAN_KERNEL = """#include <hip/hip_runtime.h>
__global__ void clean(float* y, int n) { if ((int)threadIdx.x < n) y[threadIdx.x] = 1.f; }
"""
# A local array indexed at run time stays in memory: scratch on gfx906.
SPILLING_KERNEL = """#include <hip/hip_runtime.h>
__global__ void spills(float* y, const int* at) {
  float a[256];
  for (int i = 0; i < 256; ++i) a[i] = y[i * blockDim.x + threadIdx.x];
  y[threadIdx.x] = a[at[threadIdx.x] & 255];
}
"""


def toolchain_present():
    return (shutil.which(CLANG) is not None and os.path.isdir(DEVICE_LIBS)
            and os.path.exists("/usr/include/hip/hip_runtime.h"))


class MetadataTest(unittest.TestCase):
    def test_finds_the_kernels_with_a_private_segment_or_a_dynamic_stack(self):
        found, count = check.kernels_using_scratch("\tv_mov_b32 v0, 0\n" + METADATA)
        self.assertEqual(count, 3)
        self.assertEqual(found, [("spills", 112, False), ("calls_through_a_pointer", 0, True)])

    def test_assembly_without_kernels_lists_none(self):
        self.assertEqual(check.kernels_using_scratch("\t.text\n; no metadata\n"), ([], 0))


class DeviceCommandsTest(unittest.TestCase):
    def test_one_device_only_assembly_per_amd_target_without_the_builds_outputs(self):
        entry = {"directory": "/b", "file": "/s/k.hip",
                 "command": "clang++-15 -DX=1 -g -x hip --offload-arch=gfx906 --offload-arch=gfx90a "
                            "-MD -MT k.o -MF k.o.d -o k.o -c /s/k.hip"}
        with tempfile.TemporaryDirectory() as workdir:
            commands = check.device_commands(entry, workdir)
            self.assertEqual([t for t, _, _ in commands], ["gfx906", "gfx90a"])
            for target, argv, out in commands:
                self.assertEqual(argv[-4:], ["--cuda-device-only", "-S", "-o", out])
                self.assertEqual([a for a in argv if a.startswith("--offload-arch")],
                                 [f"--offload-arch={target}"])
                for gone in ("-c", "-MD", "-MT", "-MF", "k.o", "k.o.d", "-g"):
                    self.assertNotIn(gone, argv)
                self.assertIn("-DX=1", argv)
                self.assertIn("/s/k.hip", argv)
                self.assertTrue(out.startswith(workdir))
            self.assertEqual(len({out for _, _, out in commands}), 2)

    def test_an_entry_without_an_amd_target_gives_no_command(self):
        entry = {"directory": "/b", "file": "/s/a.cpp", "arguments": ["c++", "-c", "/s/a.cpp", "-o", "a.o"]}
        with tempfile.TemporaryDirectory() as workdir:
            self.assertEqual(check.device_commands(entry, workdir), [])


def run_check(build_dir):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = check.main([build_dir, "--jobs", "2"])
    return code, out.getvalue()


class BuildTest(unittest.TestCase):
    def setUp(self):
        if not toolchain_present():
            if os.environ.get("KOPT_REQUIRE_AMD_TOOLCHAIN") == "1":
                self.fail(f"KOPT_REQUIRE_AMD_TOOLCHAIN=1 but {CLANG} or ROCm's device libraries are missing")
            self.skipTest(f"no {CLANG} with ROCm's device libraries here")

    def write_build(self, root, sources):
        entries = []
        for name, text in sources.items():
            path = os.path.join(root, name)
            with open(path, "w") as f:
                f.write(text)
            entries.append({"directory": root, "file": path,
                            "command": f"{CLANG} -x hip --rocm-path=/usr --rocm-device-lib-path={DEVICE_LIBS} "
                                       f"--offload-arch=gfx906 -O3 -o {name}.o -c {path}"})
        with open(os.path.join(root, "compile_commands.json"), "w") as f:
            json.dump(entries, f)

    def test_names_the_kernel_that_spills_and_fails(self):
        with tempfile.TemporaryDirectory() as root:
            self.write_build(root, {"clean.hip": CLEAN_KERNEL, "spills.hip": SPILLING_KERNEL})
            code, out = run_check(root)
            self.assertEqual(code, 1, out)
            scratch = [line for line in out.splitlines() if line.startswith("SCRATCH")]
            self.assertEqual(len(scratch), 1, out)
            self.assertIn("spills.hip (gfx906): ", scratch[0])
            self.assertIn("spills", scratch[0].split(": ", 1)[1])
            self.assertIn("1 of 2 sources without scratch", out)

    def test_passes_a_build_without_scratch(self):
        with tempfile.TemporaryDirectory() as root:
            self.write_build(root, {"clean.hip": CLEAN_KERNEL})
            code, out = run_check(root)
            self.assertEqual(code, 0, out)
            self.assertIn("1 kernels, none with scratch", out)

    def test_a_source_that_does_not_compile_fails(self):
        with tempfile.TemporaryDirectory() as root:
            self.write_build(root, {"broken.hip": CLEAN_KERNEL + "this is not C++\n"})
            code, out = run_check(root)
            self.assertEqual(code, 1, out)
            self.assertIn("FAIL", out)


class ArgumentsTest(unittest.TestCase):
    def test_a_folder_without_compile_commands_is_refused_in_one_line(self):
        with tempfile.TemporaryDirectory() as root:
            code, out = run_check(root)
            self.assertEqual(code, 2)
            self.assertEqual(len(out.strip().splitlines()), 1, out)
            self.assertIn("CMAKE_EXPORT_COMPILE_COMMANDS", out)


if __name__ == "__main__":
    unittest.main()
