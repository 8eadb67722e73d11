#!/usr/bin/env python3
"""bench/library_standing.py, the library at each M beside PyTorch's peers in
one run, on a fake example and fake peers: the (shape x M) table with the
peers beside each M, M=8 / M=1, the sums and counts, the files it keeps;
exit status 1 when a (shape, M) fails the 1e-2 check or has no result, and
one line with exit status 2, no traceback, when the example or a peer script
cannot be run or --rows is not a list of M from 1 to 16."""
import json
import os
import stat
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "library_standing.py")

# The fake example prints, for `--rows M`, a result line per shape in the
# harness's format (kernels/common/kopt_example_harness.h), plus one at
# G = 128 that must not stand in for the contest's G = 64.
FAKE_EXAMPLE = """\
import sys
times = {TIMES!r}
rows = int(sys.argv[2])
for shape, by_rows in times.items():
    verdict, us = by_rows[str(rows)]
    k, n = shape.split("x")
    print(f" {{k}} x {{n}}  g64  M {{rows}}  {{verdict}}  {{us:.2f}} us  max err 1.00e-05  tuned for sm_90: gen {{{{}}}}")
print(f" 4096 x 7168  g128 M {{rows}}  ok  99.00 us  max err 1.00e-05  generic, by the rule")
"""

# The fake peers write torch_peers.py's JSON for M = argv[2].
FAKE_PEERS = """\
import json, sys
peers = {PEERS!r}
json.dump({{"G": 64, "results": [{{"shape": s, "M": int(sys.argv[2]), "torch_int4_us": t, "cublas_fp16_us": c}}
                               for s, (t, c) in peers[sys.argv[2]].items()]}}, open(sys.argv[1], "w"))
"""

TIMES = {"4096x7168": {"1": ("ok", 6.0), "2": ("ok", 9.0), "8": ("ok", 18.0)},
         "384x5120": {"1": ("ok", 2.0), "2": ("ok", 3.0), "8": ("ok", 5.0)}}
PEERS = {"2": {"4096x7168": (12.0, 17.0), "384x5120": (3.5, 3.9)},
         "8": {"4096x7168": (24.0, 16.0), "384x5120": (4.6, 4.0)}}


