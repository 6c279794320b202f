#!/usr/bin/env python3
"""Renders a memory snapshot with PyTorch's MemoryViz.js in headless Chromium and checks it.

usage: memoryviz.py --memoryviz JS --d3 JS --chromium BIN --snapshot PICKLE --view VIEW
                    [--run-json JSON] --out DIR

MemoryViz.js (torch/utils/viz, BSD-licensed, not shipped in torch wheels) and d3 v5's UMD
bundle (dist/d3.js: MemoryViz.js uses d3.event, gone in d3 v6) are given by the caller and
never stored in the repository. The page maps MemoryViz.js's CDN imports (cdn.skypack.dev
d3@5, d3-axis, d3-scale, d3-zoom, d3-brush) to a small module over the d3 bundle with an
import map, embeds the snapshot as torch.cuda._memory_viz's trace_plot does
(add_local_files), and is served from a local HTTP server (module scripts do not load from
file://). Chromium dumps the DOM after the render and takes a screenshot.

Checks: no JavaScript error (window error and unhandledrejection events, recorded in the
page), the page's last step ran; 'Active Memory Timeline': one polygon per allocation drawn,
the y axis's top tick within one step below the run's peak (sim --json peak_memory, the
timeline's peak); 'Allocator State History': one event line per event (frees elided as
MemoryViz.js does), a segment rectangle per final segment, the reserved bytes it reports for
the first, a middle and the last event (selected as a click does: each draw replays the
events after it backwards from the final segments) equal to the trace's, forwards; the screenshot is a PNG with a plot in it
(enough pixels neither white nor grey). Exit 0 and one line of figures, or 1 and the reason.
"""
import argparse
import base64
import functools
import http.server
import json
import os
import pickle
import re
import shutil
import struct
import subprocess
import sys
import threading
import zlib

SHIM = """// d3 v5's UMD bundle as the ES modules MemoryViz.js imports (cdn.skypack.dev d3@5, ...)
const d3 = window.d3;
export let event = d3.event;  // live: the bundle's exports.event setter updates it
window.__gms_d3_event = v => { event = v; };
export const select = d3.select, selectAll = d3.selectAll, format = d3.format;
export const axisLeft = d3.axisLeft, scaleLinear = d3.scaleLinear;
export const zoom = d3.zoom, zoomIdentity = d3.zoomIdentity, brushX = d3.brushX;
"""

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<script>
window.__gms_errors = [];
function __gms_error(m) {
  window.__gms_errors.push(String(m));
  document.documentElement.setAttribute('data-gms-errors', window.__gms_errors.join(' | '));
}
window.addEventListener('error', e => __gms_error('error: ' + e.message + ' at ' + e.filename + ':' + e.lineno));
window.addEventListener('unhandledrejection', e => __gms_error('unhandled rejection: ' + e.reason));
// d3's UMD bundle assigns exports.event as events come and go: a setter forwards it to the
// module's live binding (d3-shim.mjs)
window.d3 = {};
let __gms_event = null;
Object.defineProperty(window.d3, 'event', {
  configurable: true, enumerable: true,
  get() { return __gms_event; },
  set(v) { __gms_event = v; if (window.__gms_d3_event) window.__gms_d3_event(v); },
});
</script>
<script src="d3.js"></script>
<script type="importmap">
{"imports": {"https://cdn.skypack.dev/d3@5": "./d3-shim.mjs",
             "https://cdn.skypack.dev/d3-axis@1": "./d3-shim.mjs",
             "https://cdn.skypack.dev/d3-scale@1": "./d3-shim.mjs",
             "https://cdn.skypack.dev/d3-zoom@1": "./d3-shim.mjs",
             "https://cdn.skypack.dev/d3-brush@1": "./d3-shim.mjs"}}
</script>
</head><body>
<script type="module">
import {add_local_files} from "./MemoryViz.js";
const local_files = [{"name": "snapshot.pickle", "base64": "%(b64)s"}];
const view = %(view)s;
add_local_files(local_files, view);
requestAnimationFrame(() => requestAnimationFrame(() => {
  if (view === 'Allocator State History') {
    // select the first, a middle and the last event as a click does: each draw replays the
    // events after it backwards from the final segments
    const pres = Array.from(document.querySelectorAll('pre'))
      .filter(p => /^(alloc|free|segment_|OOM)/.test(p.textContent));
    const steps = [];
    for (const i of [0, Math.floor(pres.length / 2), pres.length - 1]) {
      pres[i].dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));
      const m = document.body.innerText.match(/allocated \/ [^(]*\(([0-9]+) bytes\) reserved/);
      steps.push([i, m ? Number(m[1]) : null]);
    }
    document.documentElement.setAttribute('data-gms-steps', JSON.stringify(steps));
  }
  document.documentElement.setAttribute('data-gms-done', '1');
}));
</script>
</body></html>
"""


def fail(msg):
    print("memoryviz: " + msg, file=sys.stderr)
    sys.exit(1)


def png_pixels(path):
    """(width, height, rows of RGB(A) tuples flattened) of an 8-bit non-interlaced PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                fail(f"{path}: PNG kind not read here (depth {depth}, color {color})")
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    out, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line))
        prev = line
    return w, h, bpp, out


def colored_pixels(path):
    w, h, bpp, rows = png_pixels(path)
    n = 0
    for row in rows:
        for x in range(0, w * bpp, bpp):
            r, g, b = row[x], row[x + 1], row[x + 2]
            if max(r, g, b) - min(r, g, b) > 40:  # a plot colour, not white, grey or black
                n += 1
    return w, h, n


