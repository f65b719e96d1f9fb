#!/usr/bin/env bash
# The shared state on PostgreSQL against SQLite, in the same run (issue 15):
# 1. `places serve` itself: cache-hit LOOKUP p50/p99 and throughput with 50 clients (redis-benchmark), one server
#    on SQLite and one on PostgreSQL, with redis-server's GET of a reply-sized value as the reference, and each
#    server's CPU time per request. The answers come from a fake Google on 127.0.0.1 (bench/fake_upstreams.py),
#    called once per server to warm its cache; the script checks no further call went out (every LOOKUP was a hit).
# 2. `places-bench postgres`: the stores directly: cache hits at 50 clients, budget reservations per second
#    (reserve + settle, 50 at a time), spots `near` (805 m) with 100,000 spots.
# Starts a throwaway PostgreSQL 15 cluster (Tests/PostgresTestCluster/cluster.sh) with durable settings restored
# (the test cluster turns fsync off; a benchmark must not), stops it and removes its directory at the end.
#
#   swift build -c release --product places-bench && swift build -c release --product places && bench/postgres.sh
#   REQUESTS=20000 bench/postgres.sh [path/to/places-bench] [places-bench options…]
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${1:-.build/release/places-bench}
PLACES=${PLACES:-$(dirname "$BENCH")/places}
REQUESTS=${REQUESTS:-20000}
CLIENTS=50
[ -x "$BENCH" ] || { echo "build first: swift build -c release --product places-bench && swift build -c release --product places" >&2; exit 1; }
for tool in redis-server redis-benchmark redis-cli python3 curl; do
    command -v "$tool" >/dev/null || { echo "bench/postgres.sh: $tool is not installed" >&2; exit 2; }
done
shift || true

source bench/throwaway_cluster.sh
PSQL=$(command -v psql || echo "$(cat "$PLACES_TEST_CLUSTER_DIR/bin")/psql")
"$PSQL" "$PLACES_TEST_DATABASE_URL" -qAt -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" \
    -c "ALTER SYSTEM SET full_page_writes = on" -c "SELECT pg_reload_conf()" -c "CREATE DATABASE places_bench" >/dev/null
URL=${PLACES_TEST_DATABASE_URL%/postgres}/places_bench
echo "# $(nproc) cores; PostgreSQL $("$PSQL" "$URL" -qAt -c 'SHOW server_version'), fsync $("$PSQL" "$URL" -qAt -c 'SHOW fsync'), synchronous_commit $("$PSQL" "$URL" -qAt -c 'SHOW synchronous_commit')"
echo "# load before: $(uptime)"

source bench/fake_upstream_home.sh
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }  # pid: user + system CPU in clock ticks

# 1. The server (skipped, saying so, without a `places` binary beside places-bench or in $PLACES).
if [ -x "$PLACES" ]; then
FAKE_PORT=$(free_port)
python3 bench/fake_upstreams.py "$FAKE_PORT" >"$WORK/fake.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$FAKE_PORT/__calls"
export YELP_API_KEY=bench-yelp-key GOOGLE_PLACES_API_KEY=bench-google-key
declare -A PORT PID
for backend in sqlite postgres; do
    home="$WORK/home-$backend"
    mkdir -p "$home"
    write_fake_config "$home/config.toml" "$FAKE_PORT"
    [ "$backend" = postgres ] && printf '[storage]\nurl = "%s"\n' "$URL" >>"$home/config.toml"
    PLACES_HOME="$home" "$PLACES" reverse 60.17,24.94 >/dev/null  # builds the local index
    PORT[$backend]=$(free_port)
    PLACES_HOME="$home" "$PLACES" serve --port "${PORT[$backend]}" --log-level warning 2>"$WORK/serve-$backend.log" &
    PID[$backend]=$!
    PIDS+=($!)
done
REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --logfile "$WORK/redis.log" &
REDIS_PID=$!
PIDS+=($!)
for port in "${PORT[sqlite]}" "${PORT[postgres]}" "$REDIS_PORT"; do wait_for "$port"; done

