#!/usr/bin/env bash
# Renders `kopt report` of a fixture database in headless Chromium, as a
# reader would open it from disk, checks the page (plots, filled tables,
# links that resolve, no console errors) and keeps a screenshot.
# Usage: report_in_browser.sh BUILD_DIR SOURCE_DIR OUT_DIR   (exit 77: skipped)
set -euo pipefail
build=$1 source=$2 out=$3
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skipped: no chromium (scripts/install-deps.sh installs Debian's)"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
# The fixture: a short run on the host fake (seeds, mutator children, an
# unsupported shape or two), then the report of it.
# The first seed whose best kernel is a mutator child (parameters set, so
# it has a parent and the lineage a diff): which seed that is changes with
# the seeds and the mutator, so it is searched, not fixed.
for seed in $(seq 1 40); do
  rm -f "$out/fixture.db"
  "$build/kopt" demo --budget 12 --seed "$seed" --db "$out/fixture.db" > "$out/demo.log" 2>&1
  grep -q '^best: candidate [0-9]* ([a-z]* {"' "$out/demo.log" && break
done
grep -q '^best: candidate [0-9]* ([a-z]* {"' "$out/demo.log" ||
  { echo "no demo seed in 1..40 gave a best kernel with a parent"; exit 1; }
"$build/kopt" report --db "$out/fixture.db" --out "$out/report"
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$out/profile"
       --enable-logging=stderr --v=0)
url="file://$out/report/index.html"
timeout 120 "$browser" "${flags[@]}" --dump-dom "$url" > "$out/dom.html" 2> "$out/chromium.log"
# Two widths: a laptop and a phone; each screenshot must be the window's size.
for size in 1280,2400 420,2400; do
  png="$out/report-${size%%,*}.png"
  timeout 120 "$browser" "${flags[@]}" --window-size=$size --screenshot="$png" "$url" \
    >/dev/null 2>> "$out/chromium.log"
  [ -s "$png" ] || { echo "no screenshot at $size"; exit 1; }
  got=$(python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(24); print('%d,%d' % struct.unpack('>II', d[16:24]))" "$png")
  [ "$got" = "$size" ] || { echo "screenshot at $size is $got"; exit 1; }
done
cp "$out/report-1280.png" "$out/report.png"
python3 "$source/tests/report/check_report_dom.py" "$out/dom.html" "$out/chromium.log"
echo "screenshot: $out/report.png"
