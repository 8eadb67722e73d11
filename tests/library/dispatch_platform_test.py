#!/usr/bin/env python3
"""The libraries' tuned-entry table (kernels/common/kopt_dispatch_tables.inc
over a generated dispatch.inc) holds the AMD entries in an AMD build, where
the HIP platform macro is defined as hip::host defines it, and the NVIDIA
entries otherwise. Preprocessed only, with a dispatch.inc of one entry per
platform, so it needs no GPU toolchain.
Usage: dispatch_platform_test.py SOURCE_DIR [C++ compiler]"""
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
COMPILER = sys.argv[2] if len(sys.argv) > 2 else "c++"

# As `kopt export` writes it (agent/export_sources.cpp).
DISPATCH = """#if !defined(KOPT_AMD)
KOPT_ENTRY(entry_for_nvidia, "sm_90")
#endif
#if defined(KOPT_AMD)
KOPT_ENTRY(entry_for_amd, "gfx906")
#endif
#define KOPT_GENERIC_ENTRIES KOPT_GENERIC(entry_generic)
#define KOPT_GENERIC_RULE_DEVICE "none"
#define KOPT_GENERIC_PROBES
"""


def tuned_table(*defines):
    """The preprocessed initialiser of kopt_tuned_table, with these defines."""
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "dispatch.inc"), "w") as f:
            f.write(DISPATCH)
        open(os.path.join(root, "kopt_entry_pairs.inc"), "w").close()
        with open(os.path.join(root, "tables.cpp"), "w") as f:
            f.write('#include "kopt_dispatch_tables.inc"\n')
        r = subprocess.run([COMPILER, "-E", "-P", "-DKOPT_HOST_PASS=1", *defines, "-I", root,
                            "-I", os.path.join(SOURCE_DIR, "kernels", "common"), os.path.join(root, "tables.cpp")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(r.stderr)
        text = " ".join(r.stdout.split())
        start = text.index("kopt_tuned_table[] = {")
        return text[start:text.index("};", start)]


class DispatchPlatformTest(unittest.TestCase):
    def test_an_amd_build_takes_the_amd_entries(self):
        table = tuned_table("-D__HIP_PLATFORM_AMD__=1")
        self.assertIn('{&entry_for_amd, "gfx906"}', table)
        self.assertNotIn("entry_for_nvidia", table)

    def test_an_nvidia_build_takes_the_nvidia_entries(self):
        table = tuned_table()
        self.assertIn('{&entry_for_nvidia, "sm_90"}', table)
        self.assertNotIn("entry_for_amd", table)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
