#!/usr/bin/env bash
# The `matching` benchmark: the Swift suite (pair scores per second on preprocessed records, and
# `places match` wall time for generated 10k×10k and 100k×100k files) and, in the same run,
# RapidFuzz token_set_ratio over exactly the same name pairs, printed side by side; then precision,
# recall and F1 of `places match` on both labelled sets (Helsinki, with coordinates; US/UK publisher
# listings, without), with RapidFuzz token_set_ratio on the whole records as the reference.
#
#   bench/matching.sh                      # builds places-bench in release mode
#   PAIRS=200000 SIZES=10000 bench/matching.sh
#   BENCH_CMD="/path/to/places-bench matching" bench/matching.sh   # an already built binary
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-1000000}
SIZES=${SIZES:-10000,100000}

python3 -c "import rapidfuzz" 2>/dev/null || python3 -m pip install --quiet rapidfuzz
if [ -z "${BENCH_CMD:-}" ]; then
    swift build -c release --product places-bench >&2
    BENCH_CMD="$(swift build -c release --show-bin-path)/places-bench matching"
fi
if [ -z "${PLACES_CMD:-}" ]; then
    swift build -c release --product places >&2
    PLACES_CMD="$(swift build -c release --show-bin-path)/places"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== Swift (PlacesMatching) =="
$BENCH_CMD --pairs "$PAIRS" --sizes "$SIZES" --pairs-out "$tmp/pairs.tsv" | tee "$tmp/swift.txt"
echo "== Python (RapidFuzz $(python3 -c 'import rapidfuzz; print(rapidfuzz.__version__)')) =="
python3 bench/matching_rapidfuzz.py "$tmp/pairs.tsv" | tee "$tmp/python.txt"

value() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/swift.txt" "$tmp/python.txt"; }
echo "== Side by side: pairs per cpu second on one core, the same $PAIRS pairs =="
printf '%-48s %12s\n' "swift place score (full record)" "$(value matching.place_score_pairs_per_second)"
printf '%-48s %12s\n' "swift name similarity (names only)" "$(value matching.name_similarity_pairs_per_second)"
printf '%-48s %12s\n' "rapidfuzz token_set_ratio, direct Python call" "$(value rapidfuzz.token_set_ratio_direct_call_pairs_per_second)"
printf '%-48s %12s\n' "rapidfuzz token_set_ratio, cpdist (C++ batch)" "$(value rapidfuzz.token_set_ratio_cpdist_pairs_per_second)"

echo "== Quality on the labelled sets: places match vs RapidFuzz token_set_ratio on whole records =="
fixtures=Tests/PlacesMatchingTests/Fixtures
for set in helsinki usuk; do
    if [ "$set" = helsinki ]; then dir=$fixtures; region=(); else dir=$fixtures/usuk; region=(--region US); fi
    $PLACES_CMD match "$dir/left.csv" "$dir/right.csv" "${region[@]}" --output "$tmp/$set.csv" 2>/dev/null
    printf '%-9s places match: ' "$set"
    python3 bench/matching_pr.py "$tmp/$set.csv" "$dir/truth.csv"
    python3 bench/matching_rapidfuzz_pairs.py "$dir/left.csv" "$dir/right.csv" "$dir/truth.csv" | sed "s/^/$set    /"
done
