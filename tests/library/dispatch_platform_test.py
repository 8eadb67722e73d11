#!/usr/bin/env python3
"""Each library's tuned-entry table (kernels/common/kopt_dispatch_tables.inc
over its generated dispatch.inc, as `kopt export` wrote it) holds only that
platform's entries: the gfx* ones in an AMD build, where the HIP platform
macro is defined as hip::host defines it, and the sm_* ones otherwise; and
the files the platform's build leaves out (generated/platforms.cmake, which
kopt_problem_library reads) are those of no entry in its table.
Preprocessed only, so it needs no GPU toolchain.
Usage: dispatch_platform_test.py SOURCE_DIR [C++ compiler]"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
COMPILER = sys.argv[2] if len(sys.argv) > 2 else "c++"
LIBRARIES = ["w4a16_gemv", "w8a16_gemv"]


def tuned_entries(library, *defines):
    """The (entry file stem, target) pairs of the preprocessed
    kopt_tuned_table of a library's generated dispatch.inc, with these
    defines."""
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
        return re.findall(r'\{&\w+?_entry_(\w+), "(\w+)"\}', text[start:text.index("};", start)])


def tuned_targets(library, *defines):
    return [target for _, target in tuned_entries(library, *defines)]


def left_out(library, platform):
    """The files generated/platforms.cmake says the platform's build leaves out."""
    with open(os.path.join(SOURCE_DIR, "kernels", library, "generated", "platforms.cmake")) as f:
        m = re.search(r'set\(KOPT_LIBRARY_NOT_FOR_%s "([^"]*)"\)' % platform, f.read())
    if not m:
        raise AssertionError("%s: platforms.cmake names nothing for %s" % (library, platform))
    return set(filter(None, m.group(1).split(";")))


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

    def test_each_build_leaves_out_exactly_the_files_of_no_entry_in_its_table(self):
        for library in LIBRARIES:
            with open(os.path.join(SOURCE_DIR, "kernels", library, "generated", "MANIFEST.json")) as f:
                files = {e["file"] for e in json.load(f)["entries"]}
            for platform, defines in (("AMD", ["-D__HIP_PLATFORM_AMD__=1"]), ("NVIDIA", [])):
                served = {stem + ".hip" for stem, _ in tuned_entries(library, *defines)}
                self.assertEqual(left_out(library, platform), files - served, (library, platform))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
