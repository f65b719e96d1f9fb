#!/usr/bin/env bash
# Soak test for `places serve` (issue 16): mixed valid and hostile traffic against the release binary
# on 127.0.0.1 for a bounded time, then checks that the server still answers, that its RSS is back
# under 100 MB, that no acknowledged SPOT.ADD was lost, and that SIGTERM ends it with status 0.
# bench/soak.py does the work; its docstring lists the kinds of traffic. Exits non-zero on any failure.
#
#   bash bench/soak.sh                      # 60 s, 12 client threads
#   SECONDS_TO_RUN=300 WORKERS=16 bash bench/soak.sh
#   PLACES_BIN=/path/to/places bash bench/soak.sh   # skip the build
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${SCRATCH:-$ROOT/.build-release}
SECONDS_TO_RUN=${SECONDS_TO_RUN:-60}
WORKERS=${WORKERS:-12}

command -v python3 >/dev/null || { echo "bench/soak.sh: python3 is not installed" >&2; exit 2; }
if [ -z "${PLACES_BIN:-}" ]; then
  echo "building places (release, static Swift stdlib: the shipped build, see README) …" >&2
  swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product places >&2
  PLACES_BIN="$SCRATCH/release/places"
fi

exec python3 "$ROOT/bench/soak.py" --bin "$PLACES_BIN" --seconds "$SECONDS_TO_RUN" --workers "$WORKERS" "$@"
