#!/usr/bin/env python3
"""A loopback OpenAI-compatible chat-completions server that answers each
task prompt with the next file of a folder (sorted), then with a refusal;
follow-up turns (kopt's repair requests) get a refusal without using a file. It
logs every prompt, so a test can check what kopt sent.

Usage: replay_server.py ANSWER_DIR PORT PROMPT_LOG
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import answer_fill  # noqa: E402

answer_dir, port, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
names = [f for f in sorted(os.listdir(answer_dir)) if f.endswith(".md")]
answers = [open(os.path.join(answer_dir, f)).read() for f in names]
state = {"next": 0}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with open(log_path, "a") as log:
            log.write(json.dumps(body) + "\n")
        # A follow-up turn (kopt asks the same model to fix an answer it could
        # not read or a kernel that failed) gets a reply with no kernel and
        # keeps the set's order: every answer of the set meets a task prompt,
        # however many of its predecessors failed on this machine.
        follow_up = len(body["messages"]) > 2
        i = len(answers) if follow_up else state["next"]
        state["next"] += 0 if follow_up else 1
        text = answers[i] if i < len(answers) else "I have no fix for this."
        prompt = body["messages"][-1]["content"]
        if "{{PARENT" in text and "# The parent to improve" in prompt:
            parent = prompt.split("# The parent to improve", 1)[1].split("```hip\n", 1)[-1]
            text = answer_fill.fill_from_parent(text, parent.split("\n```", 1)[0])
        message = {"role": "assistant", "content": text}
        finish = "stop"
        if i < len(names) and answer_fill.is_tool_call(names[i]) and body.get("tools"):
            # A real tool call, where kopt offered the tool.
            message = {"role": "assistant", "content": None,
                       "tool_calls": [{"id": f"call-{i}", "type": "function",
                                       "function": {"name": "submit_kernel", "arguments": text}}]}
            finish = "tool_calls"
        reply = {"id": f"replay-{i}", "object": "chat.completion", "model": body.get("model", "replay"),
                 "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                 "usage": {"prompt_tokens": 1000, "completion_tokens": len(text) // 4,
                           "total_tokens": 1000 + len(text) // 4}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


HTTPServer(("127.0.0.1", port), Handler).serve_forever()
