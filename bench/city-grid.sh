#!/usr/bin/env bash
# Cities by grid cell (migration v8) against the R*Tree they had before, in SQLite alone (bench/city_grid.py):
# CPU to fill each for GeoNames cities1000, and per 15 km lookup. Prints the load, since the machine is shared.
#   bash bench/city-grid.sh [cities1000.txt.gz]     # default bench/.data/cities1000.txt.gz
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DUMP=${1:-$ROOT/bench/.data/cities1000.txt.gz}
[[ -s $DUMP ]] || { echo "bench/city-grid.sh: $DUMP is not there (bash bench/make-scale-extract.sh fetches it)" >&2; exit 2; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$ROOT/bench/city_grid.py" "$DUMP"
