#!/usr/bin/env bash
# Real-data rates behind `places-bench pipeline`'s world, and the held-out check of the one-slip typo rule:
# builds the local index from the repository's Helsinki extract in a throwaway PLACES_HOME (the first
# `places` command does), then runs bench/decoy_rates.py and bench/typo_heldout.py over it.
#
#   bash bench/decoy_rates.sh                        # uses the debug `places` (builds it when missing)
#   PLACES=/path/to/places bash bench/decoy_rates.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PLACES:-}" ]; then
    swift build --product places >&2
    PLACES="$(swift build --show-bin-path)/places"
fi
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
PLACES_HOME="$home" "$PLACES" index >/dev/null
python3 bench/decoy_rates.py "$home/index.sqlite"
python3 bench/typo_heldout.py "$home/index.sqlite"
