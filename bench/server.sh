#!/usr/bin/env bash
# Benchmarks `places serve` against a redis-server on the same machine, in the same run, with
# redis-benchmark (50 clients, unpipelined and -P 16):
#   DETAILS <id> and SEARCH … on places (cached entries) versus GET on redis-server (same payload size),
#   and DETAILS and SEARCH on a second places server with the reply memo off (every request reads the index;
#   identical requests in flight still share one read), then both once more from a single client, where
#   nothing is shared: the CPU of one uncached request.
# Prints throughput, p50/p99, the server's CPU time per request (steadier than throughput on a shared
# machine) and the DETAILS/GET ratio, then the RSS of places serve with 1,000 idle
# connections, then checks the Python redis client (when `pip install redis` has been done) and SIGTERM.
# All traffic stays on 127.0.0.1; every loop is bounded.
#
#   bash bench/server.sh                # REQUESTS=200000 by default
#   REQUESTS=50000 bash bench/server.sh
#   PLACES_BIN=/tmp/old/places bash bench/server.sh    # no build: this binary (its resource bundle beside it)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${SCRATCH:-$ROOT/.build-bench-server}
REQUESTS=${REQUESTS:-200000}
CLIENTS=50
PLACES_PORT=${PLACES_PORT:-17878}
NOMEMO_PORT=${NOMEMO_PORT:-17879}
REDIS_PORT=${REDIS_PORT:-16379}

for tool in redis-server redis-benchmark redis-cli python3; do
  command -v "$tool" >/dev/null || { echo "bench/server.sh: $tool is not installed (apt-get install redis-server redis-tools)" >&2; exit 2; }
done

if [ -n "${PLACES_BIN:-}" ]; then
  BIN=$PLACES_BIN  # an already built binary, e.g. an older commit's for a before/after in the same session
else
  echo "building places (release, static Swift stdlib: the shipped build, see README) …" >&2
  swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product places >&2
  BIN="$SCRATCH/release/places"
fi

WORK=$(mktemp -d)
export PLACES_HOME="$WORK/home"
PLACES_PID=""
NOMEMO_PID=""
REDIS_PID=""
cleanup() {
  [ -n "$PLACES_PID" ] && kill "$PLACES_PID" 2>/dev/null || true
  [ -n "$NOMEMO_PID" ] && kill "$NOMEMO_PID" 2>/dev/null || true
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# A signal ends the script through that trap too (bash runs no EXIT trap when a signal kills it), so the servers
# it started never outlive it; bash takes the signal once the command in the foreground has ended.
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

echo "building the index in a fresh PLACES_HOME …" >&2
ID=$("$BIN" search "maya bar" --near 60.1721,24.9450 --json 2>/dev/null \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')

# Default settings, as a user runs it (event loops: half the cores, at least one).
"$BIN" serve --port "$PLACES_PORT" --log-level warning 2>"$WORK/serve.log" &
PLACES_PID=$!
# The same with the reply memo off: every DETAILS reads the index (SQLite) and encodes JSON again.
"$BIN" serve --port "$NOMEMO_PORT" --memo-ttl 0 --log-level warning 2>"$WORK/serve-nomemo.log" &
NOMEMO_PID=$!
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --logfile "$WORK/redis.log" &
REDIS_PID=$!

wait_for() {  # port
  for _ in $(seq 1 100); do
    redis-cli -h 127.0.0.1 -p "$1" PING >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "bench/server.sh: nothing answered on port $1" >&2
  exit 1
}
wait_for "$PLACES_PORT"
wait_for "$NOMEMO_PORT"
wait_for "$REDIS_PORT"

# Warm the cached entries, and give redis a value of the same size as the DETAILS reply.
PAYLOAD=$(redis-cli -h 127.0.0.1 -p "$PLACES_PORT" DETAILS "$ID")
redis-cli -h 127.0.0.1 -p "$PLACES_PORT" SEARCH "maya bar" NEAR 60.1721 24.9450 >/dev/null
redis-cli -h 127.0.0.1 -p "$REDIS_PORT" SET bench:details "$PAYLOAD" >/dev/null
echo "details id $ID, reply ${#PAYLOAD} bytes; $REQUESTS requests, $CLIENTS clients; $(nproc) cores" >&2

cpu_ticks() {  # pid: user + system time in clock ticks
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# redis-benchmark --csv: "test","rps","avg","min","p50","p95","p99","max"
bench() {  # label port pipeline command…   (requests: $REQUESTS, or $n when set)
  local label=$1 port=$2 pipeline=$3 pid before after requests=${n:-$REQUESTS}
  shift 3
  case $port in
    "$PLACES_PORT") pid=$PLACES_PID ;;
    "$NOMEMO_PORT") pid=$NOMEMO_PID ;;
    *) pid=$REDIS_PID ;;
  esac
  before=$(cpu_ticks "$pid")
  redis-benchmark -h 127.0.0.1 -p "$port" -c "$CLIENTS" -n "$requests" -P "$pipeline" --csv "$@" 2>/dev/null \
    | tail -n 1 | tr -d '"' >"$WORK/bench.csv"
  after=$(cpu_ticks "$pid")
  awk -F, -v label="$label" -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
    '{ printf "%-28s %9.0f req/s   p50 %.3f ms   p99 %.3f ms   server CPU %.2f us/req\n", label, $2, $5, $7, ticks / hz * 1e6 / n }' \
    "$WORK/bench.csv"
}

