#!/usr/bin/env bash
# Writes the scale benchmark data set into bench/.data (ignored by git; generated on demand, never committed):
#   bench/.data/scale.osm.pbf      the Helsinki extract tiled TILES times (167 by default: ~5.0 million objects,
#                                  ~245,000 named POIs; NAMED=3 keeps a POI's name in 3 of 7 tiles: ~115,000),
#                                  shifted coordinates, renumbered ids, sorted like a Geofabrik extract,
#                                  zlib-compressed blobs (osmium's default)
#   bench/.data/cities1000.txt.gz  a GeoNames dump with alternate names: CITIES1000 (the real
#                                  geonames-cities1000.txt.gz; by default the team's copy in ../shared/data when it is
#                                  there), else the bundled cities15000 tiled to ~170,000 rows
# Needs osmium-tool and python3 (apt-get install osmium-tool python3); the product itself never uses them.
#
#   bash bench/make-scale-extract.sh
#   TILES=40 CITIES1000=/path/to/geonames-cities1000.txt.gz bash bench/make-scale-extract.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench/.data}
TILES=${TILES:-167}
NAMED=${NAMED:-7}
HELSINKI=$ROOT/Sources/PlacesApp/Resources/EmbeddedData/helsinki.osm.pbf
CITIES15000=$ROOT/Sources/PlacesApp/Resources/EmbeddedData/geonames-cities15000.txt.gz
if [[ -z ${CITIES1000:-} && -s $ROOT/../shared/data/geonames-cities1000.txt.gz ]]; then
  CITIES1000=$ROOT/../shared/data/geonames-cities1000.txt.gz
fi
command -v osmium >/dev/null || { echo "make-scale-extract.sh: osmium is not installed (apt-get install osmium-tool)" >&2; exit 2; }
mkdir -p "$OUT"

if [[ ! -s $OUT/scale.osm.pbf || ${FORCE:-0} == 1 ]]; then
  echo "writing $OUT/scale.osm.pbf ($TILES tiles of the Helsinki extract) …" >&2
  osmium cat "$HELSINKI" -f opl | python3 "$ROOT/bench/make_scale_extract.py" "$TILES" "$NAMED" \
    | osmium cat -F opl - -o "$OUT/scale.osm.pbf" --overwrite
fi
osmium fileinfo -e "$OUT/scale.osm.pbf" | grep -E "Size|Number of (nodes|ways|relations)" >&2
echo "named POIs: $(osmium tags-filter "$OUT/scale.osm.pbf" amenity shop tourism leisure office craft historic railway=station,halt \
  -f opl -o - | grep -c 'Tname=\|,name=')" >&2

if [[ ! -s $OUT/cities1000.txt.gz || ${FORCE:-0} == 1 ]]; then
  if [[ -n ${CITIES1000:-} ]]; then
    cp "$CITIES1000" "$OUT/cities1000.txt.gz"
  else
    echo "writing $OUT/cities1000.txt.gz (the bundled cities15000 tiled to ~170,000 rows) …" >&2
    # Copy k shifts each row by k × 0.37° of longitude and numbers it k × 20,000,000 + geonameid.
    gzip -dc "$CITIES15000" | awk -F'\t' 'BEGIN { OFS = "\t" } { rows[NR] = $0 } END {
        for (k = 0; k < 7; k++) for (i = 1; i <= NR; i++) {
          n = split(rows[i], f, "\t"); f[1] = k * 20000000 + f[1]
          lon = f[6] + k * 0.37; if (lon > 180) lon -= 360; f[6] = sprintf("%.5f", lon)
          line = f[1]; for (j = 2; j <= n; j++) line = line "\t" f[j]; print line } }' | gzip -1 > "$OUT/cities1000.txt.gz"
  fi
fi
echo "GeoNames rows: $(gzip -dc "$OUT/cities1000.txt.gz" | wc -l)" >&2