def si_value(text):
    m = re.fullmatch(r"(-?[0-9.]+)([yzafpnµmkMGTPEZY]?)", text.replace("\u2212", "-"))
    if not m:
        return None
    scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "m": 1e-3}.get(m[2], None)
    return None if scale is None else float(m[1]) * scale


def main():
    ap = argparse.ArgumentParser()
    for a in ("--memoryviz", "--d3", "--chromium", "--snapshot", "--view", "--out"):
        ap.add_argument(a, required=True)
    ap.add_argument("--run-json")
    o = ap.parse_args()
    os.makedirs(o.out, exist_ok=True)
    shutil.copy(o.memoryviz, os.path.join(o.out, "MemoryViz.js"))
    shutil.copy(o.d3, os.path.join(o.out, "d3.js"))
    open(os.path.join(o.out, "d3-shim.mjs"), "w").write(SHIM)
    raw = open(o.snapshot, "rb").read()
    page = PAGE % {"b64": base64.b64encode(raw).decode(), "view": json.dumps(o.view)}
    open(os.path.join(o.out, "index.html"), "w").write(page)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    handler = functools.partial(Quiet, directory=o.out)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/index.html"
    base = [o.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-extensions", f"--user-data-dir={os.path.join(o.out, 'profile')}",
            "--window-size=1280,900", "--virtual-time-budget=15000"]
    shot = os.path.join(o.out, "screenshot.png")
    try:
        dom = subprocess.run(base + ["--dump-dom", url], capture_output=True, text=True,
                             timeout=120)
        subprocess.run(base + [f"--screenshot={shot}", url], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        fail("chromium did not finish in 120 s")
    finally:
        srv.shutdown()
    html = dom.stdout
    open(os.path.join(o.out, "dom.html"), "w").write(html)
    if not html.strip():
        fail(f"chromium printed no DOM (exit {dom.returncode}): {dom.stderr.strip()[-500:]}")
    m = re.search(r'data-gms-errors="([^"]*)"', html)
    if m:
        fail(f"JavaScript errors: {m[1]}")
    if 'data-gms-done="1"' not in html:
        fail("the page's script did not finish (a module failed to load?)")

    d = pickle.loads(raw)
    tr = d["device_traces"][0]
    figures = {"view": o.view}
    if o.view == "Active Memory Timeline":
        polys = len(re.findall(r"<polygon", html))
        allocs = sum(e["action"] == "alloc" for e in tr)
        # one polygon per element drawn (allocs, and blocks live before the trace) plus the
        # summarized one plus the minimap's
        if polys < allocs + 2:
            fail(f"{polys} polygons for {allocs} allocations")
        ticks = [si_value(t) for t in re.findall(r'<text[^>]*>([^<]+)</text>', html)]
        ticks = sorted(t for t in ticks if t is not None)
        if len(ticks) < 3:
            fail(f"no y axis ticks: {ticks}")
        figures.update(polygons=polys, allocations=allocs, top_tick=ticks[-1])
        if o.run_json:
            peak = json.load(open(o.run_json))["peak_memory"]
            step = ticks[-1] - ticks[-2]
            # '.3s' rounds ticks to 3 digits: allow that
            if not (ticks[-1] <= peak * 1.001 and peak < ticks[-1] + step * 1.001):
                fail(f"top tick {ticks[-1]} (step {step}) is not right below the peak {peak}")
            figures["peak"] = peak
    elif o.view == "Allocator State History":
        lines = len(re.findall(r"<pre[^>]*>(?:alloc|free|segment_|OOM)", html))
        frees = sum(e["action"] == "free_completed" for e in tr)
        if lines != len(tr) - frees:
            fail(f"{lines} event lines for {len(tr)} events ({frees} frees elided)")
        seg_rects = len(re.findall(r'<rect[^>]*stroke="black"', html))
        if seg_rects != len(d["segments"]):
            fail(f"{seg_rects} segment rectangles for {len(d['segments'])} final segments")
        # the reserved bytes after each event, forwards, on MemoryViz.js's event list (a
        # free_requested + free_completed pair is one 'free')
        after, r = [], 0
        for i, e in enumerate(tr):
            a = e["action"]
            if a == "free_completed" and i and tr[i - 1]["action"] == "free_requested":
                continue
            r += e["size"] if a in ("segment_alloc", "segment_map") else 0
            r -= e["size"] if a in ("segment_free", "segment_unmap") else 0
            after.append(r)
        m = re.search(r'data-gms-steps="([^"]*)"', html)
        steps = json.loads(m[1].replace("&quot;", '"')) if m else []
        if len(steps) != 3:
            fail(f"the event selections did not run: {steps}")
        for i, shown in steps:
            if shown != after[i]:
                fail(f"event {i}: MemoryViz.js shows {shown} B reserved, the trace {after[i]}")
        reserved = sum(s["total_size"] for s in d["segments"])
        if after[-1] != reserved:
            fail(f"reserved after the last event {after[-1]}, final segments {reserved}")
        figures.update(event_lines=lines, segments=seg_rects, reserved=reserved, steps=steps)
    else:
        fail(f"unknown view {o.view}")
    if not os.path.exists(shot):
        fail("no screenshot")
    w, h, n = colored_pixels(shot)
    if n < w * h // 200:
        fail(f"the screenshot ({w}x{h}) has {n} coloured pixels: no plot")
    figures.update(screenshot=f"{w}x{h}", coloured_pixels=n)
    print(json.dumps(figures))


main()
