#!/usr/bin/env python3
"""Records the metrics of the standard fonts with fontTools into font-metrics.json.

Run after Scripts/setup.sh and `pip install fonttools`: python3 Tests/WeftTextTests/Fixtures/record-font-metrics.py

For each font: its family (name ID 16, else 1), units per em, OS/2 weight class, whether OS/2 fsSelection bit 7
(USE_TYPO_METRICS) is set, the hhea and OS/2 typographic ascender, descender and line gap, and the hmtx advance
of a few characters (through the cmap) and of glyph 0 (.notdef, drawn for characters the font lacks). Tests derive expected line heights, baselines, truncation and spacing
widths from these numbers.
"""
import json, os
from fontTools.ttLib import TTFont, TTCollection

FONTS = [
    ("/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", 0),
    ("/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf", 0),
    ("/usr/share/fonts/truetype/noto/NotoSerif-Regular.ttf", 0),
    ("/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf", 0),
    ("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", 0),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 0),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 0),
]
CHARACTERS = "abcdefimnoxW .\u2026\u65e5"

def family(font):
    names = font["name"]
    record = names.getName(16, 3, 1, 0x409) or names.getName(1, 3, 1, 0x409)
    return str(record)

records = []
for path, index in FONTS:
    font = TTCollection(path).fonts[index] if path.endswith(".ttc") else TTFont(path)
    hhea, os2, cmap, hmtx = font["hhea"], font["OS/2"], font.getBestCmap(), font["hmtx"]
    advances = {c: hmtx[cmap[ord(c)]][0] for c in CHARACTERS if ord(c) in cmap}
    records.append({
        "path": path, "faceIndex": index, "family": family(font), "unitsPerEm": font["head"].unitsPerEm,
        "weightClass": os2.usWeightClass, "useTypoMetrics": bool(os2.fsSelection & (1 << 7)),
        "hhea": {"ascender": hhea.ascent, "descender": hhea.descent, "lineGap": hhea.lineGap},
        "typo": {"ascender": os2.sTypoAscender, "descender": os2.sTypoDescender, "lineGap": os2.sTypoLineGap},
        "advances": advances, "notdefAdvance": hmtx[font.getGlyphOrder()[0]][0],
    })

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "font-metrics.json")
with open(path, "w") as out:
    out.write("[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n]\n")
print(f"wrote {len(records)} fonts to {path}")
