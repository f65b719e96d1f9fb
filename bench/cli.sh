#!/usr/bin/env bash
# How long one warm `places` command takes as a process (issue #18's "a 20 ms CLI"): hyperfine on
#   places search "maya bar" --near 60.1721,24.9450 --json
#   places details ID            (ID: the first result of that search)
#   places spots list            (three saved spots)
# in a home whose index is already built and whose stores exist (hyperfine's warm-up runs come first), next to
# references in the same run: `true` (the cost of starting any process here), a Swift program that prints one
# line through Foundation, built like the release `places` (`-O -static-stdlib`: the floor for any Swift
# process), and `sqlite3` answering the same full-text question from the same index file (a small C program that
# also opens the index and asks it).
# Prints, per command, the mean and median wall time and the mean CPU time (user + sys), in milliseconds.
# Needs hyperfine, sqlite3 and jq (apt-get install hyperfine sqlite3 jq).
#
#   bash bench/cli.sh                            # builds places (release, static Swift stdlib) into .build-release
#   PLACES=/path/to/places RUNS=200 bash bench/cli.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-100}
WARMUP=${WARMUP:-10}
for tool in hyperfine sqlite3 jq; do
  command -v "$tool" >/dev/null || { echo "bench/cli.sh: $tool is not installed (apt-get install hyperfine sqlite3 jq)" >&2; exit 2; }
done
if [[ -z ${PLACES:-} ]]; then
  SCRATCH=${SCRATCH:-$ROOT/.build-release}
  echo "building places (release, static Swift stdlib: the shipped build, see README) …" >&2
  swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product places >&2
  PLACES=$SCRATCH/release/places
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export PLACES_HOME=$WORK/home

# The Swift floor: Foundation linked as places links it, one line printed.
printf 'import Foundation\nprint("hello \\(Date().timeIntervalSince1970 > 0)")\n' >"$WORK/hello.swift"
swiftc -O -static-stdlib "$WORK/hello.swift" -o "$WORK/swift-hello" 2>"$WORK/hello.log" \
  || { cat "$WORK/hello.log" >&2; echo "bench/cli.sh: could not build the Swift reference program" >&2; exit 1; }

# The warm home: the index built from the bundled data, three spots saved, every store opened once.
"$PLACES" index >/dev/null 2>&1
ID=$("$PLACES" search "maya bar" --near 60.1721,24.9450 --json | jq -r '.[0].id')
[[ -n $ID && $ID != null ]] || { echo "bench/cli.sh: the search found nothing to ask details about" >&2; exit 1; }
"$PLACES" spots add --from "$ID" --tag bench >/dev/null
"$PLACES" spots add --at 60.1699,24.9384 --name "Meeting point" --category meeting >/dev/null
"$PLACES" spots add --at 60.16961,24.93816 --name "Window seat" >/dev/null
"$PLACES" spots list >/dev/null

echo "places: $PLACES ($(file -b "$PLACES" | cut -d, -f1-2); $(ldd "$PLACES" 2>/dev/null | wc -l) shared objects)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $RUNS runs after $WARMUP warm-up runs each"

# The same words the search looks up, prefix-matched, from the same file.
FTS="SELECT p.id, p.name FROM place_fts JOIN place p ON p.rowid = place_fts.rowid WHERE place_fts MATCH 'maya* bar*' LIMIT 10"
hyperfine -N --style none --warmup "$WARMUP" --runs "$RUNS" --export-json "$WORK/runs.json" \
  -n true "true" \
  -n swift-hello "$WORK/swift-hello" \
  -n sqlite3-fts "sqlite3 $PLACES_HOME/index.sqlite \"$FTS\"" \
  -n search "$PLACES search \"maya bar\" --near 60.1721,24.9450 --json" \
  -n details "$PLACES details $ID" \
  -n spots-list "$PLACES spots list" >/dev/null

echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %12s %14s %12s %10s %10s\n' command mean_wall_ms median_wall_ms cpu_ms user_ms sys_ms
jq -r '.results[] | [.command, .mean * 1000, .median * 1000, (.user + .system) * 1000, .user * 1000, .system * 1000] | @tsv' \
  "$WORK/runs.json" | awk -F'\t' '{ printf "%-12s %12.1f %14.1f %12.1f %10.1f %10.1f\n", $1, $2, $3, $4, $5, $6 }'
