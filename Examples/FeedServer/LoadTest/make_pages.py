#!/usr/bin/env python3
"""Writes the page bodies of the feed server's load test (deterministic for a given seed).

Each page is a POST /v1/layout body: {"width": 375, "format": "flat", "cells": [20 photo cells]}. A photo
cell is Texture's: a vertical stack of a header (an inset of 8 left and right around a horizontal stack,
alignItems center, of the avatar, a 44x44 image in an inset of 8 top, bottom and right; a vertical stack with
flexShrink 1 of the username and location texts; a spacer with flexGrow 1), the photo (an image at 375x375)
and a footer (an inset of 8 around the comments text).

Of each page's cells, the first --fresh are new posts: their text holds the token @FRESH@, which the wrk
script replaces with a unique id in every request, so they are new content each time. The others are drawn
from a pool of --pool popular posts, the popular ones more often (a Zipf-like weighting), so that pages share
cells and the cache has something to hit.

Usage: make_pages.py OUTDIR [--pages 200] [--cells 20] [--fresh 4] [--pool 1000] [--seed 1]
"""
import argparse
import json
import os
import random

NAMES = ["ada", "grace", "linus", "margaret", "dennis", "barbara", "ken", "frances", "alan", "edsger", "radia",
         "tim", "hedy", "john", "katherine", "donald", "sophie", "guido", "yukihiro", "bjarne"]
SUFFIXES = ["", "_codes", ".travels", "_photo", "1987", "_in_the_wild", ".eats", "_official", "x", "_daily"]
PLACES = ["Paris", "San Francisco, California", "Kyoto", "Reykjavik", "Cape Town", "Montreal, Quebec", "Lisbon",
          "Buenos Aires", "Hanoi", "Oslo", "Marrakesh", "Wellington, New Zealand", "Tbilisi", "Valparaiso"]
WORDS = ("what a lovely view of the harbour at dawn again today with friends after the long climb up the old "
         "stone stairs and coffee by the water best morning ever cannot wait to come back next summer light "
         "was perfect clouds rolled in just after sunrise").split()


def photo_cell(rng, token=""):
    username = rng.choice(NAMES) + rng.choice(SUFFIXES) + (token and "_" + token)
    names = [{"type": "text", "id": "username", "text": username, "fontSize": 14}]
    if rng.random() < 0.8:  # some posts have no location (yet)
        names.append({"type": "text", "id": "location", "text": rng.choice(PLACES), "fontSize": 12})
    words = [rng.choice(WORDS) for _ in range(rng.randint(3, 45))]
    if token:
        words.append(token)
    side = rng.choice([640, 1080, 1440])
    return {
        "type": "stack", "id": "cell", "direction": "vertical", "children": [
            {"type": "inset", "id": "header", "insets": {"left": 8, "right": 8}, "child": {
                "type": "stack", "id": "headerStack", "alignItems": "center", "children": [
                    {"type": "inset", "id": "avatarInset", "insets": {"top": 8, "bottom": 8, "right": 8},
                     "child": {"type": "image", "id": "avatar", "size": [150, 150],
                               "style": {"preferredSize": [44, 44]}}},
                    {"type": "stack", "id": "nameStack", "direction": "vertical", "style": {"flexShrink": 1},
                     "children": names},
                    {"type": "spacer", "id": "spacer", "style": {"flexGrow": 1}},
                ]}},
            {"type": "image", "id": "photo", "size": [side, side], "style": {"preferredSize": [375, 375]}},
            {"type": "inset", "id": "footer", "insets": 8, "child": {
                "type": "text", "id": "comments", "text": " ".join(words), "fontSize": 14}},
        ]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--cells", type=int, default=20)
    parser.add_argument("--fresh", type=int, default=4)
    parser.add_argument("--pool", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    pool = [photo_cell(rng) for _ in range(args.pool)]
    weights = [1 / (rank + 1) ** 0.8 for rank in range(args.pool)]
    os.makedirs(args.outdir, exist_ok=True)
    total = 0
    for page in range(args.pages):
        fresh = [photo_cell(rng, "@FRESH@") for _ in range(args.fresh)]
        popular = []
        while len(popular) < args.cells - args.fresh:  # distinct cells within a page
            cell = rng.choices(pool, weights)[0]
            if all(cell is not other for other in popular):
                popular.append(cell)
        body = json.dumps({"width": 375, "format": "flat", "cells": fresh + popular}, separators=(",", ":"))
        with open(os.path.join(args.outdir, "page-%03d.json" % page), "w") as out:
            out.write(body)
        total += len(body)
    print("wrote %d pages of %d cells (%d new in each, the rest from %d posts), %d bytes on average, to %s"
          % (args.pages, args.cells, args.fresh, args.pool, total // max(args.pages, 1), args.outdir))


if __name__ == "__main__":
    main()