declare -A RPS
for pipeline in 1 16; do
  suffix=$([ "$pipeline" = 1 ] && echo "unpipelined" || echo "-P $pipeline")
  for run in "redis GET|$REDIS_PORT|GET bench:details" "places DETAILS|$PLACES_PORT|DETAILS $ID"; do
    IFS='|' read -r label port command <<<"$run"
    # shellcheck disable=SC2086
    line=$(bench "$label ($suffix)" "$port" "$pipeline" $command)
    echo "$line"
    RPS["$label $pipeline"]=$(echo "$line" | awk '{ for (i = 1; i <= NF; i++) if ($(i+1) == "req/s") print $i }')
  done
  bench "places SEARCH ($suffix)" "$PLACES_PORT" "$pipeline" SEARCH "maya bar" NEAR 60.1721 24.9450
  n=$((REQUESTS / 20)) bench "DETAILS, memo off ($suffix)" "$NOMEMO_PORT" "$pipeline" DETAILS "$ID"
  n=$((REQUESTS / 20)) bench "SEARCH, memo off ($suffix)" "$NOMEMO_PORT" "$pipeline" SEARCH "maya bar" NEAR 60.1721 24.9450
  awk -v d="${RPS["places DETAILS $pipeline"]}" -v g="${RPS["redis GET $pipeline"]}" -v run="$suffix" \
    'BEGIN { printf "ratio DETAILS/GET (%s): %.1f %%  (target >= 50 %%)\n", run, d / g * 100 }'
done

# One client, unpipelined: every request is its own index read and JSON (no identical request in flight to share with).
CLIENTS=1 n=$((REQUESTS / 100)) bench "DETAILS, memo off, 1 client" "$NOMEMO_PORT" 1 DETAILS "$ID"
CLIENTS=1 n=$((REQUESTS / 100)) bench "SEARCH, memo off, 1 client" "$NOMEMO_PORT" 1 SEARCH "maya bar" NEAR 60.1721 24.9450

# RSS with 1,000 idle connections (each sends one PING so the server has set it up).
python3 - "$PLACES_PORT" "$PLACES_PID" <<'PY'
import socket, sys, time
port, pid = int(sys.argv[1]), sys.argv[2]
def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
before = rss_kib()
sockets = []
for _ in range(1000):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"PING\r\n")
    sockets.append(s)
for s in sockets:
    assert s.recv(16).startswith(b"+PONG"), "no PONG"
time.sleep(0.5)
after = rss_kib()
print(f"RSS places serve: {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB with 1000 idle connections "
      f"({(after - before) / 1000:.1f} KiB per connection)")
for s in sockets:
    s.close()
PY

if python3 -c "import redis" 2>/dev/null; then
  python3 - "$PLACES_PORT" <<'PY'
import json, sys, redis
r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]), protocol=2)  # RESP2: redis-py 8 defaults to RESP3
places = json.loads(r.execute_command("SEARCH", "maya bar"))
print(f"python redis client: SEARCH \"maya bar\" -> {len(places)} places, first {places[0]['name']!r}; "
      f"DETAILS unknown -> {r.execute_command('DETAILS', 'osm:node/1')!r}")
PY
else
  echo "python redis client: not installed (pip install redis), skipped"
fi

# Graceful shutdown: SIGTERM with a client connected must exit 0.
kill -TERM "$PLACES_PID"
status=0
wait "$PLACES_PID" || status=$?
PLACES_PID=""
echo "places serve exit status after SIGTERM: $status"
