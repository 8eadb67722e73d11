#!/usr/bin/env python3
"""Checks that every kernel an AMD build of the shipped libraries compiles
runs without scratch: compiles each source the build compiles for an AMD
target (BUILD/compile_commands.json) again as device code to assembly, one
target at a time, and reads each kernel's private segment and dynamic stack
from the code object's metadata. Scratch is per-lane memory in VRAM: on
gfx906 a kernel that spills there loses the bandwidth the GEMV lives on, so
the project ships none (the tuned entries are chosen so by `kopt export`;
this covers the rest too: the batched builds, the generic variants and every
dtype pair's build).

Usage: scripts/check-gfx906-scratch.py BUILD_DIR [--jobs N]
BUILD_DIR is an AMD build configured with -DKOPT_GPU_PLATFORM=AMD and
-DCMAKE_EXPORT_COMPILE_COMMANDS=ON. Exit 0: no kernel uses scratch; 1: one
does, or a source does not compile; 2: bad arguments or no such build."""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Options that name the compile's outputs (the check writes its own), and
# debug information, which changes no instruction and multiplies the text.
OUTPUT_OPTIONS_WITH_VALUE = {"-o", "-MT", "-MF", "-MQ"}
OUTPUT_FLAGS = {"-c", "-MD", "-MMD", "-g"}


def kernels_using_scratch(assembly):
    """(kernel, private segment bytes, uses a dynamic stack) of every kernel in
    the assembly's AMDGPU metadata that uses scratch, and how many kernels it
    lists. The metadata is YAML: under amdhsa.kernels a list item a kernel,
    its keys indented past the item's dash (deeper lines, such as its
    arguments' names, are not the kernel's); read without a YAML library."""
    listing = re.search(r"^amdhsa\.kernels:[ \t]*\n([ \t]*)- ", assembly, re.M)
    if not listing:
        return [], 0
    indent = listing.group(1)
    body = assembly[listing.start(1):]
    end = re.search(r"^\S", body, re.M)  # the next top-level key ends the list
    items = re.split(rf"^{indent}- ", body[:end.start()] if end else body, flags=re.M)[1:]
    found = []
    for item in items:
        # The item's first key sits on the dash's line: indent it as the others.
        keys = {}
        for line in (indent + "  " + item).splitlines():
            key = re.match(rf"^{indent}  (\.[\w.]+):\s*(\S*)", line)
            if key:
                keys[key.group(1)] = key.group(2)
        size = int(keys.get(".private_segment_fixed_size", "0") or 0)
        dynamic = keys.get(".uses_dynamic_stack") == "true"
        if size > 0 or dynamic:
            found.append((keys.get(".name", "?"), size, dynamic))
    return found, len(items)


def arguments(entry):
    """A compile_commands.json entry's command as a list of arguments."""
    return entry["arguments"] if "arguments" in entry else shlex.split(entry.get("command", ""))


def device_commands(entry, workdir):
    """One command per AMD target of a compile_commands.json entry: the same
    compile as device code only, to assembly, and where it writes it; []
    where the entry compiles nothing for an AMD target."""
    argv = arguments(entry)
    targets = [a.split("=", 1)[1] for a in argv if a.startswith("--offload-arch=gfx")]
    base, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in OUTPUT_OPTIONS_WITH_VALUE:
            skip = True
        elif a not in OUTPUT_FLAGS and not a.startswith("--offload-arch="):
            base.append(a)
    commands = []
    for target in targets:
        handle, out = tempfile.mkstemp(suffix=f"-{target}.s", dir=workdir)
        os.close(handle)
        commands.append((target, base + [f"--offload-arch={target}", "--cuda-device-only", "-S", "-o", out], out))
    return commands


def check(entry, workdir):
    """Lines to print for one source, and whether it passed."""
    lines, passed = [], True
    for target, argv, out in device_commands(entry, workdir):
        r = subprocess.run(argv, cwd=entry["directory"], capture_output=True, text=True)
        shown = os.path.relpath(entry["file"])
        where = f"{entry['file'] if shown.startswith('..') else shown} ({target})"
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["no message"])[-1]
            lines.append(f"FAIL {where}: does not compile: {last}")
            passed = False
            continue
        found, count = kernels_using_scratch(open(out, errors="replace").read())
        for name, size, dynamic in found:
            lines.append(f"SCRATCH {where}: {name} uses {size} bytes of scratch a lane"
                         + (" and a dynamic stack" if dynamic else ""))
            passed = False
        if not found:
            lines.append(f"ok {where}: {count} kernels, none with scratch")
    return lines, passed


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    database = os.path.join(args.build_dir, "compile_commands.json")
    if not os.path.isfile(database):
        print(f"check-gfx906-scratch: {database} is missing: configure the AMD build with "
              "-DKOPT_GPU_PLATFORM=AMD -DCMAKE_EXPORT_COMPILE_COMMANDS=ON", file=sys.stderr)
        return 2
    try:
        entries = json.load(open(database))
    except (OSError, ValueError) as e:
        print(f"check-gfx906-scratch: cannot read {database}: {e}", file=sys.stderr)
        return 2
    entries = [e for e in entries if any(a.startswith("--offload-arch=gfx") for a in arguments(e))]
    if not entries:
        print(f"check-gfx906-scratch: {database} compiles nothing for an AMD target", file=sys.stderr)
        return 2
    failed = 0
    with tempfile.TemporaryDirectory() as workdir, \
            concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for lines, passed in pool.map(lambda e: check(e, workdir), entries):
            for line in lines:
                print(line, flush=True)
            failed += 0 if passed else 1
    print(f"check-gfx906-scratch: {len(entries) - failed} of {len(entries)} sources without scratch")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
