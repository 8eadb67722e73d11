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
        self.sizes = set()  # (width, height) of every plot: one size, so one type size
        self.plot_label, self.x_ticks, self.in_x_tick = None, {}, False
        self.details, self.text = 0, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])
        if tag == "svg" and "kopt-plot" in a.get("class", ""):
            self.plots += 1
            self.sizes.add((a.get("width"), a.get("height")))
            self.plot_label = a.get("aria-label", "")
            self.x_ticks[self.plot_label] = []
        self.in_x_tick = tag == "text" and a.get("class") == "tick" and a.get("text-anchor") == "middle"
        if tag == "details" and "best-source" in a.get("class", ""):
            self.details += 1
        if tag == "circle":
            self.circles += 1
        if tag == "table":
            self.table_rows = a.get("class", "?")
            self.tables[self.table_rows] = 0
        if tag == "td" and self.table_rows is not None:
            self.tables[self.table_rows] += 1

    def handle_data(self, data):
        self.text.append(data)
        if self.in_x_tick and self.plot_label is not None:
            self.x_ticks[self.plot_label].append(data.strip())
            self.in_x_tick = False

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
    if len(page.sizes) != 1 or None in next(iter(page.sizes), (None,)):
        problems.append(f"plots of several or no fixed sizes (type would differ): {page.sizes}")
    for label, ticks in page.x_ticks.items():
        if "against candidates" in label or "verified candidate of" in label:
            odd = [t for t in ticks if not re.fullmatch(r"\d+", t)]
            if odd:
                problems.append(f"'{label}': candidate ticks that are not whole numbers: {odd}")
        if "against wall time" in label and ticks and ticks[0] != "0":
            problems.append(f"'{label}': the time axis starts at {ticks[0]}, not 0")
    if page.details == 0:
        problems.append("no best kernel's source (a <details class=best-source>)")
    text = " ".join(page.text)
    for needed in ("Diff to the best seed", "cost (US$)"):
        if needed not in text:
            problems.append(f"'{needed}' is not on the page")
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
