"""What the replay server writes into an answer from the parent its prompt
shows, as a model copies it (one line changed: the x prologue's loads per
thread), and how a real tool call reaches the answer parser. Shared by the
server (replay_server.py) and the offline check (make_answers.py --parent).
"""
import difflib
import json
import re


def the_change(parent, variant):
    """The line an answer changes and what it becomes: the parent's XLOADS
    (the x prologue's loads per thread) set to another value; in a parent
    without one (naive, splitk), a define added after its first line that
    occurs once. `variant` 0, 1, 2 give three different changes."""
    found = re.search(r"^#define XLOADS (\d+)$", parent, re.M)
    if found:
        # Each variant its own values, so that two answers applied to two
        # parents that differ only in XLOADS never write the same kernel.
        loads = int(found.group(1))
        choices = [n for n in ((8, 7), (6, 5), (2, 3))[variant] if n != loads]
        return found.group(0), "#define XLOADS %d" % choices[0]
    code = parent.split("*/\n", 1)[1] if parent.startswith("/* kopt:") else parent
    lines = parent.splitlines()
    for j, line in enumerate(lines[:-6]):
        if line.strip() and line in code and parent.count(line) == 1:
            return line, line + "\n#define KOPT_REPLAY_EDIT %d" % (variant + 1)
    raise ValueError("no line of the parent to change")


def fill_from_parent(text, parent):
    """The placeholders of an answer filled in from `parent` (the parent's
    source as the prompt shows it, contract comment included). On a GPU or
    the host fake the parent is whichever the run picked (a seed, or an
    earlier answer's kernel), so the change is found in it."""
    code = parent.split("*/\n", 1)[1] if parent.startswith("/* kopt:") else parent
    old, new = the_change(parent, 0)
    # The parent's code without its contract, one line changed.
    text = text.replace("{{PARENT_BODY}}", code.replace(old, new, 1) + "\n")
    # The same change as a unified diff of the whole parent.
    changed = parent.replace(old, new, 1)
    diff = "".join(difflib.unified_diff(parent.splitlines(True), changed.splitlines(True),
                                        "a/kernel.hip", "b/kernel.hip"))
    text = text.replace("{{PARENT_DIFF}}", diff)
    # Another change as a SEARCH block whose middle lines are elided.
    old, other = the_change(parent, 1)
    lines = parent.splitlines()
    at = lines.index(old)
    keep = lines[at + 1], lines[at + 5], lines[at + 6]
    edit = ("<<<<<<< SEARCH\n" + old + "\n" + keep[0] + "\n// ... unchanged ...\n" + keep[1] +
            "\n" + keep[2] + "\n=======\n" + other + "\n" + keep[0] + "\n// ... unchanged ...\n" +
            keep[1] + "\n" + keep[2] + "\n>>>>>>> REPLACE\n")
    text = text.replace("{{PARENT_ELIDED_EDIT}}", edit)
    # An exact SEARCH of the changed line, a third change.
    old, third = the_change(parent, 2)
    return text.replace("{{PARENT_EXACT_EDIT}}",
                        "<<<<<<< SEARCH\n" + old + "\n=======\n" + third + "\n>>>>>>> REPLACE\n")


def is_tool_call(name):
    """Answers the server sends as a real tool call (the file holds the arguments)."""
    return "tool-calls" in name


def as_client_text(arguments):
    """A tool call as kopt's client hands it to the answer parser (the function object)."""
    return json.dumps({"name": "submit_kernel", "arguments": arguments})
