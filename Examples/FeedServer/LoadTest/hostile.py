#!/usr/bin/env python3
"""Hostile clients for the feed server, on loopback: each check prints one result line and exits non-zero
when the server fails it (with --report, it only prints).

  hostile.py attack URL --pages DIR [--kinds text,cells,...] [--seconds 10] [--probes 20] [--attackers 2]
      Healthy probes (--probes clients, each posting a page of 20 photo cells every 50 ms) run for 2 x
      --seconds, in 2.5-second windows that alternate between quiet and attacked (with 2.5 s unrecorded after
      each attacked one, while the attacks' work drains): --attackers clients posting the worst bodies of the
      kinds given, back to back. Passes when the probes' p99 latency in the attacked windows is at most twice
      their p99 in the quiet ones (plus --allowance-ms, 0 unless given), and every probe is answered 200.
  hostile.py slowloris URL [--seconds 30] [--within 15]
      Sends a request's head one byte every 2 s, and on another connection a head then its body one byte
      every 2 s. Passes when the server closes both within --within seconds.
  hostile.py sockets URL --pid PID [--sockets 400] [--within 15]
      Opens --sockets idle connections, then checks that new requests are answered while they are held, that
      the server's CPU stays low, and that once they close it answers again.
  hostile.py memory URL --pid PID --cache-bytes N [--text-cache-bytes N] [--seconds 120] [--kind tiny|photo] [--factor 1.5]
      Streams cells never seen before and samples the server's RSS every second. Passes when the peak stays
      below (RSS at start) + factor * (cache bytes + text cache bytes).

Only the standard library; traffic goes to the URL given (the scripts give 127.0.0.1).
"""
import argparse
import http.client
import json
import multiprocessing
import os
import random
import socket
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_pages  # noqa: E402  (the photo cells of the load test)


def connect(url):
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)


