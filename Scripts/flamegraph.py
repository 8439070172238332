#!/usr/bin/env python3
"""Turns `perf script` output (already demangled) into a flame graph SVG on stdout.

Standard library only. Each sample's stack becomes one path from the root (outermost frame) to the leaf; boxes
are as wide as their share of the samples, and hovering a box shows its function and share.
"""
import hashlib
import html
import sys


def stacks(lines):
    """Yields each sample's frames, outermost first."""
    frames = []
    in_sample = False
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if frames:
                yield list(reversed(frames))
            frames = []
            in_sample = False
            continue
        if not line.startswith((" ", "\t")):
            in_sample = True  # the sample's header line
            continue
        if in_sample:
            parts = line.strip().split(" ", 1)
            symbol = parts[1] if len(parts) > 1 else parts[0]
            # Drop the trailing "(dso)" and any "+0x.." offset.
            if symbol.endswith(")") and " (" in symbol:
                symbol = symbol[: symbol.rindex(" (")]
            if "+0x" in symbol:
                symbol = symbol[: symbol.rindex("+0x")]
            frames.append(symbol or "[unknown]")
    if frames:
        yield list(reversed(frames))


def build(samples):
    root = {"name": "all", "count": 0, "children": {}}
    for frames in samples:
        node = root
        node["count"] += 1
        for frame in frames:
            node = node["children"].setdefault(frame, {"name": frame, "count": 0, "children": {}})
            node["count"] += 1
    return root


def color(name):
    digest = hashlib.md5(name.encode()).digest()
    return "rgb({},{},{})".format(205 + digest[0] % 50, 80 + digest[1] % 120, 40 + digest[2] % 40)


def render(root, width=1600, row=17):
    depth = [0]

    def measure(node, level):
        depth[0] = max(depth[0], level)
        for child in node["children"].values():
            measure(child, level + 1)

    measure(root, 0)
    height = (depth[0] + 1) * row + 40
    total = max(root["count"], 1)
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="monospace" font-size="11">'.format(width, height),
        '<rect width="100%" height="100%" fill="#fdfdfd"/>',
        '<text x="8" y="16" font-size="13">flame graph: {} samples (hover a box for its share)</text>'.format(total),
    ]

    def draw(node, x, level):
        w = width * node["count"] / total
        if w < 0.3:
            return
        y = height - (level + 1) * row
        share = 100.0 * node["count"] / total
        label = html.escape(node["name"])
        out.append('<g><title>{} ({:.1f}%)</title><rect x="{:.2f}" y="{}" width="{:.2f}" height="{}" fill="{}" stroke="#fff" stroke-width="0.5"/>'
                   .format(label, share, x, y, w, row - 1, color(node["name"])))
        chars = int(w / 7)
        if chars > 3:
            text = node["name"] if len(node["name"]) <= chars else node["name"][: chars - 2] + ".."
            out.append('<text x="{:.2f}" y="{}">{}</text>'.format(x + 3, y + row - 5, html.escape(text)))
        out.append("</g>")
        cx = x
        for child in sorted(node["children"].values(), key=lambda c: c["name"]):
            draw(child, cx, level + 1)
            cx += width * child["count"] / total

    draw(root, 0.0, 0)
    out.append("</svg>")
    return "\n".join(out)


if __name__ == "__main__":
    print(render(build(stacks(sys.stdin))))
