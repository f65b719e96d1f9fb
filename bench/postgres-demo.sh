#!/usr/bin/env bash
# Two `places serve` instances on two ports, one PLACES_DATABASE_URL, behaving as one service (issue 15): one cache
# (a LOOKUP on A then on B makes one upstream call), one budget (the calls made through A and through B are both in
# BUDGET), one spot store (a spot added on A is listed by B). Each instance has a home of its own (its own local
# index and config); only the database is shared. The paid provider is a fake Google on 127.0.0.1
# (bench/fake_upstreams.py); the database is a throwaway cluster (Tests/PostgresTestCluster/cluster.sh), removed
# at the end with everything else.
#
#   swift build --product places && bench/postgres-demo.sh [path/to/places]
set -euo pipefail
cd "$(dirname "$0")/.."
PLACES=${1:-.build/debug/places}
[ -x "$PLACES" ] || { echo "build first: swift build --product places" >&2; exit 1; }
for tool in redis-cli python3 curl jq; do
    command -v "$tool" >/dev/null || { echo "bench/postgres-demo.sh: $tool is not installed" >&2; exit 2; }
done

source bench/throwaway_cluster.sh
source bench/fake_upstream_home.sh

FAKE_PORT=$(free_port)
python3 bench/fake_upstreams.py "$FAKE_PORT" >"$WORK/fake.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$FAKE_PORT/__calls"
export YELP_API_KEY=demo-yelp-key GOOGLE_PLACES_API_KEY=demo-google-key
export PLACES_DATABASE_URL=$PLACES_TEST_DATABASE_URL
declare -A PORT
for instance in A B; do
    home="$WORK/home-$instance"
    mkdir -p "$home"
    write_fake_config "$home/config.toml" "$FAKE_PORT"
    PLACES_HOME="$home" "$PLACES" reverse 60.17,24.94 >/dev/null 2>"$WORK/index-$instance.log"  # builds its local index
    PORT[$instance]=$(free_port)
    PLACES_HOME="$home" "$PLACES" serve --port "${PORT[$instance]}" --log-level warning 2>"$WORK/serve-$instance.log" &
    PIDS+=($!)
done
for instance in A B; do wait_for "${PORT[$instance]}"; done

# `A> COMMAND …`: the command sent to instance A and its reply, through a jq filter that keeps the telling fields.
ask() {  # instance filter command…
    local instance=$1 filter=$2
    shift 2
    printf '%s> %s\n' "$instance" "$*"
    redis-cli -h 127.0.0.1 -p "${PORT[$instance]}" "$@" | jq -c "$filter"
}
calls() { echo "   upstream calls so far: $(curl -s "http://127.0.0.1:$FAKE_PORT/__calls")"; }
LOOKUP_FIELDS='{name, cache, calls, cost_usd}'

echo "# two instances, one database: A on :${PORT[A]}, B on :${PORT[B]}, PLACES_DATABASE_URL=${PLACES_DATABASE_URL%%@*}@…"
echo "## one cache: the same LOOKUP on A, then on B"
ask A "$LOOKUP_FIELDS" LOOKUP "Aurora Sauna Club" NEAR 60.1665 24.9573
ask B "$LOOKUP_FIELDS" LOOKUP "Aurora Sauna Club" NEAR 60.1665 24.9573
calls
echo "## one budget: another paid LOOKUP on B; BUDGET on A counts both"
ask B "$LOOKUP_FIELDS" LOOKUP "Polaris Sky Lounge" NEAR 60.1699 24.9384
calls
ask A '.providers[] | select(.provider == "google") | {provider, today}' BUDGET
echo "## one spot store: a spot added on A, listed on B"
ask A '{id, name, lat, lon}' SPOT.ADD "Team lunch" 60.1717 24.9363 CATEGORY restaurant
ask B '[.[] | {id, name, lat, lon, category}]' SPOT.LIST
