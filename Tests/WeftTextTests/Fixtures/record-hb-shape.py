#!/usr/bin/env python3
"""Records HarfBuzz's own shaping of the reference strings into hb-shape.json.

Run from anywhere after Scripts/setup.sh (libharfbuzz-bin gives hb-shape) and `pip install fonttools` (for
each font's units per em): python3 Tests/WeftTextTests/Fixtures/record-hb-shape.py

Each case names the family the test measures with and the parts it expects: the text each font shapes, the
exact hb-shape command, the advances it printed (font units, hb-shape's defaults: --font-funcs=ot, font size =
units per em) and their sum. The expected width of a case at size S is the sum over parts of
total * S / unitsPerEm. The test re-runs each command when hb-shape is installed and checks that the output
still matches.
"""
import json, os, shlex, subprocess
from fontTools.ttLib import TTFont, TTCollection

NOTO = "/usr/share/fonts/truetype/noto/"
CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"

def part(font, text, index=0, features=""):
    command = ["hb-shape", "--font-funcs=ot", "--output-format=json", "--no-glyph-names"]
    if index:
        command.append(f"--face-index={index}")
    if features:
        command.append(f"--features={features}")
    command += [font, text]
    glyphs = json.loads(subprocess.check_output(command, text=True))
    if font.endswith(".ttc"):
        upem = TTCollection(font).fonts[index]["head"].unitsPerEm
    else:
        upem = TTFont(font)["head"].unitsPerEm
    advances = [g["ax"] for g in glyphs]
    return {"font": font, "faceIndex": index, "text": text, "features": features,
            "command": shlex.join(command), "advances": advances, "total": sum(advances), "unitsPerEm": upem}

cases = [
    # name, family measured with (None: the default family, so fallback picks the fonts), features, parts
    ("latin kerning and ligatures", "Noto Sans", [], [part(NOTO + "NotoSans-Regular.ttf", "office AV Wa Ty fi")]),
    ("latin bold (weight 700)", "Noto Sans", [], [part(NOTO + "NotoSans-Bold.ttf", "Weft lays out text")]),
    ("latin italic", "Noto Sans", [], [part(NOTO + "NotoSans-Italic.ttf", "Texture's ASTextNode")]),
    # Noto Serif's "fi" ligature is narrower than f + i (Noto Sans's are as wide).
    ("serif ligature", "Noto Serif", [], [part(NOTO + "NotoSerif-Regular.ttf", "fi")]),
    # Each of these features changes the width in Noto Sans (its ligatures and tabular digits do not).
    ("features off and on", "Noto Sans", [["pnum", 1], ["smcp", 1], ["kern", 0]],
     [part(NOTO + "NotoSans-Regular.ttf", "Hello 1111 AV", features="pnum=1,smcp=1,kern=0")]),
    ("combining marks", "Noto Sans", [], [part(NOTO + "NotoSans-Regular.ttf", "e\u0301 a\u0308 n\u0303 o\u0323\u0302")]),
    ("long URL", "Noto Sans", [], [part(NOTO + "NotoSans-Regular.ttf", "https://example.com/weft/layout?text=harfbuzz&lines=3")]),
    ("CJK, Japanese", "Noto Sans CJK JP", [], [part(CJK, "日本語のテキストを測る。")]),
    ("CJK, Korean", "Noto Sans CJK KR", [], [part(CJK, "한국어 텍스트", index=1)]),
    ("emoji ZWJ sequences, modifiers and flags", "Noto Color Emoji", [],
     [part(NOTO + "NotoColorEmoji.ttf", "\U0001F469\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466\U0001F44D\U0001F3FD\U0001F1EF\U0001F1F5")]),
    ("Arabic", "Noto Sans Arabic", [], [part(NOTO + "NotoSansArabic-Regular.ttf", "مرحبا بالعالم")]),
    ("Hebrew", "Noto Sans Hebrew", [], [part(NOTO + "NotoSansHebrew-Regular.ttf", "שלום עולם")]),
    ("Devanagari", "Noto Sans Devanagari", [], [part(NOTO + "NotoSansDevanagari-Regular.ttf", "नमस्ते दुनिया")]),
    ("fallback: Latin, CJK and emoji", None, [],
     [part(NOTO + "NotoSans-Regular.ttf", "Hi "), part(CJK, "日本"), part(NOTO + "NotoSans-Regular.ttf", " "),
      part(NOTO + "NotoColorEmoji.ttf", "\U0001F44B\U0001F3FD")]),
    ("fallback: Latin and Arabic", None, [],
     [part(NOTO + "NotoSans-Regular.ttf", "Hello "), part(NOTO + "NotoSansArabic-Regular.ttf", "مرحبا")]),
]

def style(name):
    return {"weight": 700 if "bold" in name else 400, "italic": "italic" in name}

fixture = [dict(name=name, family=family, features=features, parts=parts, **style(name)) for name, family, features, parts in cases]
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hb-shape.json")
with open(path, "w") as out:
    # One case per block, one part per line.
    out.write("[\n")
    for number, case in enumerate(fixture):
        head = {key: value for key, value in case.items() if key != "parts"}
        out.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "parts": [\n')
        out.write(",\n".join("  " + json.dumps(p, ensure_ascii=False) for p in case["parts"]))
        out.write("\n]}" + ("," if number + 1 < len(fixture) else "") + "\n")
    out.write("]\n")
print(f"wrote {len(fixture)} cases to {path}")
