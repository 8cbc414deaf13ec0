#!/bin/sh
#
# check.sh MERMAID_JS FILE...
#
# Parse each Mermaid FILE with mermaid.parse() of MERMAID_JS (installed by
# tests/mermaid/install.sh) in headless Chromium, and print one line per
# file: "FILE ok", or "FILE error: " and the parser's first line.  Exits
# non-zero when Chromium does not run the page to its end.

set -u
test $# -ge 2 || { echo "usage: check.sh MERMAID_JS FILE..." >&2; exit 2; }
js=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbx-mermaid.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
python3 - "$js" "$tmp/check.html" "$@" <<'PY' || exit 2
import json, sys
js, page, files = sys.argv[1], sys.argv[2], sys.argv[3:]
diagrams = {f: open(f, encoding="utf-8").read() for f in files}
data = json.dumps(diagrams).replace("<", "\\u003c")
open(page, "w", encoding="utf-8").write("""<!DOCTYPE html>
<html><head><meta charset="utf-8"><script src="file://%s"></script></head>
<body><pre id="out"></pre>
<script id="diagrams" type="application/json">%s</script>
<script>
(async () => {
  const out = document.getElementById("out");
  const ds = JSON.parse(document.getElementById("diagrams").textContent);
  mermaid.initialize({ startOnLoad: false });
  const lines = [];
  for (const [name, text] of Object.entries(ds)) {
    try { await mermaid.parse(text); lines.push(name + " ok"); }
    catch (e) { lines.push(name + " error: " + String(e.message || e).split("\\n")[0]); }
  }
  out.textContent = lines.join("\\n") + "\\n--end--";
})();
</script></body></html>
""" % (js, data))
PY
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$tmp/profile" --allow-file-access-from-files \
	--virtual-time-budget=30000 --dump-dom "file://$tmp/check.html" \
	>"$tmp/dom" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 2; }
python3 - "$tmp/dom" <<'PY'
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
text = html.unescape(m.group(1)) if m else ""
if not text.endswith("--end--"):
    sys.exit("check.sh: the page did not run to its end")
print(text[: -len("--end--")].rstrip("\n"))
PY