def write(path, text):
    with open(path, "w") as f:
        f.write(f"#!{sys.executable}\n" + text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def run(d, times=TIMES, peers=PEERS, rows="1,2,8", peers_script=None, example=None, extra=()):
    if example is None:
        example = os.path.join(d, "example.py")
        write(example, FAKE_EXAMPLE.format(TIMES=times))
    if peers_script is None:
        peers_script = os.path.join(d, "peers.py")
        write(peers_script, FAKE_PEERS.format(PEERS=peers))
    out = os.path.join(d, "out")
    return subprocess.run([sys.executable, SCRIPT, "--example", example, "--out", out, "--rows", rows,
                           "--peers", peers_script, *extra], capture_output=True, text=True), out


def one_line_failure(r, says):
    assert r.returncode == 2, r
    assert says in r.stderr and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r


def main():
    with tempfile.TemporaryDirectory() as d:
        r, out = run(d)
        assert r.returncode == 0, r
        text = open(os.path.join(out, "standing.md")).read()
        assert text == r.stdout, r.stdout
        lines = text.splitlines()
        assert lines[0] == ("| shape | M=1 | M=2 | PyTorch | cuBLAS | M=8 | PyTorch | cuBLAS | M=8 / M=1 |"), text
        # Bold where faster than both peers at that M; M=8 / M=1 per shape.
        assert "| 4096x7168 | 6.00 | **9.00** | 12.00 | 17.00 | 18.00 | 24.00 | 16.00 | 3.00 |" in lines, text
        assert "| 384x5120 | 2.00 | **3.00** | 3.50 | 3.90 | 5.00 | 4.60 | 4.00 | 2.50 |" in lines, text
        assert "| **sum** | 8.00 | 12.00 | 15.50 | 20.90 | 23.00 | 28.60 | 20.00 | 2.88 |" in lines, text
        assert "| faster than both |  | 2 of 2 |  |  | 0 of 2 |  |  |  |" in lines, text
        assert "0 of 6 (shape, M) failed the 1e-2 check or had no result" in text, text
        for name in ("m1.txt", "m2.txt", "m8.txt", "torch-m2.json", "torch-m8.json", "m2-vs-peers.md",
                     "m8-vs-peers.md"):
            assert os.path.getsize(os.path.join(out, name)) > 0, name
        assert "| **sum** | 23.00 | 28.60 | 20.00 | 0 of 2 |" in open(os.path.join(out, "m8-vs-peers.md")).read()
        assert "arithmetic peak" not in text, text

    # With the GPU's SMs and clock: the share of the arithmetic peak (128
    # products a clock an SM) beating the faster peer needs and the library
    # reaches. 132 SMs at 1980 MHz: 3.345408e13 products a second, so 2 rows
    # of 4096x7168 take at least 1.755 us: 15% of the peer's 12.00 (PyTorch,
    # the faster), 20% of the library's 9.00.
    with tempfile.TemporaryDirectory() as d:
        r, out = run(d, extra=("--sms", "132", "--sm-mhz", "1980"))
        assert r.returncode == 0, r
        lines = r.stdout.splitlines()
        assert "(128 products a clock an SM, 132 SMs at 1980 MHz)" in r.stdout, r.stdout
        assert "| shape | M=2: needed | M=2: library | M=8: needed | M=8: library |" in lines, r.stdout
        assert "| 4096x7168 | 15% | 20% | 44% | 39% |" in lines, r.stdout
        assert "| 384x5120 | 3% | 4% | 12% | 9% |" in lines, r.stdout
        assert r.stdout == open(os.path.join(out, "standing.md")).read()
        # A (shape, M) with no result: nan, not a share.
        peers = json.loads(json.dumps(PEERS))
        del peers["8"]["384x5120"]
        r, _ = run(d, peers=peers, extra=("--sms", "132", "--sm-mhz", "1980"))
        assert r.returncode == 1 and "| 384x5120 | 3% | 4% | nan | nan |" in r.stdout.splitlines(), r.stdout

    # A (shape, M) off by more than 1e-2, or with no result line: exit 1, named.
    with tempfile.TemporaryDirectory() as d:
        times = json.loads(json.dumps(TIMES))
        times["384x5120"]["8"] = ("FAIL", 5.0)
        r, _ = run(d, times=times)
        assert r.returncode == 1 and "1 of 6 (shape, M) failed" in r.stdout and "384x5120 at M=8 (FAIL)" in r.stdout, r
        # Peers at one M without a shape the others have: that (shape, M) has no result.
        peers = json.loads(json.dumps(PEERS))
        del peers["8"]["384x5120"]
        r, _ = run(d, peers=peers)
        assert r.returncode == 1 and "384x5120 at M=8 (missing)" in r.stdout, r
        assert "| 384x5120 | 2.00 | **3.00** | 3.50 | 3.90 | nan (missing) | nan | nan | nan |" in r.stdout, r.stdout
        # Only rows 2 asked for: no M = 1 column and no ratio.
        r, out = run(d, rows="2")
        assert r.returncode == 0 and r.stdout.splitlines()[0] == "| shape | M=2 | PyTorch | cuBLAS |", r

    # What it cannot run or read: one line, exit status 2.
    with tempfile.TemporaryDirectory() as d:
        r, _ = run(d, example=os.path.join(d, "none"))
        one_line_failure(r, "none: No such file or directory")
        failing = os.path.join(d, "failing.py")
        write(failing, "import sys\nprint('Traceback (most recent call last):', file=sys.stderr)\n"
                       "print('ModuleNotFoundError: No module named torch', file=sys.stderr)\nsys.exit(1)\n")
        r, _ = run(d, peers_script=failing)
        assert r.returncode == 2 and "failing.py at M=2 exited 1: ModuleNotFoundError: No module named torch" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r
        for rows, says in (("1,x", "--rows 1,x: not a list"), ("0,2", "each M once, from 1 to 16"),
                           ("2,2", "each M once, from 1 to 16"), ("17", "each M once, from 1 to 16")):
            r, _ = run(d, rows=rows)
            one_line_failure(r, says)
        for extra in (("--sms", "132"), ("--sm-mhz", "1980"), ("--sms", "0", "--sm-mhz", "1980")):
            r, _ = run(d, extra=extra)
            one_line_failure(r, "--sms and --sm-mhz go together, each above zero")
    print("ok")


if __name__ == "__main__":
    main()
