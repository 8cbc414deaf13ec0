"""bench/accuracy/dyntree.py: the project tree as the dynamic oracles
(oracle-lua.py, oracle-php.py) see it: which of the paths a run names
are files of the tree, and their lines."""
import os
import subprocess
import sys


class Tree:
    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.lines = {}

    def rel(self, path):
        """path (absolute, or relative to the root) relative to the root,
        or None when it is not a file of the tree"""
        if not path:
            return None
        full = os.path.realpath(os.path.join(self.root, path))
        if not full.startswith(self.root + os.sep) or not os.path.isfile(full):
            return None
        return os.path.relpath(full, self.root)

    def line(self, rel, n):
        """line n (1-based) of the tree's file rel, "" past its end"""
        if rel not in self.lines:
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                self.lines[rel] = f.read().split("\n")
        ls = self.lines[rel]
        return ls[n - 1] if 0 < n <= len(ls) else ""


def run_and_read(who, argv, root, env, calls, none):
    """run the project's command argv in root with env (its output to
    standard error; a failure said there, the calls kept), then the
    non-empty lines of the files the hook wrote in the folder calls;
    exits saying `none` when there are none"""
    rc = subprocess.call(argv, cwd=root, env=env, stdout=sys.stderr, stdin=subprocess.DEVNULL)
    if rc != 0:
        print(f"{who}: {' '.join(argv)} exited {rc}; its calls are kept", file=sys.stderr)
    lines = []
    for name in sorted(os.listdir(calls)):
        with open(os.path.join(calls, name), encoding="utf-8", errors="surrogateescape") as f:
            lines += [ln.rstrip("\n") for ln in f if ln.strip()]
    if not lines:
        sys.exit(f"{who}: {none}")
    return lines
