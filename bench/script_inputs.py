"""What the bench scripts read, read in one place: a JSON file, a text file,
an example program's output. What cannot be read ends the script with one
line naming it on stderr and exit status 2, never a traceback."""
import json
import os
import subprocess
import sys


def fail(message):
    """Bad input: one line on stderr, exit status 2."""
    print(f"{os.path.basename(sys.argv[0])}: {message}", file=sys.stderr)
    sys.exit(2)


def read_json(path, key):
    """The JSON object at `path`, which must hold a list under `key`."""
    try:
        with open(path) as f:
            value = json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    except ValueError:
        value = None
    if not isinstance(value, dict) or not isinstance(value.get(key), list):
        fail(f"{path}: not a JSON file with a \"{key}\" list")
    return value


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")


def run_example(call, timeout):
    """The example program's output for `call` (its path and arguments); a
    run past `timeout` seconds reads as no result lines."""
    try:
        return subprocess.run(call, capture_output=True, text=True, timeout=timeout).stdout
    except OSError as e:
        fail(f"{call[0]}: {e.strerror}")
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s"


def run_program(call, what, timeout=None):
    """The standard output of a program a script needs (`kopt suites`, a
    peer script), named `what` in errors: one line and exit status 2 when it
    cannot be started, runs past `timeout` seconds or exits non-zero (then
    with the last line it printed, which for a Python traceback is the
    error)."""
    try:
        r = subprocess.run(call, capture_output=True, text=True, timeout=timeout)
    except OSError as e:
        fail(f"{call[0]}: {e.strerror}")
    except subprocess.TimeoutExpired:
        fail(f"{what}: timed out after {timeout} s")
    if r.returncode != 0:
        said = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["no output"])[-1]
        fail(f"{what} exited {r.returncode}: {said}")
    return r.stdout
