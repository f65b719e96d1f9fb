#!/usr/bin/env python3
"""Precision, recall and F1 of a `places match` output against a truth file (both CSV with
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


def scores(found, truth):
    true_positives = len(found & truth)
    precision = true_positives / len(found) if found else 0.0
    recall = true_positives / len(truth) if truth else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return true_positives, precision, recall, f1


if __name__ == "__main__":
    found, truth = pairs(sys.argv[1]), pairs(sys.argv[2])
    tp, precision, recall, f1 = scores(found, truth)
    print(f"pairs {len(found)}  true {tp} of {len(truth)}  precision {precision:.4f}  recall {recall:.4f}  f1 {f1:.4f}")
