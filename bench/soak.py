#!/usr/bin/env python3
"""Soak test for `places serve`: mixed valid and hostile traffic on 127.0.0.1 for a bounded time.

Started by bench/soak.sh (which builds the release binary); run alone with
    python3 bench/soak.py --bin .build-release/release/places [--seconds 60] [--workers 12]

It starts `places serve --port 0` on a fresh $PLACES_HOME, then runs worker threads until the time is
up, each picking one kind of traffic per round:
  valid       pipelined SEARCH/DETAILS/NEARBY/SUGGEST/PING plus SPOT.ADD writes with unique names,
              every reply counted
  halfclose   requests then a FIN (what `nc -N` does); every reply must come back, writes included
  random      random bytes
  adversarial hand-made bad RESP frames (negative and huge counts, bad lengths, missing CRLFs,
              NUL bytes, HTTP probes, out-of-range numbers)
  hugebulk    huge declared bulk lengths, requests of many 64 KiB arguments up to the request limit,
              1 MiB ECHOs, and bodies that stop halfway
  slowloris   partial frames dribbled a few bytes at a time, then abandoned
Afterwards it checks that the server still answers PING, that its RSS is back under the limit
(100 MB by default; waits up to 15 s for it), that every acknowledged SPOT.ADD is in
`places spots list --json`, that the process never died, and that SIGTERM ends it with status 0.
It prints a summary and exits 1 on any failure. Every loop is bounded in count and time.
"""
import argparse
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

HOST = "127.0.0.1"


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


