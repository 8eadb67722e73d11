"""What the replay server writes into an answer from the parent its prompt
shows, as a model copies it (one line changed: the x prologue's loads per
thread), and how a real tool call reaches the answer parser. Shared by the
server (replay_server.py) and the offline check (make_answers.py --parent).
"""
import difflib
import json
import re


def fill_from_parent(text, parent):
    """The placeholders of an answer filled in from `parent` (the parent's
    source as the prompt shows it, contract comment included). The change
    is to the x prologue's loads per thread (XLOADS), whatever value the
    parent has: on a GPU the parent is the best candidate so far, which an
    earlier answer may already have changed."""
    code = parent.split("*/\n", 1)[1] if parent.startswith("/* kopt:") else parent
    found = re.search(r"^#define XLOADS (\d+)$", parent, re.M)
    old = found.group(0) if found else "#define XLOADS 4"
    loads = int(found.group(1)) if found else 4
    new = "#define XLOADS %d" % (8 if loads != 8 else 4)
    # The parent's code without its contract, one line changed.
    text = text.replace("{{PARENT_BODY}}", code.replace(old, new) + "\n")
    # The same change as a unified diff of the whole parent.
    changed = parent.replace(old, new)
    diff = "".join(difflib.unified_diff(parent.splitlines(True), changed.splitlines(True),
                                        "a/kernel.hip", "b/kernel.hip"))
    text = text.replace("{{PARENT_DIFF}}", diff)
    # Another change (six loads, or two) as a SEARCH block whose middle lines are elided.
    lines = parent.splitlines()
    at = next((j for j, l in enumerate(lines) if l == old), 0)
    keep = lines[at + 1], lines[at + 5], lines[at + 6]
    other = "#define XLOADS %d" % (6 if loads != 6 else 2)
    edit = ("<<<<<<< SEARCH\n" + old + "\n" + keep[0] + "\n// ... unchanged ...\n" + keep[1] +
            "\n" + keep[2] + "\n=======\n" + other + "\n" + keep[0] + "\n// ... unchanged ...\n" +
            keep[1] + "\n" + keep[2] + "\n>>>>>>> REPLACE\n")
    return text.replace("{{PARENT_ELIDED_EDIT}}", edit)


def is_tool_call(name):
    """Answers the server sends as a real tool call (the file holds the arguments)."""
    return "tool-calls" in name


def as_client_text(arguments):
    """A tool call as kopt's client hands it to the answer parser (the function object)."""
    return json.dumps({"name": "submit_kernel", "arguments": arguments})