def post(connection, body, path="/v1/layout"):
    """POSTs body; returns (status, seconds). Reconnects once if the server closed the connection."""
    start = time.monotonic()
    for attempt in (0, 1):
        try:
            data = body.encode() if isinstance(body, str) else body  # UTF-8 (http.client would send Latin-1)
            connection.request("POST", path, body=data, headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            if response.getheader("connection", "").lower() == "close":
                connection.close()
            return response.status, time.monotonic() - start
        except (ConnectionError, http.client.HTTPException, socket.timeout, OSError):
            connection.close()
            if attempt:
                return 0, time.monotonic() - start
    return 0, time.monotonic() - start


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# --- attack -------------------------------------------------------------------------------------------------

def attack_bodies(kind, limit):
    """The worst bodies of `kind` that fit in `limit` bytes, within the server's default limits (depth 64,
    5,000 elements): each costs far more to lay out than to send."""
    filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt "
    if kind == "text":  # one text as long as the body allows: measured inside one layout
        text = ("@N@ " + filler * (limit // len(filler)))[: limit - 200]
        return [json.dumps({"type": "text", "id": "@N@", "text": text, "fontSize": 14})]
    if kind == "escapes":  # the same, every character an escape: the parser's slowest path
        count = (limit - 200) // 6
        return [json.dumps({"type": "text", "id": "@N@", "text": "@N@ " + "é" * count, "fontSize": 14}, ensure_ascii=True)]
    if kind == "array":  # one array as wide as the body allows: quadratic for a parser that copies on append
        count = (limit - 100) // 2
        return ['{"type": "stack", "id": "@N@", "children": [' + ",".join(["0"] * count) + "]}"]
    if kind == "cells":  # a page of 5,000 tiny cells, new each time: 5,000 jobs, parses and cache entries
        return ["@PAGE@"]
    if kind == "wide":  # one stack of 4,999 flexible texts: one long layout
        child = {"type": "text", "text": "@N@ " + "flex " * 20, "style": {"flexGrow": 1, "flexShrink": 1}}
        body = {"type": "stack", "id": "@N@", "direction": "horizontal", "children": [child] * 4999}
        return [json.dumps(body, separators=(",", ":"))]
    if kind == "nested":  # flexible stacks in flexible stacks: layout time grows about 1.3x a level
        node = {"type": "box", "id": "@N@", "size": [10, 10]}
        for level in range(36):
            child = dict(node, style={"flexShrink": 1, "flexGrow": 1, "flexBasis": "50%"}) if level else node
            node = {"type": "stack", "direction": "vertical" if level % 2 else "horizontal",
                    "style": {"flexShrink": 1, "flexGrow": 1},
                    "children": [{"type": "box", "size": [10, 10], "style": {"flexShrink": 1, "flexGrow": 1}}, child]}
        return [json.dumps(node)]
    if kind == "flexnest":  # stacks nested in flexible stacks 60 deep (within the depth limit): linear work
        bodies = []
        for pattern in ("alternating", "sibling", "varying"):
            node = {"type": "box", "id": "@N@", "size": [10, 10]}
            for level in range(60):
                basis = "%d%%" % (40 + level % 50) if pattern == "varying" else "50%"
                children = [node]
                if pattern == "sibling":
                    children.append({"type": "box", "style": {"flexBasis": "30%"}})
                node = {"type": "stack", "direction": "vertical" if level % 2 else "horizontal",
                        "style": {"flexGrow": 1, "flexBasis": basis}, "children": children}
            bodies.append(json.dumps(node, separators=(",", ":")))
        return bodies
    if kind == "bidi":  # one text of alternating Hebrew letters and digits as long as the body allows
        pairs = (limit - 200) // 3
        return [json.dumps({"type": "text", "id": "@N@", "text": "@N@ " + "\u05d01" * pairs, "fontSize": 14},
                           ensure_ascii=False)]
    if kind == "truncation":  # one line 100,000 wide cut to fit a token wider than it (issue 9 item 10)
        line = "x" * 200_000
        token = "W" * 130_000
        cell = {"type": "text", "id": "@N@", "text": line + "\ny", "fontSize": 1, "maximumNumberOfLines": 1,
                "truncationToken": token}
        return [json.dumps({"width": 100000, "cells": [cell]})]
    raise SystemExit("unknown attack kind " + kind)


def attacker(url, number, bodies, go, done, results):
    """One attacker process: makes 40 variants of each body, then posts them back to back whenever `go` is set,
    until `done`; reports the statuses it got. No attack is ever a cache hit: every token carries a nonce of
    this process (a retry against the same server, or a second run, posts bodies it has never seen), and a
    variant the server did not refuse outright (it may have cached cells of it) is made anew before it is posted
    again. Texts carry the token too, so that no text is found in the shaped-text cache either."""
    nonce = "%x%x" % (os.getpid(), random.getrandbits(32))

    def variant(body, serial):
        token = "z%sa%dn%d" % (nonce, number, serial)
        return fresh_page(token) if body == "@PAGE@" else body.replace("@N@", token)

    variants = [(body, variant(body, i * len(bodies) + j)) for i in range(40) for j, body in enumerate(bodies)]
    serial = len(variants)
    connection = connect(url)
    statuses = {}
    counter = 0
    while not done.is_set():
        if not go.wait(0.1):
            continue
        index = counter % len(variants)
        body, text = variants[index]
        status, _ = post(connection, text)
        # A body the server turned away before reading it (413, 422) cached nothing; any other may have left
        # cells in its cache (a page cut off by its deadline keeps the cells it finished).
        if status not in (413, 422):
            variants[index] = (body, variant(body, serial))
            serial += 1
        counter += 1
        statuses[status] = statuses.get(status, 0) + 1
    results.put(statuses)


def fresh_page(token):
    cells = ",".join('{"type":"box","id":"%s_%d","size":[1,1]}' % (token, i) for i in range(5000))
    return '{"cells":[' + cells + ']}'


def run_attack(args):
    pages = [open(os.path.join(args.pages, name), "rb").read().decode()
             for name in sorted(os.listdir(args.pages)) if name.endswith(".json")]
    stop = threading.Event()
    lock = threading.Lock()
    samples = {"idle": [], "attack": []}
    statuses = {"idle": {}, "attack": {}, "attacker": {}}

    phase = ["warm-up"]  # "idle" or "attack" while recording, anything else while not

    # The probes' new cells are new on every run too (a retry against the same server included).
    nonce = "%x" % random.getrandbits(32)

    def probe(number):
        rng = random.Random(number)
        connection = connect(args.url)
        counter = 0
        while not stop.is_set():
            counter += 1
            body = rng.choice(pages).replace("@FRESH@", "p%sn%dn%d" % (nonce, number, counter))
            before = phase[0]
            status, seconds = post(connection, body)
            if before == phase[0] and before in samples:  # the phase did not change under this request
                with lock:
                    samples[before].append(seconds)
                    statuses[before][status] = statuses[before].get(status, 0) + 1
            time.sleep(0.05)


    bodies = []
    for kind in args.kinds.split(","):
        bodies += attack_bodies(kind, args.limit)
    # The attackers run in processes of their own, so that they do not slow the probes' Python down, and make
    # their bodies before the probes start. Quiet and attacked windows alternate, so that a change in the
    # machine's load (it is shared) weighs on both alike.
    results = multiprocessing.Queue()
    go, done = multiprocessing.Event(), multiprocessing.Event()
    attackers = [multiprocessing.Process(target=attacker, args=(args.url, i, bodies, go, done, results), daemon=True)
                 for i in range(args.attackers)]
    for process in attackers:
        process.start()
    threads = [threading.Thread(target=probe, args=(i,), daemon=True) for i in range(args.probes)]
    for thread in threads:
        thread.start()
    time.sleep(4)  # warm up: connections, the popular cells in the cache, the attackers' bodies
    window = 2.5
    for _ in range(max(1, int(args.seconds / window))):
        phase[0] = "idle"
        time.sleep(window)
        phase[0] = "attack"
        go.set()
        time.sleep(window)
        go.clear()
        phase[0] = "settling"  # the last attacks' work may still be running
        time.sleep(2.5)
    stop.set()
    done.set()
    for process in attackers:
        for status, count in results.get(timeout=120).items():
            statuses["attacker"][status] = statuses["attacker"].get(status, 0) + count
        process.join(5)
    with lock:
        idle, attack = samples["idle"], samples["attack"]
        p99_idle, p99_attack = percentile(idle, 0.99), percentile(attack, 0.99)
        ratio = p99_attack / p99_idle if p99_idle > 0 else float("inf")
        bound = args.max_ratio * p99_idle + args.allowance_ms / 1000
        ok = p99_attack <= bound and set(statuses["attack"]) <= {200} and set(statuses["idle"]) <= {200}
        print("attack %-28s probes alone: %d requests, p50 %.1f ms, p99 %.1f ms; under attack: %d requests, "
              "p50 %.1f ms, p99 %.1f ms (%.2fx; bound %.1f ms); probe statuses alone %s, under attack %s; "
              "attackers' statuses %s: %s"
              % (args.kinds, len(idle), 1000 * percentile(idle, 0.5), 1000 * p99_idle, len(attack),
                 1000 * percentile(attack, 0.5), 1000 * p99_attack, ratio, 1000 * bound, statuses["idle"],
                 statuses["attack"],
                 statuses["attacker"], "ok" if ok else "FAILED"))
    return ok


# --- slow loris -----------------------------------------------------------------------------------------------

def run_slowloris(args):
    parts = urllib.parse.urlsplit(args.url)
    head = b"POST /v1/layout HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n"
    results = {}

    def trickle(name, prefix, rest):
        sock = socket.create_connection((parts.hostname, parts.port))
        sock.sendall(prefix)
        start = time.monotonic()
        closed_at = None
        for byte in rest:
            if time.monotonic() - start > args.seconds:
                break
            try:
                sock.sendall(bytes([byte]))
                sock.settimeout(2)
                data = sock.recv(4096)
                if not data or b"408" in data:
                    closed_at = time.monotonic() - start
                    results[name] = (closed_at, data.split(b"\r\n")[0].decode(errors="replace"))
                    break
            except socket.timeout:
                continue
            except OSError:
                closed_at = time.monotonic() - start
                results[name] = (closed_at, "closed")
                break
        if closed_at is None:
            results[name] = (None, "still open after %d s" % args.seconds)
        sock.close()

    threads = [threading.Thread(target=trickle, args=("head", b"", head)),
               threading.Thread(target=trickle, args=("body", head, b"{" * 1000))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ok = all(at is not None and at <= args.within for at, _ in results.values())
    text = "; ".join("%s trickled 1 byte / 2 s: %s" % (name, "closed after %.1f s (%s)" % (at, what) if at is not None else what)
                     for name, (at, what) in sorted(results.items()))
    print("slowloris %s: %s" % (text, "ok" if ok else "FAILED"))
    return ok


# --- descriptors ----------------------------------------------------------------------------------------------

def cpu_seconds(pid):
    """The CPU time the process has used, or None once it has exited."""
    try:
        fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    if fields[0] == "Z":
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def probe_once(url, timeout=5):
    parts = urllib.parse.urlsplit(url)
    try:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        status, seconds = post(connection, '{"type": "box", "id": "a", "size": [1, 1]}')
        connection.close()
        return status
    except OSError:
        return 0


def run_sockets(args):
    parts = urllib.parse.urlsplit(args.url)
    held = []
    for _ in range(args.sockets):
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.connect((parts.hostname, parts.port))
        except BlockingIOError:
            pass
        except OSError:
            sock.close()
            continue
        held.append(sock)
    time.sleep(2)
    during = [probe_once(args.url) for _ in range(20)]
    before, start = cpu_seconds(args.pid), time.monotonic()
    time.sleep(3)
    after_cpu = cpu_seconds(args.pid)
    cpu = None if before is None or after_cpu is None else (after_cpu - before) / (time.monotonic() - start)
    for sock in held:
        sock.close()
    time.sleep(2)
    after = [probe_once(args.url) for _ in range(20)]
    alive = cpu_seconds(args.pid) is not None
    ok = alive and during.count(200) == 20 and after.count(200) == 20 and cpu is not None and cpu < 0.5
    print("sockets %d idle connections held: %d/20 new requests answered 200 meanwhile, server CPU %s while they "
          "were held; after they closed: %d/20 answered 200%s: %s"
          % (len(held), during.count(200), "%.0f%% of a core" % (100 * cpu) if cpu is not None else "- (exited)",
             after.count(200), "" if alive else "; the server process had exited", "ok" if ok else "FAILED"))
    return ok


# --- memory ---------------------------------------------------------------------------------------------------

def rss_bytes(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def run_memory(args):
    stop = threading.Event()
    start_rss = rss_bytes(args.pid)
    peak = [start_rss]

    def client(number):
        connection = connect(args.url)
        rng = random.Random(number)
        counter = 0
        while not stop.is_set():
            counter += 1
            token = "m%dn%d" % (number, counter)
            if args.kind == "tiny":
                cells = ['{"type":"box","id":"%s_%d"}' % (token, i) for i in range(200)]
            else:
                cells = [json.dumps(make_pages.photo_cell(rng, "%s_%d" % (token, i)), separators=(",", ":"))
                         for i in range(20)]
            post(connection, '{"cells":[' + ",".join(cells) + "]}")

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(4)]
    for thread in threads:
        thread.start()
    samples = []
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        time.sleep(1)
        samples.append(rss_bytes(args.pid))
        peak[0] = max(peak[0], samples[-1])
    stop.set()
    caches = args.cache_bytes + args.text_cache_bytes
    bound = start_rss + args.factor * caches
    ok = peak[0] <= bound
    late = samples[len(samples) // 2:]
    print("memory %-5s %d s: RSS at start %.0f MB, peak %.0f MB, second half %.0f-%.0f MB; cache bounds %.0f MB "
          "(cells %.0f, shaped text %.0f); peak - start = %.2f x the cache bounds (limit %.1f): %s"
          % (args.kind, args.seconds, start_rss / 1e6, peak[0] / 1e6, min(late) / 1e6, max(late) / 1e6,
             caches / 1e6, args.cache_bytes / 1e6, args.text_cache_bytes / 1e6, (peak[0] - start_rss) / caches,
             args.factor, "ok" if ok else "FAILED"))
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=["attack", "slowloris", "sockets", "memory"])
    parser.add_argument("url")
    parser.add_argument("--report", action="store_true", help="print only; never fail")
    parser.add_argument("--pages")
    parser.add_argument("--kinds", default="array,cells,escapes,text,wide,nested,flexnest,bidi")
    parser.add_argument("--limit", type=int, default=1 << 20)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--probes", type=int, default=20)
    parser.add_argument("--attackers", type=int, default=2)
    parser.add_argument("--within", type=float, default=15)
    parser.add_argument("--max-ratio", type=float, default=2.0,
                        help="attack: the most the probes' p99 under attack may be, as a multiple of their p99 alone")
    parser.add_argument("--allowance-ms", type=float, default=0.0,
                        help="attack: milliseconds allowed on top of max-ratio x p99 alone")
    parser.add_argument("--pid", type=int)
    parser.add_argument("--sockets", type=int, default=400)
    parser.add_argument("--cache-bytes", type=int, default=64 << 20)
    parser.add_argument("--kind", default="tiny", choices=["tiny", "photo"])
    parser.add_argument("--text-cache-bytes", type=int, default=16 << 20,
                        help="memory: the server's --text-cache-bytes (its shaped-text cache counts in the bound)")
    parser.add_argument("--factor", type=float, default=1.5)
    args = parser.parse_args()
    ok = {"attack": run_attack, "slowloris": run_slowloris, "sockets": run_sockets, "memory": run_memory}[args.check](args)
    sys.exit(0 if ok or args.report else 1)


if __name__ == "__main__":
    main()
