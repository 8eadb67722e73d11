#!/usr/bin/env python3
"""A loopback OpenAI-compatible chat-completions server that answers each
request with the next file of a folder (sorted), then with a refusal. It
logs every prompt, so a test can check what kopt sent.

Usage: replay_server.py ANSWER_DIR PORT PROMPT_LOG
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

answer_dir, port, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
answers = [open(os.path.join(answer_dir, f)).read()
           for f in sorted(os.listdir(answer_dir)) if f.endswith(".md")]
state = {"next": 0}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with open(log_path, "a") as log:
            log.write(json.dumps(body) + "\n")
        i = state["next"]
        state["next"] += 1
        text = answers[i] if i < len(answers) else "I have no further ideas."
        if "{{PARENT_BODY}}" in text:
            # The parent's code as the prompt shows it, without its contract,
            # with one line changed (the x prologue's loads per thread).
            prompt = body["messages"][-1]["content"]
            parent = prompt.split("# The parent to improve", 1)[1].split("```hip\n", 1)[1]
            parent = parent.split("\n```", 1)[0]
            code = parent.split("*/\n", 1)[1] if parent.startswith("/* kopt:") else parent
            text = text.replace("{{PARENT_BODY}}",
                                code.replace("#define XLOADS 4", "#define XLOADS 8") + "\n")
        reply = {"id": f"replay-{i}", "object": "chat.completion", "model": body.get("model", "replay"),
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": text}}],
                 "usage": {"prompt_tokens": 1000, "completion_tokens": len(text) // 4,
                           "total_tokens": 1000 + len(text) // 4}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


HTTPServer(("127.0.0.1", port), Handler).serve_forever()