QUERY=(LOOKUP "Aurora Sauna Club" NEAR 60.1665 24.9573)
for backend in sqlite postgres; do
    REPLY=$(redis-cli -h 127.0.0.1 -p "${PORT[$backend]}" "${QUERY[@]}")
    case $REPLY in *Aurora*) ;; *) echo "bench/postgres.sh: the warming LOOKUP on $backend answered: $REPLY" >&2; exit 1 ;; esac
done
redis-cli -h 127.0.0.1 -p "$REDIS_PORT" SET bench:reply "$REPLY" >/dev/null
CALLS_WARM=$(curl -s "http://127.0.0.1:$FAKE_PORT/__calls")
echo "# server: ${QUERY[*]}: reply ${#REPLY} bytes; $REQUESTS requests, $CLIENTS clients, unpipelined; upstream calls to warm: $CALLS_WARM"

# redis-benchmark --csv: "test","rps","avg","min","p50","p95","p99","max"
bench() {  # label port pid command…
    local label=$1 port=$2 pid=$3 before after
    shift 3
    before=$(cpu_ticks "$pid")
    redis-benchmark -h 127.0.0.1 -p "$port" -c "$CLIENTS" -n "$REQUESTS" --csv "$@" 2>/dev/null | tail -n 1 | tr -d '"' >"$WORK/bench.csv"
    after=$(cpu_ticks "$pid")
    awk -F, -v label="$label" -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$REQUESTS" \
        '{ printf "%-34s p50 %.3f ms  p99 %.3f ms  %7.0f req/s  server CPU %.1f us/req\n", label, $5, $7, $2, ticks / hz * 1e6 / n }' \
        "$WORK/bench.csv"
}
bench "server.redis_get (reference)" "$REDIS_PORT" "$REDIS_PID" GET bench:reply
for backend in sqlite postgres; do
    bench "server.lookup_cache_hit.$backend" "${PORT[$backend]}" "${PID[$backend]}" "${QUERY[@]}"
done
CALLS_AFTER=$(curl -s "http://127.0.0.1:$FAKE_PORT/__calls")
[ "$CALLS_AFTER" = "$CALLS_WARM" ] || { echo "bench/postgres.sh: upstream calls during the run: $CALLS_WARM -> $CALLS_AFTER (not all hits)" >&2; exit 1; }
for backend in sqlite postgres; do kill "${PID[$backend]}"; done
else
    echo "# server section skipped: no $PLACES (swift build -c release --product places)"
fi

# 2. The stores.
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "# places-bench: %e s wall, %U s user, %S s system CPU" "$BENCH" postgres --url "$URL" "$@"
else
    time "$BENCH" postgres --url "$URL" "$@"
fi

# 3. The reference for reservations: pgbench on the same database, 50 clients each running what one reservation
#    cost before group commit (`places_reserve(…)`, then the settle UPDATE: two durable commits under the budget
#    lock). Its rate is the ceiling of one-commit-per-call; group commit is measured against it.
PGBENCH=$(command -v pgbench || echo "$(cat "$PLACES_TEST_CLUSTER_DIR/bin")/pgbench")
cat >"$WORK/reserve.sql" <<'SQL'
SELECT charge_id AS id FROM places_reserve('pgbench', 'pgbench.call', 32000, 'pgbench-day', 'pgbench-month', 0, 0, NULL, NULL, NULL, NULL) \gset
UPDATE budget_charge SET state = 'settled' WHERE id = :id AND state = 'reserved';
SQL
"$PGBENCH" -n -c "$CLIENTS" -j 2 -T "${PGBENCH_SECONDS:-20}" -f "$WORK/reserve.sql" "$URL" 2>/dev/null \
    | awk '/^tps/ { printf "pgbench.reserve_then_settle_per_s %.0f (%d clients, one commit per reserve and per settle)\n", $3, '"$CLIENTS"' }'
echo "# load after: $(uptime)"
