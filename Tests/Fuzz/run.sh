#!/usr/bin/env bash
# Builds the libFuzzer harness (Tests/Fuzz/PlacesFuzz) with the fuzzer and address sanitizers and runs every
# target for a bounded time, printing executions and coverage per target. Fails on any crash, sanitizer
# report, broken invariant or hang, and keeps the input that caused it.
#
#   bash Tests/Fuzz/run.sh                      # every target, 30 s each (what CI runs after swift test)
#   FUZZ_SECONDS=600 bash Tests/Fuzz/run.sh pbf resp   # chosen targets, 10 minutes each
#   FUZZ_SEED=7 …                              # another fixed seed (default 20261122, so CI runs repeat)
#   FUZZ_SKIP_BUILD=1 …                         # reuse the last build (two runs side by side share one build)
#
# Seeds: Tests/Fuzz/Corpus/<target>/ (read only). What the fuzzer learns goes to .build-fuzz/corpus/<target>/,
# kept between runs. A finding is saved as .build-fuzz/findings/<target>-crash-<sha1> (or -timeout-, -oom-)
# and replays in a plain debug build: swift run PlacesFuzz <target> <file>.
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-30}
scratch=.build-fuzz
all_targets=(resp command pbf pbf-import geonames geojson takeout gpx kml csv records hours config)
targets=("$@")
[ "${#targets[@]}" -eq 0 ] && targets=("${all_targets[@]}")

if [ -z "${FUZZ_SKIP_BUILD:-}" ]; then
    mkdir -p "$scratch"
    echo "fuzz: $(date -u +%H:%M:%S) building PlacesFuzz with -sanitize=fuzzer,address (release) into $scratch" >&2
    build_start=$(date +%s)
    if ! swift build -c release --scratch-path "$scratch" --product PlacesFuzz \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING >"$scratch/build.log" 2>&1; then
        tail -40 "$scratch/build.log" >&2
        echo "fuzz: the fuzzer build failed (full log: $scratch/build.log)" >&2
        exit 1
    fi
    echo "fuzz: built in $(( $(date +%s) - build_start )) s" >&2
fi
binary=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/PlacesFuzz
[ -x "$binary" ] || { echo "fuzz: $binary is missing; run without FUZZ_SKIP_BUILD" >&2; exit 1; }

mkdir -p "$scratch/findings" "$scratch/logs"
# Leak reports would flag Foundation's and the Swift runtime's process-lifetime caches, not our bugs.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
# The Swift runtime's own crash backtracer would read freed memory under ASan; let libFuzzer report traps.
export SWIFT_BACKTRACE=enable=no
failed=()
for target in "${targets[@]}"; do
    seeds=Tests/Fuzz/Corpus/$target
    [ -d "$seeds" ] || { echo "fuzz: no seed corpus $seeds (targets: ${all_targets[*]})" >&2; exit 2; }
    corpus=$scratch/corpus/$target
    log=$scratch/logs/$target.log
    mkdir -p "$corpus"
    case $target in  # formats of one family share their tokens
        gpx | kml) dictionary=xml ;;
        geojson | takeout) dictionary=json ;;
        csv | records) dictionary=csv ;;
        *) dictionary=$target ;;
    esac
    dictionary=Tests/Fuzz/Dictionaries/$dictionary.dict
    dictionary_flag=()
    [ -f "$dictionary" ] && dictionary_flag=(-dict="$dictionary")
    # -timeout: one input taking 10 s is a hang (readers must never loop); -rss_limit_mb: an input that makes
    # a reader allocate 2 GiB is a finding too. Output of the code under test is dropped (-close_fd_mask=1).
    # -seed: a fixed seed makes a run repeatable from a fresh corpus, so a CI finding replays as it happened;
    # FUZZ_SEED=N explores elsewhere.
    # `timeout`: libFuzzer's own -timeout fires only on the fuzzing thread, and a target that waits for work on another
    # thread (the `command` target runs spot commands on Swift's pool) could outlive it; no target may hold up CI.
    timeout -k 10 $((seconds + 90)) env PLACES_FUZZ_TARGET=$target "$binary" "$corpus" "$seeds" "${dictionary_flag[@]}" \
        -seed="${FUZZ_SEED:-20261122}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 -close_fd_mask=1 \
        -print_final_stats=1 -artifact_prefix="$scratch/findings/$target-" >"$log" 2>&1
    status=$?
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
    [ -n "$done_line" ] || done_line=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -n 1)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
    units=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$done_line")
    printf 'fuzz %-9s %10s runs in %s s, %6s exec/s, cov %5s, ft %6s, corpus %5s inputs' \
        "$target" "${runs:-?}" "$seconds" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${units:-?}"
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "fuzz $target: still running $((seconds + 90)) s after it should have stopped; ended (a hang outside libFuzzer's watch)" >>"$log"
    fi
    if [ "$status" -ne 0 ]; then
        finding=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        echo " — FAILED (exit $status)"
        grep -E 'fuzz invariant broken|Fatal error|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY|ALARM|still running' "$log" | head -5 | sed 's/^/    /'
        echo "    input: ${finding:-none saved}; log: $log; replay: swift run PlacesFuzz $target ${finding:-<file>}"
        failed+=("$target")
    else
        echo
    fi
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: findings in ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: ${#targets[@]} targets, $seconds s each, no findings"