def bulk(*args):
    """A multibulk request."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class Replies:
    """Parses RESP2 replies from a byte stream."""

    def __init__(self):
        self.data = b""
        self.index = 0

    def feed(self, chunk):
        self.data += chunk

    def next(self):
        """(True, reply) for the next complete reply (a null bulk is None), (False, None) when incomplete."""
        value, end = self._parse(self.index)
        if end is None:
            return False, None
        self.index = end
        return True, value

    def _parse(self, i):
        newline = self.data.find(b"\r\n", i)
        if newline < 0:
            return None, None
        kind, line = self.data[i:i + 1], self.data[i + 1:newline]
        after = newline + 2
        if kind in (b"+", b"-", b":"):
            return (kind.decode() + line.decode("utf-8", "replace")), after
        if kind == b"$":
            length = int(line)
            if length < 0:
                return None, after
            if len(self.data) < after + length + 2:
                return None, None
            return self.data[after:after + length], after + length + 2
        if kind == b"*":
            items = []
            for _ in range(max(0, int(line))):
                item, after = self._parse(after)
                if after is None:
                    return None, None
                items.append(item)
            return items, after
        raise ValueError(f"unparseable reply byte {kind!r}")


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.acknowledged = set()
        self.problems = []

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + n

    def ack(self, name):
        with self.lock:
            self.acknowledged.add(name)

    def problem(self, text):
        with self.lock:
            if len(self.problems) < 50:
                self.problems.append(text)


def connect(port, timeout=10):
    sock = socket.create_connection((HOST, port), timeout=timeout)
    sock.settimeout(timeout)
    return sock


def read_replies(sock, expected, replies=None):
    """Reads until `expected` replies arrived or the server closed; returns (replies, closed)."""
    parser = replies or Replies()
    got = []
    while len(got) < expected:
        complete, value = parser.next()
        if complete:
            got.append(value)
            continue
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            return got, True
        if not chunk:
            return got, True
        parser.feed(chunk)
    return got, False


def read_all(sock):
    """Everything until the server closes (or 10 s pass)."""
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, socket.timeout, OSError):
            return data
        if not chunk:
            return data
        data += chunk


def parse_all(data):
    parser = Replies()
    parser.feed(data)
    values = []
    while True:
        complete, value = parser.next()
        if not complete:
            return values
        values.append(value)


def spot_add(name, rng):
    lat = 60.15 + rng.random() * 0.05
    lon = 24.90 + rng.random() * 0.08
    return bulk("SPOT.ADD", name, f"{lat:.5f}", f"{lon:.5f}", "TAG", "soak", "NOTE", "x" * rng.randint(0, 2000))


def acknowledged_name(reply):
    if isinstance(reply, bytes):
        try:
            return json.loads(reply).get("name")
        except (ValueError, AttributeError):
            return None
    return None


VALID_READS = [
    bulk("SEARCH", "maya bar", "NEAR", "60.1721", "24.9450"),
    bulk("SEARCH", "kiasma"),
    bulk("SEARCH", "cafe", "LIMIT", "5"),
    bulk("NEARBY", "60.1699", "24.9384", "RADIUS", "300"),
    bulk("SUGGEST", "ka"),
    bulk("REVERSE", "60.17", "24.94"),
    bulk("DETAILS", "geonames:658225"),
    bulk("SCORE", "Maya Bar & Grill", "Maya Bar and Grill"),
    bulk("PING"),
    b"PING\r\n",
    b"SEARCH \"ravintola\" LIMIT 3\r\n",
]


def traffic_valid(port, rng, stats):
    requests, writes = [], []
    for _ in range(rng.randint(20, 120)):
        if rng.random() < 0.25:
            name = f"soak-valid-{uuid.uuid4()}"
            writes.append(name)
            requests.append(spot_add(name, rng))
        else:
            requests.append(rng.choice(VALID_READS))
    with connect(port) as sock:
        sock.sendall(b"".join(requests))
        replies, _ = read_replies(sock, len(requests))
    stats.count("valid requests", len(requests))
    stats.count("spot writes sent", len(writes))
    record_replies(stats, "valid pipeline", requests, replies)


def traffic_halfclose(port, rng, stats):
    requests = [bulk("SEARCH", "kiasma")] if rng.random() < 0.5 else [b"SEARCH kiasma\r\n"]
    count = rng.randint(1, 40)
    for _ in range(count):
        name = f"soak-halfclose-{uuid.uuid4()}"
        requests.append(spot_add(name, rng) if rng.random() < 0.5 else f'SPOT.ADD "{name}" 60.17 24.94\r\n'.encode())
    with connect(port) as sock:
        sock.sendall(b"".join(requests))
        sock.shutdown(socket.SHUT_WR)
        replies = parse_all(read_all(sock))
    stats.count("half-closed connections")
    stats.count("spot writes sent", count)
    record_replies(stats, "half-closed client", requests, replies)


def record_replies(stats, what, requests, replies):
    """Checks that every request got a reply; notes each SPOT.ADD the server acknowledged."""
    if len(replies) != len(requests):
        stats.problem(f"{what}: {len(replies)} of {len(requests)} replies")
    for reply in replies:
        name = acknowledged_name(reply)
        if name and name.startswith("soak-"):
            stats.ack(name)
        if isinstance(reply, str) and reply.startswith("-"):
            stats.count(f"{what} error replies")


ADVERSARIAL = [
    b"*-1\r\n", b"*0\r\n", b"*99999999999999999999\r\n", b"*1048577\r\n", b"*2\r\n$-5\r\n",
    b"*1\r\n$abc\r\n", b"*1\r\n$4\r\nPINGxx", b"*2\r\n$4\r\nPING\r\n\x00\x01", b"*1\r\nPING\r\n",
    b"$5\r\nhello\r\n", b"*3\r\n$3\r\nSET\r\n*1\r\n$1\r\nx\r\n", b":1\r\n+OK\r\n-ERR\r\n",
    b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", b"POST /api HTTP/1.1\r\n\r\n", b"Host: evil\r\n",
    b"SEARCH \"unbalanced\r\n", b"SEARCH 'x\r\n", b"\r\n\r\n\r\n", b"\n" * 100,
    b"*2\r\n$6\r\nSEARCH\r\n$9223372036854775807\r\n", b"*2\r\n$6\r\nSEARCH\r\n$-9223372036854775808\r\n",
    b"*1\r\n$9999999999999999999\r\n", b"*1\r\n$ 3\r\n", b"*\r\n", b"$\r\n",
    bulk("SEARCH", "x", "NEAR", "nan", "inf"), bulk("NEARBY", "91", "181"), bulk("SEARCH", "x", "LIMIT", "-1"),
    bulk("SEARCH", "x", "RADIUS", "1e400", "NEAR", "60", "24"), bulk("DETAILS", "osm:node/-1"),
    bulk("DETAILS", "\x00\xff"), bulk("SPOT.ADD", "", "x", "y"), bulk("SPOT.SHOW", "../../etc/passwd"),
    bulk("SPOT.LIST", "SORT", "nope"), bulk("AUTH", "x" * 100), bulk("HELLO", "99"), bulk("CONFIG", "SET", "x", "y"),
    bulk("SEARCH", "\u202e\u0007\u001b[31m"), bulk("SCORE", "{", "}"), bulk("SCORE", '{"name": 5}', "x"),
    bulk("LOOKUP", "x", "FIELDS"), bulk("NOSUCH", *["a"] * 40), b"INFO " + b"x " * 500 + b"\r\n",
]

# Values outside every range a coordinate can take; answered with an error once numbers are checked
# where they enter (issue 16, item 1). Sent only with --out-of-range (on by default).
OUT_OF_RANGE = [
    bulk("REVERSE", "1e19", "0"), bulk("SEARCH", "cafe", "NEAR", "1e19", "0"),
    bulk("SPOT.NEAREST", "99999999999999999999", "24.94"), bulk("SPOT.ADD", "big", "1e308", "1e308"),
]


def send_then_drain(sock, chunks):
    """Sends the chunks (stopping quietly once the server has closed), then a FIN, then reads until
    the server closes."""
    try:
        for chunk in chunks:
            sock.sendall(chunk)
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    return read_all(sock)


def traffic_adversarial(port, rng, stats, out_of_range):
    frames = ADVERSARIAL + (OUT_OF_RANGE if out_of_range else [])
    with connect(port, timeout=5) as sock:
        send_then_drain(sock, rng.sample(frames, rng.randint(1, 4)))
    stats.count("adversarial connections")


def traffic_random(port, rng, stats):
    with connect(port, timeout=3) as sock:
        send_then_drain(sock, [os.urandom(rng.randint(1, 8192))])
    stats.count("random-byte connections")


def traffic_hugebulk(port, rng, stats):
    kind = rng.randint(0, 4)
    with connect(port, timeout=10) as sock:
        if kind == 0:  # a huge declared length, nothing after it
            chunks = [b"*2\r\n$4\r\nECHO\r\n$%d\r\n" % rng.choice([1 << 20, 1 << 29, 1 << 31, 10 ** 15])]
        elif kind == 1:  # many 64 KiB arguments, up to and past the per-request limit
            count = rng.randint(8, 40)
            chunks = [b"*%d\r\n$8\r\nSPOT.ADD\r\n" % (count + 1)] + [b"$65536\r\n" + b"z" * 65536 + b"\r\n"] * count
        elif kind == 2:  # exactly 1 MiB ECHO, read back
            payload = os.urandom(1 << 20)
            sock.sendall(bulk("ECHO", payload))
            replies, _ = read_replies(sock, 1)
            if replies != [payload]:
                stats.problem("1 MiB ECHO did not come back intact")
            stats.count("1 MiB echoes")
            chunks = []
        elif kind == 3:  # a body that stops halfway, then the client goes away
            chunks = [b"*2\r\n$4\r\nECHO\r\n$1048576\r\n" + b"h" * rng.randint(1, 1 << 20)]
        else:  # a 2 MiB inline line without a newline
            chunks = [b"A" * (2 << 20)]
        send_then_drain(sock, chunks)
    stats.count("huge-bulk connections")


def traffic_slowloris(port, rng, stats, deadline):
    frame = bulk("SEARCH", "slow " * rng.randint(1, 50))
    cut = rng.randint(1, len(frame) - 1)
    socks = []
    try:
        for _ in range(rng.randint(5, 30)):
            socks.append(connect(port, timeout=5))
        for position in range(cut):
            if time.time() > deadline:
                break
            for sock in socks:
                sock.sendall(frame[position:position + 1])
            time.sleep(0.02)
    except OSError:
        pass
    finally:
        for sock in socks:
            sock.close()
    stats.count("slowloris connections", len(socks))


def worker(port, seed, deadline, stats, out_of_range):
    rng = random.Random(seed)
    kinds = ["valid"] * 4 + ["halfclose"] * 3 + ["adversarial"] * 3 + ["random"] * 2 + ["hugebulk"] * 2 + ["slowloris"]
    rounds = 0
    while time.time() < deadline and rounds < 100_000:
        rounds += 1
        kind = rng.choice(kinds)
        try:
            if kind == "valid":
                traffic_valid(port, rng, stats)
            elif kind == "halfclose":
                traffic_halfclose(port, rng, stats)
            elif kind == "adversarial":
                traffic_adversarial(port, rng, stats, out_of_range)
            elif kind == "random":
                traffic_random(port, rng, stats)
            elif kind == "hugebulk":
                traffic_hugebulk(port, rng, stats)
            else:
                traffic_slowloris(port, rng, stats, deadline)
        except OSError as error:
            stats.count(f"{kind} socket errors")
            if isinstance(error, ConnectionRefusedError):
                stats.problem(f"{kind}: connection refused (is the server down?)")
                time.sleep(0.1)


def ping(port):
    try:
        with connect(port, timeout=5) as sock:
            sock.sendall(b"PING\r\n")
            replies, _ = read_replies(sock, 1)
            return replies == ["+PONG"]
    except OSError:
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the places executable (release build)")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--workers", type=int, default=12)
    parser.add_argument("--rss-limit-mb", type=float, default=100)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--no-out-of-range", dest="out_of_range", action="store_false",
                        help="leave out coordinates such as 1e19 (for builds before numbers were range-checked)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="places-soak-")
    env = dict(os.environ, PLACES_HOME=os.path.join(work, "home"))
    log_path = os.path.join(work, "serve.log")
    print(f"soak: building the index in {env['PLACES_HOME']} …", file=sys.stderr)
    subprocess.run([args.bin, "reverse", "60.17,24.94"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(log_path, "w") as log:
        server = subprocess.Popen([args.bin, "serve", "--port", "0"],
                                  env=env, stdout=subprocess.DEVNULL, stderr=log, stdin=subprocess.DEVNULL)
    port = None
    for _ in range(600):  # 60 s at most
        with open(log_path) as log:
            match = re.search(r"address=\S*:(\d+)", log.read())
        if match:
            port = int(match.group(1))
            break
        if server.poll() is not None:
            break
        time.sleep(0.1)
    if port is None:
        # The "listening" line did not show up (a different log format): ask the OS.
        port = find_listening_port(server.pid)
    if port is None:
        print("soak: the server did not start", file=sys.stderr)
        server.kill()
        return 1
    print(f"soak: places serve pid {server.pid} on {HOST}:{port}; {args.workers} workers for {args.seconds:g} s",
          file=sys.stderr)

    stats = Stats()
    start_rss = rss_bytes(server.pid)
    start_cpu = cpu_seconds(server.pid)
    deadline = time.time() + args.seconds
    threads = [threading.Thread(target=worker, args=(port, args.seed * 1000 + n, deadline, stats, args.out_of_range))
               for n in range(args.workers)]
    for thread in threads:
        thread.start()
    peak_rss = start_rss
    while any(thread.is_alive() for thread in threads):
        if server.poll() is None:
            peak_rss = max(peak_rss, rss_bytes(server.pid))
        time.sleep(0.2)
    for thread in threads:
        thread.join(timeout=30)

    failures = []
    alive = server.poll() is None
    if not alive:
        failures.append(f"the server died during the run (status {server.returncode})")
    answers = alive and ping(port)
    if alive and not answers:
        failures.append("the server does not answer PING after the run")
    final_rss = rss_bytes(server.pid) if alive else 0
    settle_deadline = time.time() + 15
    while alive and final_rss > args.rss_limit_mb * 1e6 and time.time() < settle_deadline:
        time.sleep(0.5)
        final_rss = rss_bytes(server.pid)
    if alive and final_rss > args.rss_limit_mb * 1e6:
        failures.append(f"RSS {final_rss / 1e6:.1f} MB after the run is over {args.rss_limit_mb:g} MB")
    cpu = cpu_seconds(server.pid) - start_cpu if alive else float("nan")

    listed = subprocess.run([args.bin, "spots", "list", "--json"], env=env, capture_output=True)
    saved = {spot["name"] for spot in json.loads(listed.stdout or b"[]")} if listed.returncode == 0 else set()
    if listed.returncode != 0:
        failures.append(f"places spots list failed: {listed.stderr.decode().strip()}")
    lost = stats.acknowledged - saved

    status = None
    if alive:
        server.send_signal(signal.SIGTERM)
        try:
            status = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            failures.append("the server did not stop within 30 s of SIGTERM")
        if status not in (0, None):
            failures.append(f"exit status after SIGTERM was {status}, not 0")
    with open(log_path) as log:
        crashes = [line for line in log if "Fatal error" in line or "runtime failure" in line]
    if crashes:
        failures.append(f"crash lines in the server log: {crashes[:3]}")
    if lost:
        failures.append(f"{len(lost)} acknowledged SPOT.ADD writes are missing, e.g. {sorted(lost)[:3]}")
    for problem in stats.problems:
        failures.append(problem)

    print(f"soak summary ({args.seconds:g} s, {args.workers} workers, seed {args.seed})")
    for key in sorted(stats.counts):
        print(f"  {key}: {stats.counts[key]}")
    print(f"  acknowledged SPOT.ADD: {len(stats.acknowledged)}; found in spots list: {len(stats.acknowledged & saved)};"
          f" lost: {len(lost)}")
    print(f"  server RSS: start {start_rss / 1e6:.1f} MB, peak {peak_rss / 1e6:.1f} MB, after {final_rss / 1e6:.1f} MB"
          f" (limit {args.rss_limit_mb:g} MB)")
    print(f"  server CPU time during the run: {cpu:.1f} s")
    print(f"  answers PING afterwards: {'yes' if answers else 'no'}; crashes: {0 if alive and not crashes else 1};"
          f" exit status after SIGTERM: {status}")
    if failures:
        print("FAILED:")
        for failure in failures:
            print(f"  - {failure}")
        print(f"  (server log kept in {log_path})")
        return 1
    print("OK")
    subprocess.run(["rm", "-rf", work])
    return 0


def find_listening_port(pid):
    """The TCP port the process listens on, from /proc (loopback only)."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        return None
    with open("/proc/net/tcp") as table:
        for line in list(table)[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                return int(fields[1].split(":")[1], 16)
    return None


if __name__ == "__main__":
    sys.exit(main())
