#!/usr/bin/env python3
"""Each library's tuned-entry table (kernels/common/kopt_dispatch_tables.inc
over its generated dispatch.inc, as `kopt export` wrote it) holds only that
platform's entries: the gfx* ones in an AMD build, where the HIP platform
macro is defined as hip::host defines it, and the sm_* ones otherwise.
Preprocessed only, so it needs no GPU toolchain.
Usage: dispatch_platform_test.py SOURCE_DIR [C++ compiler]"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
COMPILER = sys.argv[2] if len(sys.argv) > 2 else "c++"
LIBRARIES = ["w4a16_gemv", "w8a16_gemv"]


def tuned_targets(library, *defines):
    """The targets of the preprocessed kopt_tuned_table of a library's
    generated dispatch.inc, with these defines."""
    with tempfile.TemporaryDirectory() as root:
        # The build writes this table; the test needs only the tuned one.
        open(os.path.join(root, "kopt_entry_pairs.inc"), "w").close()
        with open(os.path.join(root, "tables.cpp"), "w") as f:
            f.write('#include "kopt_dispatch_tables.inc"\n')
        r = subprocess.run([COMPILER, "-E", "-P", "-DKOPT_HOST_PASS=1", *defines, "-I", root,
                            "-I", os.path.join(SOURCE_DIR, "kernels", library, "generated"),
                            "-I", os.path.join(SOURCE_DIR, "kernels", "common"), os.path.join(root, "tables.cpp")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(r.stderr)
        text = " ".join(r.stdout.split())
        start = text.index("kopt_tuned_table[] = {")
        return re.findall(r'\{&\w+, "(\w+)"\}', text[start:text.index("};", start)])


class DispatchPlatformTest(unittest.TestCase):
    def test_an_amd_build_takes_only_the_amd_entries(self):
        for library in LIBRARIES:
            targets = tuned_targets(library, "-D__HIP_PLATFORM_AMD__=1")
            self.assertTrue(targets, library)
            self.assertTrue(all(t.startswith("gfx") for t in targets), (library, targets))

    def test_an_nvidia_build_takes_only_the_nvidia_entries(self):
        for library in LIBRARIES:
            targets = tuned_targets(library)
            self.assertTrue(targets, library)
            self.assertTrue(all(t.startswith("sm_") for t in targets), (library, targets))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
