"""What the replay server writes into an answer from the parent its prompt
shows, as a model copies it (one line changed: the x prologue's loads per
thread), and how a real tool call reaches the answer parser. Shared by the
server (replay_server.py) and the offline check (make_answers.py --parent).
"""
import difflib
import json


def fill_from_parent(text, parent):
    """The placeholders of an answer filled in from `parent` (the parent's
    source as the prompt shows it, contract comment included)."""
    code = parent.split("*/\n", 1)[1] if parent.startswith("/* kopt:") else parent
    # The parent's code without its contract, one line changed.
    text = text.replace("{{PARENT_BODY}}", code.replace("#define XLOADS 4", "#define XLOADS 8") + "\n")
    # The same change as a unified diff of the whole parent.
    changed = parent.replace("#define XLOADS 4", "#define XLOADS 8")
    diff = "".join(difflib.unified_diff(parent.splitlines(True), changed.splitlines(True),
                                        "a/kernel.hip", "b/kernel.hip"))
    text = text.replace("{{PARENT_DIFF}}", diff)
    # Another change (six loads) as a SEARCH block whose middle lines are elided.
    lines = parent.splitlines()
    at = next((j for j, l in enumerate(lines) if l.startswith("#define XLOADS 4")), 0)
    keep = lines[at + 1], lines[at + 5], lines[at + 6]
    edit = ("<<<<<<< SEARCH\n#define XLOADS 4\n" + keep[0] + "\n// ... unchanged ...\n" + keep[1] +
            "\n" + keep[2] + "\n=======\n#define XLOADS 6\n" + keep[0] + "\n// ... unchanged ...\n" +
            keep[1] + "\n" + keep[2] + "\n>>>>>>> REPLACE\n")
    return text.replace("{{PARENT_ELIDED_EDIT}}", edit)


def is_tool_call(name):
    """Answers the server sends as a real tool call (the file holds the arguments)."""
    return "tool-calls" in name


def as_client_text(arguments):
    """A tool call as kopt's client hands it to the answer parser (the function object)."""
    return json.dumps({"name": "submit_kernel", "arguments": arguments})
