#!/usr/bin/python3
"""bench/accuracy/oracle-zig.py: the calls the Zig compiler makes, as call
sites for score.py.

    oracle-zig.py [--std] ZIG LIBDIR ROOT [FILTER...]

Run in the tree of a Zig project.  ZIG is the compiler, LIBDIR its lib
folder (the standard library Zig ships), ROOT the project's root source
file: its tests and what they reach are compiled (`zig test ROOT
--test-no-exec`, Debug mode), once per FILTER if any are given
(--test-filter: the tests whose names hold it).  With --std the tree is
a copy of Zig's standard library itself (ROOT std.zig): the compiler is
given a lib folder whose std is the tree and whose other folders
(compiler_rt, the test runner) are LIBDIR's.  The unoptimised LLVM IR
the compiler emits is read:

  - every function the compiler analysed is a `define` with a
    DISubprogram (its file and line);
  - every call it made is a `call` with a DILocation: the line, and the
    column of the call's opening parenthesis.  A call the compiler adds
    (error return traces, safety checks, inline functions' bodies) is
    left out: the source must have the called name, written just before
    that parenthesis, where the DILocation points;
  - the called function's DISubprogram is the declaration the compiler
    bound the call to: kind `in` when it is in the tree, `ext` when it
    is elsewhere (compiler_rt, the test runner) or only declared (libc,
    extern functions); a call of a function pointer is `dyn`.

Zig has no virtual calls.  The compiler sees only what a test reaches,
and a generic function's calls once per instance: the sites are those
of every instance, kept once.  Calls evaluated at compile time are not
in the IR.  Written on stdout in score.py's format; the per-filter IR
goes to a temporary folder that is removed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

META = re.compile(r'^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$')
FIELD = re.compile(r'(\w+): ("(?:[^"\\]|\\.)*"|![0-9]+|[^,]+)')
DEFINE = re.compile(r'^define .*?@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(.*!dbg !(\d+)')
DECLARE = re.compile(r'^declare .*?@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(')
CALL = re.compile(r'\bcall\b[^@%]*?(?:@("(?:[^"\\]|\\.)*"|[-\w.$]+)|(%[-\w.]+))\(.*!dbg !(\d+)\s*$')
ANON = re.compile(r'(__anon_\d+)+$')
IDENT = re.compile(rb'(@"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*)$')


def fields(s):
    out = {}
    for k, v in FIELD.findall(s):
        out[k] = v.strip()
    return out


def unquote(s):
    return s[1:-1] if s.startswith('"') else s


class Module:
    def __init__(self, path):
        self.meta = {}
        self.defs = {}      # symbol -> subprogram id
        self.decls = set()  # declared (external) symbols
        self.calls = []     # (caller subprogram, callee symbol or None, dbg id)
        cur = None
        with open(path, encoding='utf-8', errors='replace') as f:
            for line in f:
                if line.startswith('!'):
                    m = META.match(line)
                    if m:
                        self.meta[m.group(1)] = (m.group(2), m.group(3))
                    continue
                if line.startswith('define '):
                    m = DEFINE.match(line)
                    cur = None
                    if m:
                        cur = m.group(2)
                        self.defs[unquote(m.group(1))] = cur
                    continue
                if line.startswith('declare '):
                    m = DECLARE.match(line)
                    if m:
                        self.decls.add(unquote(m.group(1)))
                    continue
                if line.startswith('}'):
                    cur = None
                    continue
                if cur is not None and ' call ' in line and '!dbg' in line:
                    m = CALL.search(line)
                    if m:
                        callee = unquote(m.group(1)) if m.group(1) else None
                        if callee and callee.startswith('llvm.'):
                            continue
                        self.calls.append((cur, callee, m.group(3)))
        self._fields = {}

    def f(self, mid):
        r = self._fields.get(mid)
        if r is None:
            kind, body = self.meta.get(mid, ('', ''))
            r = (kind, fields(body))
            self._fields[mid] = r
        return r

    def file_of(self, mid):
        """The path of the DIFile a scope is in."""
        seen = 0
        while mid and seen < 64:
            kind, fl = self.f(mid)
            if kind == 'DIFile':
                return os.path.join(unquote(fl.get('directory', '""')), unquote(fl.get('filename', '""')))
            if 'file' in fl:
                mid = fl['file'][1:]
            elif 'scope' in fl:
                mid = fl['scope'][1:]
            else:
                return None
            seen += 1
        return None

    def subprogram(self, mid):
        kind, fl = self.f(mid)
        if kind != 'DISubprogram':
            return None
        return (ANON.sub('', unquote(fl.get('name', '""'))), self.file_of(mid), int(fl.get('line', '0')),
                unquote(fl.get('linkageName', '""')))


def main():
    args = sys.argv[1:]
    as_std = bool(args) and args[0] == '--std'
    if as_std:
        args = args[1:]
    if len(args) < 3:
        sys.exit('usage: oracle-zig.py [--std] ZIG LIBDIR ROOT [FILTER...]')
    zig, libdir, root, filters = args[0], os.path.realpath(args[1]), args[2], args[3:] or [None]
    tree = os.path.realpath('.')
    tmp = tempfile.mkdtemp(prefix='kbx-oracle-zig.')
    try:
        lib = libdir
        if as_std:
            # a lib folder whose std is the tree
            lib = os.path.join(tmp, 'lib')
            os.mkdir(lib)
            for name in os.listdir(libdir):
                if name != 'std':
                    os.symlink(os.path.join(libdir, name), os.path.join(lib, name))
            os.symlink(tree, os.path.join(lib, 'std'))
            root = os.path.join(lib, 'std', root)
        sites = {}
        lines_of = {}

        def src_line(path, n):
            ls = lines_of.get(path)
            if ls is None:
                try:
                    with open(path, 'rb') as fh:
                        ls = fh.read().split(b'\n')
                except OSError:
                    ls = []
                lines_of[path] = ls
            return ls[n - 1] if 0 < n <= len(ls) else b''

        def rel(path):
            if not path:
                return None
            p = os.path.realpath(path)
            for top in (tree, os.path.join(lib, 'std')) if as_std else (tree,):
                if p == top or p.startswith(top + '/'):
                    return os.path.relpath(p, top)
            return None

        for flt in filters:
            ll = os.path.join(tmp, 'out.ll')
            cmd = [zig, 'test', root, '--zig-lib-dir', lib] + \
                (['--test-filter', flt] if flt else []) + \
                ['--test-no-exec', '-fno-emit-bin', '-femit-llvm-ir=' + ll,
                 '--cache-dir', os.path.join(tmp, 'cache'), '--global-cache-dir', os.path.join(tmp, 'gcache')]
            r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if r.returncode != 0 or not os.path.exists(ll):
                sys.stderr.write('oracle-zig: %s: zig test failed (%d): %s\n'
                                 % (flt or root, r.returncode, r.stderr.decode(errors='replace')[-2000:]))
                sys.exit(1)
            mod = Module(ll)
            os.unlink(ll)
            n = 0
            for caller_sp, callee, dbg in mod.calls:
                kind, loc = mod.f(dbg)
                if kind != 'DILocation' or 'inlinedAt' in loc:
                    continue
                line, col = int(loc.get('line', '0')), int(loc.get('column', '0'))
                cfile = rel(mod.file_of(loc.get('scope', '!0')[1:]))
                if cfile is None or line <= 0 or col <= 1:
                    continue
                text = src_line(os.path.join(tree, cfile), line)
                if col - 1 >= len(text) or text[col - 1:col] != b'(':
                    continue
                m = IDENT.search(text[:col - 1])
                if not m:
                    continue
                written = m.group(1).decode(errors='replace')
                if written.startswith('@"'):
                    written = written[2:-1]
                wcol = m.start(1) + 1
                caller = mod.subprogram(caller_sp)
                callerplace = '-'
                if caller and rel(caller[1]):
                    callerplace = '%s:%d' % (rel(caller[1]), caller[2])
                if callee is None:
                    kind_, targets, what = 'dyn', '-', written
                elif callee in mod.defs:
                    sp = mod.subprogram(mod.defs[callee])
                    if not sp or sp[0] != written:
                        continue    # not the name written there: the compiler's own call
                    tfile = rel(sp[1])
                    if tfile:
                        kind_, targets, what = 'in', '%s:%d' % (tfile, sp[2]), sp[3]
                    else:
                        kind_, targets, what = 'ext', '-', sp[3]
                elif callee in mod.decls:
                    if callee != written:
                        continue
                    kind_, targets, what = 'ext', '-', callee
                else:
                    continue
                key = (cfile, line, wcol, targets if kind_ != 'ext' else what)
                if key in sites:
                    continue
                sites[key] = (cfile, line, wcol, line, wcol, written, kind_, targets, ANON.sub('', what),
                              callerplace)
                n += 1
            sys.stderr.write('oracle-zig: %s: %d functions, %d calls, %d new sites\n'
                             % (flt or root, len(mod.defs), len(mod.calls), n))
        # a site of a generic function that calls another declaration in
        # each instance (T.hash) is bound to none of them alone
        by_site = {}
        for key in sorted(sites):
            by_site.setdefault(key[:3], []).append(sites[key])
        for rows in by_site.values():
            row = rows[0]
            if len(rows) > 1:
                targets = sorted({t for r in rows for t in r[7].split(',') if t != '-'})
                row = row[:6] + ('virt' if targets else 'ext', ','.join(targets) or '-',
                                 '|'.join(sorted({r[8] for r in rows})), row[9])
            print('\t'.join(str(x) for x in row))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
