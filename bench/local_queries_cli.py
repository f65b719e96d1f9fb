#!/usr/bin/env python3
"""Scores a `places` binary on the labelled local-search queries (bench/local-queries.jsonl) through its CLI, so an
older build can be compared with a newer one on the same queries (`places-bench local-queries` runs only the code it
was built with). Top-1 and top-3 per kind, as places-bench counts them: a query is found in the top k when any of
its expected ids is among the first k results.

    python3 bench/local_queries_cli.py /path/to/places [PLACES_HOME]

PLACES_HOME defaults to a fresh temporary home, which the first search fills with the embedded default data.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    home = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="places-queries-")
    environment = dict(os.environ, PLACES_HOME=home)
    kinds = {}
    with open(os.path.join(ROOT, "bench/local-queries.jsonl"), encoding="utf-8") as queries:
        for line in queries:
            query = json.loads(line)
            arguments = [binary, "search", query["query"], "--json", "--limit", "3"]
            if query["near"]:
                arguments += ["--near", query["near"]]
            output = subprocess.run(arguments, capture_output=True, text=True, env=environment, timeout=120).stdout
            ids = [place["id"] for place in json.loads(output)] if output.strip() else []
            counts = kinds.setdefault(query["kind"], [0, 0, 0])
            counts[0] += 1
            counts[1] += bool(ids) and ids[0] in query["expected"]
            counts[2] += any(i in query["expected"] for i in ids[:3])
    total = [sum(c[i] for c in kinds.values()) for i in range(3)]
    for kind, (n, top1, top3) in sorted(kinds.items()) + [("overall", total)]:
        print(f"{kind} n={n} top1 {top1 / n:.3f} top3 {top3 / n:.3f}")


if __name__ == "__main__":
    main()
