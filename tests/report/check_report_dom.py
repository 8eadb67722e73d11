#!/usr/bin/env python3
"""Checks a kopt report as a browser rendered it: the DOM Chromium dumped
(--dump-dom) and what Chromium logged while loading the page.

Usage: check_report_dom.py DOM_FILE CHROMIUM_LOG
Prints one line per finding; exit 1 when the page is not as a reader needs it.
"""
import re
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.plots, self.circles = set(), [], 0, 0
        self.tables, self.table_rows = {}, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])
        if tag == "svg" and "kopt-plot" in a.get("class", ""):
            self.plots += 1
        if tag == "circle":
            self.circles += 1
        if tag == "table":
            self.table_rows = a.get("class", "?")
            self.tables[self.table_rows] = 0
        if tag == "td" and self.table_rows is not None:
            self.tables[self.table_rows] += 1

    def handle_endtag(self, tag):
        if tag == "table":
            self.table_rows = None


def main():
    dom = open(sys.argv[1], encoding="utf-8").read()
    log = open(sys.argv[2], encoding="utf-8", errors="replace").read()
    page = Page()
    page.feed(dom)
    problems = []
    if page.plots < 3:
        problems.append(f"{page.plots} plots rendered, expected at least 3")
    if page.circles == 0:
        problems.append("no data point drawn in any plot")
    for table in ("best", "lineage", "failures", "proposers", "cost"):
        if page.tables.get(table, 0) == 0:
            problems.append(f"table '{table}' is missing or empty")
    broken = sorted(set(l for l in page.links if l not in page.ids))
    if broken:
        problems.append("links to nowhere: " + ", ".join("#" + b for b in broken))
    if not any(l.startswith("diff-") for l in page.links):
        problems.append("the lineage links no diff")
    console = [l for l in log.splitlines() if "CONSOLE" in l or "Uncaught" in l or "net::ERR" in l]
    if console:
        problems.append("console or load errors: " + " | ".join(console[:5]))
    for p in problems:
        print("report check:", p)
    print(f"report check: {page.plots} plots, {page.circles} points, {len(page.links)} links, "
          f"tables {dict(sorted(page.tables.items()))}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
