#!/usr/bin/env bash
# `places import` against `osmium cat -f opl -o /dev/null` (which reads, inflates and decodes every block and
# also formats every object as text) on the same file, in the same run: wall time, CPU time (user + sys) and
# peak RSS from /usr/bin/time -v, best of RUNS, and places' ratios to osmium. Then GeoNames cities1000 (with
# alternate names) on its own. Files: the bundled Helsinki extract and bench/.data (bash bench/make-scale-extract.sh).
# Each import runs in a fresh copy of a home that already holds the bundled index, so only the import is timed.
# Needs osmium-tool and GNU time (apt-get install osmium-tool time); the product itself never uses them.
#
#   bash bench/import.sh                         # builds places (release, static Swift stdlib) into .build-bench-import
#   PLACES=/path/to/places RUNS=5 bash bench/import.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-3}
DATA=${DATA:-$ROOT/bench/.data}
for tool in osmium /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench/import.sh: $tool is not installed (apt-get install osmium-tool time)" >&2; exit 2; }
done
if [[ -z ${PLACES:-} ]]; then
  SCRATCH=${SCRATCH:-$ROOT/.build-bench-import}
  echo "building places (release, static Swift stdlib: the shipped build, see README) …" >&2
  swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product places >&2
  PLACES=$SCRATCH/release/places
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# A home with the bundled index built, copied afresh for every timed import.
PLACES_HOME=$WORK/base "$PLACES" index >/dev/null

# Runs "$@" RUNS times under /usr/bin/time -v; prints "wall cpu rss_mb" of the run with the best wall time.
measure() {
  local best=""
  for _ in $(seq "$RUNS"); do
    rm -rf "$WORK/home" && cp -a "$WORK/base" "$WORK/home"
    /usr/bin/time -v -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" "$WORK/time" >&2; exit 1; }
    local line
    line=$(awk -F': ' '
      /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = (n == 3 ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2]) }
      /User time/ { user = $2 } /System time/ { sys = $2 } /Maximum resident/ { rss = $2 }
      END { printf "%.2f %.2f %.0f\n", wall, user + sys, rss / 1024 }' "$WORK/time")
    if [[ -z $best || $(echo "$line $best" | awk '{ print ($1 < $4) }') == 1 ]]; then best=$line; fi
  done
  echo "$best"
}

printf '%-26s %-8s %8s %8s %9s %11s %10s\n' file tool wall_s cpu_s rss_mb wall_ratio cpu_ratio
compare() {
  local file=$1
  [[ -s $file ]] || { echo "(skipping $(basename "$file"): not there; run bash bench/make-scale-extract.sh)"; return; }
  local osm places
  osm=$(measure osmium cat "$file" -f opl -o /dev/null --overwrite)
  places=$(PLACES_HOME=$WORK/home measure "$PLACES" import "$file")
  printf '%-26s %-8s %8s %8s %9s\n' "$(basename "$file")" osmium $osm
  echo "$places $osm" | awk -v f="$(basename "$file")" '{ printf "%-26s %-8s %8.2f %8.2f %9d %10.2fx %9.2fx\n", f, "places", $1, $2, $3, $1 / $4, $2 / $5 }'
}
export PLACES_HOME=$WORK/home
compare "$ROOT/Sources/PlacesApp/Resources/EmbeddedData/helsinki.osm.pbf"
compare "$DATA/scale.osm.pbf"
if [[ -s $DATA/cities1000.txt.gz ]]; then
  echo "$(measure "$PLACES" import "$DATA/cities1000.txt.gz")" | awk '{ printf "%-26s %-8s %8.2f %8.2f %9d\n", "cities1000.txt.gz", "places", $1, $2, $3 }'
fi
