"""Text boxes of a gnuplot SVG chart: fails when two pieces of text overlap or text leaves the
page, and (with --legend-below NAME...) when a legend entry sits inside the plot.

Usage: svg_text_boxes.py CHART.svg [--legend-below NAME...]

gnuplot writes each text as <g transform="translate(X,Y) [rotate(A)]" font-size=S
text-anchor=...><text><tspan>...</tspan></text></g>, the baseline at Y. A box is estimated
from the font size: 0.56 em per character (Sans; digits and lower case are narrower), cap
height 0.72 em above the baseline and 0.22 em below. Boxes are shrunk by 6% before the
overlap test, so estimates that merely touch pass.
"""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def boxes(path):
    root = ET.parse(path).getroot()
    W, H = float(root.get("width")), float(root.get("height"))
    out = []
    for g in root.iter(NS + "g"):
        tr = g.get("transform") or ""
        m = re.match(r"translate\(([-\d.]+),([-\d.]+)\)(?:\s*rotate\(([-\d.]+)\))?", tr)
        texts = list(g.findall(NS + "text"))
        if not m or not texts:
            continue
        x, y, rot = float(m.group(1)), float(m.group(2)), float(m.group(3) or 0)
        fs = float(g.get("font-size") or 10)
        s = "".join("".join(t.itertext()) for t in texts).strip()
        if not s:
            continue
        w = 0.56 * fs * len(s)
        anchor = g.get("text-anchor") or "start"
        x0 = {"start": 0.0, "middle": -w / 2, "end": -w}[anchor]
        x1, y0, y1 = x0 + w, -0.72 * fs, 0.22 * fs
        if abs(rot + 90) < 1:  # reads upwards: local x -> -y, local y -> x
            x0, x1, y0, y1 = y0, y1, -x1, -x0
        elif abs(rot - 90) < 1:
            x0, x1, y0, y1 = -y1, -y0, x0, x1
        out.append((s, x + x0, y + y0, x + x1, y + y1))
    return W, H, out


def shrink(b, f=0.06):
    s, x0, y0, x1, y1 = b
    dx, dy = (x1 - x0) * f / 2, (y1 - y0) * f / 2
    return s, x0 + dx, y0 + dy, x1 - dx, y1 - dy


def main():
    args = sys.argv[1:]
    path = args[0]
    legend = args[args.index("--legend-below") + 1:] if "--legend-below" in args else []
    W, H, bs = boxes(path)
    bad = []
    # gnuplot draws a multiplot's screen labels once per panel: one text, not an overlap
    bs = sorted(set((s, round(x0, 1), round(y0, 1), round(x1, 1), round(y1, 1))
                    for s, x0, y0, x1, y1 in bs))
    for i, a in enumerate(bs):
        _, x0, y0, x1, y1 = a
        if x0 < -1 or y0 < -1 or x1 > W + 1 or y1 > H + 1:
            bad.append(f"off the page ({W:.0f}x{H:.0f}): {a}")
        for b in bs[i + 1:]:
            p, q = shrink(a), shrink(b)
            if p[1] < q[3] and q[1] < p[3] and p[2] < q[4] and q[2] < p[4]:
                bad.append(f"overlap: {a[0]!r} {tuple(round(v) for v in a[1:])} and "
                           f"{b[0]!r} {tuple(round(v) for v in b[1:])}")
    if legend:
        # the x tick labels: the lowest row of plain numbers; the legend starts below it
        nums = [b for b in bs if re.fullmatch(r"[-\d.]+", b[0])]
        xrow = max(b[4] for b in nums)
        for b in bs:
            if b[0] in legend and b[2] < xrow:
                bad.append(f"legend entry {b[0]!r} inside the plot (above the x ticks)")
        missing = set(legend) - {b[0] for b in bs}
        if missing:
            bad.append(f"legend entries missing: {sorted(missing)}")
    if not bs:
        bad.append("no text found")
    for line in bad:
        print(f"{path}: {line}", file=sys.stderr)
    sys.exit(1 if bad else 0)


main()
