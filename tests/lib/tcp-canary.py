#!/usr/bin/env python3
"""A listener on 127.0.0.1 that records every connection made to it
(t7300): a repository's settings must never make kbx connect anywhere.

  tcp-canary.py --port-file FILE --log FILE

Writes the port it listens on to --port-file, then appends one line to
--log per connection: "connection" and the first bytes received, as
Python's repr, so that a test can tell nothing arrived by the log being
empty.
"""
import argparse
import socket

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--log", required=True)
args = ap.parse_args()

srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(16)
with open(args.port_file + ".tmp", "w") as f:
    f.write("%d\n" % srv.getsockname()[1])
import os
os.rename(args.port_file + ".tmp", args.port_file)
while True:
    conn, _ = srv.accept()
    conn.settimeout(2)
    try:
        data = conn.recv(200)
    except OSError:
        data = b""
    with open(args.log, "a") as f:
        f.write("connection %r\n" % data)
    conn.close()
