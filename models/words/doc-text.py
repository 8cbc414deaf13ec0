#!/usr/bin/env python3
"""doc-text.py: the prose of documentation files, one paragraph a line.

    doc-text.py FILE...    (or folders: every .html, .htm, .txt, .rst,
                            .md, with .gz, below them, in sorted order)

HTML loses its tags, scripts, styles and navigation; reStructuredText and
Markdown lose their markup lines (directives, tables' rules, fences).
Code blocks are kept: identifiers in them are words the model should
know.  The output is what models/words/build.sh tokenizes as kbx does.
"""
import gzip
import html.parser
import os
import re
import sys

SKIP_TAGS = {"script", "style", "nav", "head", "footer", "svg", "noscript"}
BLOCK_TAGS = {"p", "div", "li", "pre", "h1", "h2", "h3", "h4", "h5", "h6",
              "dt", "dd", "tr", "td", "th", "br", "section", "table",
              "blockquote", "ul", "ol", "dl", "article", "main"}
SUFFIXES = (".html", ".htm", ".txt", ".rst", ".md")


class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skip = 0
        self.out = []
        self.cur = []

    def flush(self):
        line = " ".join("".join(self.cur).split())
        if line:
            self.out.append(line)
        self.cur = []

    def handle_starttag(self, tag, attrs):
        if tag in SKIP_TAGS:
            self.skip += 1
        elif tag in BLOCK_TAGS:
            self.flush()

    def handle_endtag(self, tag):
        if tag in SKIP_TAGS:
            self.skip = max(0, self.skip - 1)
        elif tag in BLOCK_TAGS:
            self.flush()

    def handle_data(self, data):
        if not self.skip:
            self.cur.append(data)


MARKUP = re.compile(r"^\s*(\.\. |:[a-z-]+:|[=\-~^\"'`#*+]{3,}\s*$|\|\s*[-:]+|```|~~~)")


def plain(text):
    """Paragraphs of reStructuredText or Markdown, markup lines left out."""
    para = []
    for line in text.splitlines():
        if not line.strip():
            if para:
                yield " ".join(para)
                para = []
            continue
        if MARKUP.match(line):
            continue
        para.append(line.strip())
    if para:
        yield " ".join(para)


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read().decode("utf-8", "replace")


def lines_of(path):
    text = read(path)
    base = path[:-3] if path.endswith(".gz") else path
    if base.endswith((".html", ".htm")):
        p = Text()
        p.feed(text)
        p.close()
        p.flush()
        return p.out
    return list(plain(text))


def files(args):
    for a in args:
        if os.path.isdir(a):
            found = []
            for root, dirs, names in os.walk(a):
                dirs.sort()
                for n in names:
                    b = n[:-3] if n.endswith(".gz") else n
                    # mdBook's print.html repeats the whole book
                    if b == "print.html":
                        continue
                    if b.endswith(SUFFIXES):
                        found.append(os.path.join(root, n))
            yield from sorted(found)
        else:
            yield a


def main():
    out = sys.stdout
    for path in files(sys.argv[1:]):
        for line in lines_of(path):
            # a paragraph of mostly punctuation or numbers says nothing
            if sum(c.isalpha() for c in line) >= 20:
                out.write(line + "\n")


if __name__ == "__main__":
    main()
