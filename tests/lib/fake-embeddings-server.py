#!/usr/bin/env python3
"""A fake OpenAI-compatible embeddings server for kbx's tests (t8030).

Serves POST /v1/embeddings on 127.0.0.1 at a free port, which it writes
to --port-file once it listens.  The vector of a text is made from the
SHA-256 of the text: the same text always gets the same vector, and
different texts different ones.  Switches make it misbehave:

  --dim N            numbers per vector (default 8)
  --fail N           answer the first N requests with --fail-status
  --fail-status S    500 (default), 429, 503...
  --retry-after V    send "Retry-After: V" with those failures
  --status S         answer every request with status S and an OpenAI
                     style error body (with --message)
  --message TEXT     the error body's message
  --wrong-dim        the second vector of each answer has one number more
  --huge             the first number of each vector is 1e39, past a float
  --slow SECONDS     wait that long before each answer
  --bad-json         answer 200 with a body that is not JSON
  --reverse          list the vectors in reverse order (with their index)
  --log FILE         one JSON line per request: path, authorization
                     header, model, number of inputs, the inputs
"""
import argparse
import hashlib
import http.server
import json
import struct
import sys
import threading
import time

args = None
lock = threading.Lock()
requests_seen = 0


def vector(text, dim):
    out = []
    i = 0
    while len(out) < dim:
        digest = hashlib.sha256(("%d:" % i).encode() + text.encode("utf-8", "surrogatepass")).digest()
        for k in range(0, 32, 4):
            (x,) = struct.unpack("<I", digest[k:k + 4])
            out.append(round(x / 2**31 - 1.0, 6))
        i += 1
    return out[:dim]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *a):
        pass

    def answer(self, status, body, headers=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_POST(self):
        global requests_seen
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        with lock:
            requests_seen += 1
            number = requests_seen
        try:
            req = json.loads(raw)
        except ValueError:
            req = {}
        inputs = req.get("input", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        if args.log:
            with lock, open(args.log, "a") as f:
                f.write(json.dumps({
                    "path": self.path,
                    "authorization": self.headers.get("Authorization"),
                    "model": req.get("model"),
                    "n": len(inputs),
                    "input": inputs,
                }) + "\n")
        if args.slow:
            time.sleep(args.slow)
        if self.path != "/v1/embeddings":
            self.answer(404, {"error": {"message": "no route %s" % self.path}})
            return
        if args.status:
            self.answer(args.status, {"error": {"message": args.message,
                                                "type": "invalid_request_error"}})
            return
        if number <= args.fail:
            headers = [("Retry-After", args.retry_after)] if args.retry_after else []
            self.answer(args.fail_status,
                        {"error": {"message": "failure %d of %d" % (number, args.fail)}},
                        headers)
            return
        if args.bad_json:
            self.answer(200, b"{\"data\": [this is not json")
            return
        data = []
        for i, text in enumerate(inputs):
            dim = args.dim + (1 if args.wrong_dim and i == 1 else 0)
            vec = vector(text, dim)
            if args.huge:
                vec[0] = 1e39
            data.append({"object": "embedding", "index": i, "embedding": vec})
        if args.reverse:
            data.reverse()
        self.answer(200, {"object": "list", "data": data, "model": req.get("model"),
                          "usage": {"prompt_tokens": 0, "total_tokens": 0}})


def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument("--port-file", required=True)
    p.add_argument("--dim", type=int, default=8)
    p.add_argument("--fail", type=int, default=0)
    p.add_argument("--fail-status", type=int, default=500)
    p.add_argument("--retry-after")
    p.add_argument("--status", type=int, default=0)
    p.add_argument("--message", default="Incorrect API key provided")
    p.add_argument("--wrong-dim", action="store_true")
    p.add_argument("--huge", action="store_true")
    p.add_argument("--slow", type=float, default=0)
    p.add_argument("--bad-json", action="store_true")
    p.add_argument("--reverse", action="store_true")
    p.add_argument("--log")
    args = p.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(args.port_file + ".tmp", "w") as f:
        f.write("%d\n" % server.server_address[1])
    import os
    os.rename(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
