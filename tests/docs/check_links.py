#!/usr/bin/env python3
"""The README stays a page (at most 150 lines) and every relative link in
the project's Markdown (README, docs/, PERFORMANCE.md, SECURITY.md) leads to
a file that exists, and to a heading that exists where it names one.
Usage: check_links.py SOURCE_DIR"""
import os
import re
import sys

root = sys.argv[1]
failures = []
readme = os.path.join(root, "README.md")
lines = open(readme, encoding="utf-8").read().count("\n")
if lines > 150:
    failures.append(f"README.md has {lines} lines (at most 150: the rest belongs in docs/)")

pages = [readme, os.path.join(root, "PERFORMANCE.md"), os.path.join(root, "SECURITY.md")]
pages += [os.path.join(root, "docs", f) for f in sorted(os.listdir(os.path.join(root, "docs"))) if f.endswith(".md")]


def anchors(path):
    """GitHub's heading anchors of a Markdown file."""
    out = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#+\s+(.*)", line)
        if m:
            a = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(a)
    return out


for page in pages:
    text = open(page, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        where = os.path.relpath(page, root)
        if not os.path.exists(full):
            failures.append(f"{where}: link to {target}: no such file")
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            failures.append(f"{where}: link to {target}: no such heading")

for f in failures:
    print(f)
print(f"{len(pages)} pages checked, {len(failures)} problems")
sys.exit(1 if failures else 0)
