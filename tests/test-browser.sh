#!/bin/sh
# test-browser.sh: the HTML reports in a real browser.
#
# Renders a run's report (a run with a fabric and power, and a comparison
# of two policies) and a sweep's (two axes, three seeds, three metrics) in
# a headless Chromium, each twice: once with a checker script
# added to a copy of the page (it records errors the page throws and
# counts, in every chart's canvas, the pixels drawn in colour, i.e. not
# white, black or grey: data, not just axes), the DOM read back after the
# scripts ran; once as is, to a PNG screenshot.  It fails if the page
# throws or logs an error, if a chart area has fewer than 150 coloured
# pixels, if a canvas is missing, or if the screenshot is blank (fewer
# than 0.5 % of its filtered bytes non-zero).  The report of a run with
# [failures] is checked the same way (no error, its Failures charts
# drawn), without the screenshot.
#
# What it does not check: the charts' numbers (test-pictures.sh checks the
# data in the page), or how the page looks to a person.
#
# Skips (exit 77) with a message when chromium is not installed; build.sh
# installs Debian's chromium, so CI runs it.

set -u

: "${SIM_TOP_SRCDIR:?SIM_TOP_SRCDIR is not set}"
: "${SIM_TOP_BUILDDIR:?SIM_TOP_BUILDDIR is not set}"
GPUSIM="$SIM_TOP_BUILDDIR/tools/gpusim"
S="$SIM_TOP_SRCDIR/scenarios"
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=$(command -v python3) || { echo "test-browser.sh: SKIP: no python3"; exit 77; }

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "test-browser.sh: SKIP: chromium is not installed, so the report was not rendered" \
         "(./build.sh installs Debian's chromium; CI runs this check)"
    exit 77
fi

GPUSIM_MODEL_PATH=
export GPUSIM_MODEL_PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-browser.XXXXXX") || exit 1
trap '[ -n "${SIM_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail () {
    printf 'test-browser.sh: FAIL: %s\n' "$*" >&2
    exit 1
}

"$GPUSIM" run "$S/power-air.ini" --set fabric.topology=fat-tree \
    --set fabric.switch=Quantum-QM8700 --set fabric.oversubscription=2 \
    --set scenario.horizon=2d -o "$tmp/run" -q \
    >/dev/null 2>"$tmp/stderr" || fail "gpusim run: $(cat "$tmp/stderr")"
"$GPUSIM" compare "$S/quickstart.ini" --policy first-fit --policy best-fit --seeds 2 \
    --set scenario.horizon=2d --csv "$tmp/run/compare.csv" --quiet >/dev/null 2>"$tmp/stderr" ||
    fail "gpusim compare: $(cat "$tmp/stderr")"
"$GPUSIM" report "$tmp/run" -o "$tmp/report.html" >/dev/null 2>"$tmp/stderr" ||
    fail "gpusim report: $(cat "$tmp/stderr")"
"$GPUSIM" sweep "$SIM_TOP_SRCDIR/tests/data/sweep-small.ini" --quiet --report "$tmp/sweep.html" \
    >/dev/null 2>"$tmp/stderr" || fail "gpusim sweep --report: $(cat "$tmp/stderr")"

run_chromium () {
    timeout 180 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --user-data-dir="$tmp/profile" --hide-scrollbars \
        --enable-logging=stderr --v=0 --virtual-time-budget=10000 "$@"
}

