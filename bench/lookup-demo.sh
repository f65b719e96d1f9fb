#!/usr/bin/env bash
# One `places lookup --explain` run per pipeline path, against fake Yelp and Google servers on
# 127.0.0.1 (bench/fake_upstreams.py): local hit, cheap accept, costly fallback, cache hit,
# budget exhausted. Nothing leaves the machine; state lives in a temporary PLACES_HOME.
#
#   swift build -c release --product places && bench/lookup-demo.sh [path/to/places]
set -euo pipefail
cd "$(dirname "$0")/.."
PLACES=${1:-.build/release/places}
[ -x "$PLACES" ] || { echo "build first: swift build -c release --product places" >&2; exit 1; }

export PLACES_HOME=$(mktemp -d -t places-demo-XXXXXX)
PORT=${DEMO_PORT:-18765}
python3 bench/fake_upstreams.py "$PORT" & FAKE_PID=$!
trap 'kill $FAKE_PID 2>/dev/null; rm -rf "$PLACES_HOME"' EXIT
export YELP_API_KEY=demo-yelp-key GOOGLE_PLACES_API_KEY=demo-google-key
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/__calls" >/dev/null && break; sleep 0.1; done

source bench/fake_upstream_home.sh
write_fake_config "$PLACES_HOME/config.toml" "$PORT"

run() { echo; echo "\$ places $*"; "$PLACES" "$@" || echo "(exit $?)"; }

echo "== 1. local hit: the bundled OSM index knows the place; nothing is paid"
run lookup "Ateneum" --near 60.1703,24.9441 --explain
echo "== 2. cheap accept: OSM knows the bar but not its phone; Yelp's confident match has it; Google is not asked"
run lookup "Maya Bar & Grill" --near 60.1721,24.9450 --fields phone --explain
echo "== 3. costly fallback: Yelp only knows a different business; exactly one Google call"
run lookup "Aurora Sauna Club" --near 60.1665,24.9573 --fields phone,website --explain
echo "== 4. cache hit: the same question again; no provider is called"
run lookup "Aurora Sauna Club" --near 60.1665,24.9573 --fields phone,website --explain
echo "== 5. budget exhausted: Google may spend nothing more today; the best cheaper answer is returned"
run budget set google 0.035/day
run lookup "Polaris Sky Lounge" --near 60.1699,24.9384 --explain --json
echo
run budget
run cache stats
echo; echo "upstream calls received by the fakes: $(curl -s "http://127.0.0.1:$PORT/__calls")"
