#!/usr/bin/env python3
"""The build's table of entries built for every dtype pair (kopt_entry_pairs
in cmake/KoptLibrary.cmake) lists exactly the generated entries whose kernel
source uses both dtype hooks, and every tuned NVIDIA entry of kopt_w4a16
and kopt_w8a16 is among them (the shipped kernels all read x and write y
through the hooks, so one fp16 or bf16 row runs them without conversions).
Only the entries the NVIDIA build compiles count: a tuned entry whose
targets in MANIFEST.json are all AMD (gfx*) is left out of it, pairs and
all (kopt_platform_kernels).
Usage: entry_pairs_test.py SOURCE_DIR BUILD_DIR (an NVIDIA build)"""
import json
import os
import re
import sys

source_dir, build_dir = sys.argv[1], sys.argv[2]
problems = []
for library, folder in (("kopt_w4a16", "w4a16_gemv"), ("kopt_w8a16", "w8a16_gemv")):
    generated = os.path.join(source_dir, "kernels", folder, "generated")
    manifest = json.load(open(os.path.join(generated, "MANIFEST.json")))
    amd_only = {e["file"] for e in manifest["entries"]
                if e.get("targets") and not any(t.startswith("sm_") for t in e["targets"])}
    hooked = set()
    for name in sorted(os.listdir(generated)):
        if not name.endswith(".hip") or name in amd_only:
            continue
        marker = re.search(r"^// ---- candidate source: (\S+) ----$",
                           open(os.path.join(generated, name)).read(), re.M)
        if not marker:
            continue
        source = open(os.path.join(generated, marker.group(1))).read()
        # The code without its comments uses both hooks.
        code = re.sub(r"//[^\n]*|/\*.*?\*/", "", source, flags=re.S)
        if re.search(r"\bKOPT_X_PAIR\s*\(", code) and re.search(r"\bKOPT_Y_STORE\s*\(", code):
            hooked.add(f"{library}_entry_{name[:-4]}")
    table_file = os.path.join(build_dir, "kernels", folder, "api", "kopt_entry_pairs.inc")
    table = set(re.findall(r"^KOPT_ENTRY_PAIRS\((\w+)\)$", open(table_file).read(), re.M))
    if table - hooked:
        problems.append(f"{library}: entries in the table whose source lacks a hook: {sorted(table - hooked)}")
    if hooked - table:
        problems.append(f"{library}: entries with both hooks missing from the table: {sorted(hooked - table)}")
    dispatch = open(os.path.join(generated, "dispatch.inc")).read()
    nvidia = dispatch.split("#if defined(__HIP_PLATFORM_AMD__)")[0]
    tuned = set(re.findall(r'KOPT_ENTRY\((\w+), "sm_', nvidia))
    if not tuned or tuned - table:
        problems.append(f"{library}: tuned entries without builds for every pair: {sorted(tuned - table)}")
    print(f"{library}: {len(table)} entries built for every pair, "
          f"{len(tuned & table)} of {len(tuned)} tuned NVIDIA entries among them")
for p in problems:
    print("entry pairs:", p)
sys.exit(1 if problems else 0)