# check_page NAME CANVAS...: NAME.html in the browser, with those canvases
# (the function's body is not indented, for its here-documents).
check_page () {
# The checker: first in <head> (to see every error), last in <body>.
"$PYTHON" - "$tmp/$1.html" "$tmp/$1-checked.html" <<'PY' || fail "cannot instrument $1.html"
import sys
html = open(sys.argv[1]).read()
head = """<script>window.__errors=[];window.addEventListener('error',function(e){
window.__errors.push(String(e.message));});</script>"""
tail = """<script>(function(){var out={errors:window.__errors,charts:{}};
document.querySelectorAll('canvas').forEach(function(c){var n=0;try{
var d=c.getContext('2d').getImageData(0,0,c.width,c.height).data;
for(var i=0;i<d.length;i+=4){var r=d[i],g=d[i+1],b=d[i+2];
if(d[i+3]>128&&(Math.abs(r-g)>24||Math.abs(g-b)>24||Math.abs(r-b)>24))n++;}}
catch(e){out.errors.push('canvas '+c.id+': '+e.message);}
out.charts[c.id]={coloured:n,width:c.width,height:c.height};});
var p=document.createElement('pre');p.id='browser-check';
p.textContent=JSON.stringify(out);document.body.appendChild(p);})();</script>"""
if "<head>" not in html or "</body>" not in html:
    sys.exit("no <head> or </body>")
html = html.replace("<head>", "<head>" + head, 1)
i = html.rindex("</body>")
open(sys.argv[2], "w").write(html[:i] + tail + html[i:])
PY


run_chromium --window-size=1200,900 --dump-dom "file://$tmp/$1-checked.html" \
    >"$tmp/$1-dom.html" 2>"$tmp/$1-chromium.log" ||
    fail "$1.html: chromium --dump-dom failed: $(tail -5 "$tmp/$1-chromium.log")"
run_chromium --window-size=1200,4000 --screenshot="$tmp/$1.png" "file://$tmp/$1.html" \
    >/dev/null 2>"$tmp/$1-chromium2.log" ||
    fail "$1.html: chromium --screenshot failed: $(tail -5 "$tmp/$1-chromium2.log")"

"$PYTHON" - "$tmp/$1-dom.html" "$tmp/$1-chromium.log" "$tmp/$1-chromium2.log" "$tmp/$1.png" "$@" \
    <<'PY' || exit 1
import html as H, json, re, struct, sys, zlib
def fail(msg):
    sys.exit("test-browser.sh: FAIL: %s.html: %s" % (sys.argv[5], msg))
dom = open(sys.argv[1], errors="replace").read()
m = re.search(r'<pre id="browser-check">(.*?)</pre>', dom, re.S)
if not m:
    fail("the checker did not run (no result in the DOM)")
out = json.loads(H.unescape(m.group(1)))
if out["errors"]:
    fail("the page threw: " + "; ".join(out["errors"]))
for log in sys.argv[2:4]:
    for line in open(log, errors="replace"):
        if ":CONSOLE(" in line and ("Error" in line or "Uncaught" in line):
            fail("the page logged an error: " + line.strip())
want = sys.argv[6:]
for cid in want:
    if cid not in out["charts"]:
        fail("no canvas " + cid)
for cid, c in sorted(out["charts"].items()):
    if c["width"] == 0 or c["height"] == 0 or c["coloured"] < 150:
        fail("chart %s is blank: %d coloured pixels in %dx%d" %
             (cid, c["coloured"], c["width"], c["height"]))
# The screenshot: a PNG that is not blank.  Its rows are stored filtered
# (each byte the difference from a neighbour), so a blank page is nearly
# all zero bytes once inflated; a drawn one is not.
data = open(sys.argv[4], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    fail("the screenshot is not a PNG")
pos, idat, w, h = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h = struct.unpack(">II", body[:8])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
nonzero = len(raw) - raw.count(0)
if nonzero < 0.005 * len(raw):
    fail("the screenshot is blank (%d of %d bytes drawn)" % (nonzero, len(raw)))
print("test-browser.sh: %s.html: %d charts drawn, screenshot %dx%d (%.1f %% of its bytes drawn)" %
      (sys.argv[5], len(out["charts"]), w, h, 100.0 * nonzero / len(raw)))
PY
}

# A run with failures, for the report's Failures charts.
"$GPUSIM" run "$S/failures-self-healing.ini" --set scenario.horizon=30d -o "$tmp/failures" -q \
    --report "$tmp/failures.html" >/dev/null 2>"$tmp/stderr" || fail "gpusim run: $(cat "$tmp/stderr")"

check_page report chart-allocation chart-queue chart-power chart-pue chart-jct chart-wait chart-cost \
    chart-compare-0
check_page sweep chart-sweep-0 chart-sweep-1 chart-sweep-2
check_page failures chart-failure-causes chart-interruptions
