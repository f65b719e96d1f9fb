#!/usr/bin/env python3
"""RapidFuzz token_set_ratio over the name pairs the Swift `matching` suite scored (TSV: a<TAB>b).

Prints plain lines (name value unit) like the Swift suite: the direct Python call in a loop, and the
C++ batch `process.cpdist` on one worker. Both use `utils.default_process` (lowercase, punctuation
to spaces), the closest RapidFuzz equivalent of the matcher's normalisation. Rates are per second
of processor time, as in the Swift suite, so other processes sharing the cores do not skew them.
"""
import sys, time

from rapidfuzz import fuzz, process, utils


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        pairs = [line.rstrip("\n").split("\t", 1) for line in f if "\t" in line]
    left = [a for a, _ in pairs]
    right = [b for _, b in pairs]
    scorer, processor = fuzz.token_set_ratio, utils.default_process

    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        checksum = 0.0
        for a, b in pairs:
            checksum += scorer(a, b, processor=processor)
        best = min(best, time.process_time() - start)
    print(f"rapidfuzz.token_set_ratio_direct_call_pairs_per_second {int(len(pairs) / best)} pairs per cpu-second (one core, Python loop)")

    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        process.cpdist(left, right, scorer=scorer, processor=processor, workers=1)
        best = min(best, time.process_time() - start)
    print(f"rapidfuzz.token_set_ratio_cpdist_pairs_per_second {int(len(pairs) / best)} pairs per cpu-second (one core, C++ batch)")
    print(f"rapidfuzz.pairs {len(pairs)} pairs (checksum {checksum:.1f})")


if __name__ == "__main__":
    main()
