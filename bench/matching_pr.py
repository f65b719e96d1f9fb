#!/usr/bin/env python3
"""Precision and recall of a `places match` output against a truth file (both CSV with
left_id,right_id in the first two columns).

    places match Tests/PlacesMatchingTests/Fixtures/left.csv Tests/PlacesMatchingTests/Fixtures/right.csv > pairs.csv
    python3 bench/matching_pr.py pairs.csv Tests/PlacesMatchingTests/Fixtures/truth.csv
"""
import csv, sys


def pairs(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = csv.reader(f)
        next(rows)
        return {(row[0], row[1]) for row in rows if len(row) >= 2}


found, truth = pairs(sys.argv[1]), pairs(sys.argv[2])
true_positives = len(found & truth)
precision = true_positives / len(found) if found else 0.0
recall = true_positives / len(truth) if truth else 0.0
print(f"pairs {len(found)}  true {true_positives} of {len(truth)}  precision {precision:.4f}  recall {recall:.4f}")
