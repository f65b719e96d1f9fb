#!/usr/bin/env bash
# The shared-state stores on PostgreSQL against their SQLite twins, in the same run (issue 15): cache-hit latency
# and throughput with 50 concurrent clients, budget reservations per second, and spots `near` with 100,000 spots.
# Starts a throwaway PostgreSQL 15 cluster (Tests/PostgresTestCluster/cluster.sh) with durable settings restored
# (the test cluster turns fsync off; a benchmark must not), runs `places-bench postgres`, stops the cluster.
# The bench process's own CPU time is printed by /usr/bin/time (PostgreSQL's is on top, in its own processes).
#
#   swift build -c release --product places-bench && bench/postgres.sh [path/to/places-bench] [places-bench options…]
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${1:-.build/release/places-bench}
[ -x "$BENCH" ] || { echo "build first: swift build -c release --product places-bench" >&2; exit 1; }
shift || true

eval "$(bash Tests/PostgresTestCluster/cluster.sh start)"
trap 'bash Tests/PostgresTestCluster/cluster.sh stop "$PLACES_TEST_CLUSTER_DIR"' EXIT
PSQL=$(command -v psql || echo "$(cat "$PLACES_TEST_CLUSTER_DIR/bin")/psql")
"$PSQL" "$PLACES_TEST_DATABASE_URL" -qAt -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" \
    -c "ALTER SYSTEM SET full_page_writes = on" -c "SELECT pg_reload_conf()" -c "CREATE DATABASE places_bench" >/dev/null
URL=${PLACES_TEST_DATABASE_URL%/postgres}/places_bench
echo "# $(nproc) cores; PostgreSQL $("$PSQL" "$URL" -qAt -c 'SHOW server_version'), fsync $("$PSQL" "$URL" -qAt -c 'SHOW fsync'), synchronous_commit $("$PSQL" "$URL" -qAt -c 'SHOW synchronous_commit')"
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "# places-bench: %e s wall, %U s user, %S s system CPU" "$BENCH" postgres --url "$URL" "$@"
else
    time "$BENCH" postgres --url "$URL" "$@"
fi
