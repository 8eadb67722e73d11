#!/usr/bin/env python3
"""bench/library_vs_peers.py compares the library at the peers' group size:
the example also runs 4096x7168 at G = 128 after the contest's G = 64, and
that line must not stand in for the contest's."""
import json
import os
import subprocess
import sys
import tempfile

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")

EXAMPLE = """\
 4096 x 7168  g64  M 4  ok      13.95 us  max err 1.32e-04  tuned for sm_90: gen {}
 384 x 5120   g64  M 4  ok       3.92 us  max err 1.10e-04  tuned for sm_90: gen {}
 4096 x 7168  g128 M 4  ok      13.87 us  max err 1.59e-04  generic, by the rule
"""


def table(peers):
    with tempfile.TemporaryDirectory() as d:
        example, peers_path, out = (os.path.join(d, n) for n in ("example.txt", "peers.json", "out.md"))
        open(example, "w").write(EXAMPLE)
        json.dump(peers, open(peers_path, "w"))
        subprocess.run([sys.executable, os.path.join(BENCH, "library_vs_peers.py"), example, peers_path,
                        "4", out], check=True, stdout=subprocess.DEVNULL)
        return open(out).read()


def main():
    results = [{"shape": "4096x7168", "M": 4, "torch_int4_us": 15.63, "cublas_fp16_us": 21.85},
               {"shape": "384x5120", "M": 4, "torch_int4_us": 3.80, "cublas_fp16_us": 4.21}]
    # Files written before torch_peers.py recorded G: the contest's 64.
    text = table({"results": results})
    assert "| 4096x7168 | **13.95** | 15.63 | 21.85 | yes |" in text, text
    assert "| 384x5120 | 3.92 | 3.80 | 4.21 | no |" in text, text
    assert "| **sum** | 17.87 | 19.43 | 26.06 | 1 of 2 |" in text, text
    # Peers timed at G = 128 take the example's G = 128 line.
    text = table({"G": 128, "results": results[:1]})
    assert "| 4096x7168 | **13.87** |" in text, text
    # Inputs it cannot read: one line naming them, exit status 2, no traceback.
    with tempfile.TemporaryDirectory() as d:
        peers_path = os.path.join(d, "peers.json")
        json.dump({"results": results}, open(peers_path, "w"))
        for args, says in (([os.path.join(d, "none.txt"), peers_path], "none.txt: No such file or directory"),
                           ([peers_path, os.path.join(d, "none.json")], "none.json: No such file or directory"),
                           ([peers_path, peers_path.replace("peers", "cut")], "cut.json: No such file")):
            r = subprocess.run([sys.executable, os.path.join(BENCH, "library_vs_peers.py")] + args +
                               ["4", os.path.join(d, "out.md")], capture_output=True, text=True)
            assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r
        open(os.path.join(d, "cut.json"), "w").write('{"results": [')
        r = subprocess.run([sys.executable, os.path.join(BENCH, "library_vs_peers.py"), peers_path,
                            os.path.join(d, "cut.json"), "4", os.path.join(d, "out.md")], capture_output=True, text=True)
        assert r.returncode == 2 and 'cut.json: not a JSON file with a "results" list' in r.stderr, r
    print("ok")


if __name__ == "__main__":
    main()
