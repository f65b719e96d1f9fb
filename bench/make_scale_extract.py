#!/usr/bin/env python3
"""Tiles the Helsinki extract into a large OSM file (OPL text on stdout) for import benchmarks.

Reads the OPL form of the Helsinki extract (`osmium cat helsinki.osm.pbf -f opl`) from stdin and writes
TILES copies of it side by side on a grid, each shifted by a little more than the extract's size, with
every id renumbered so that the result is sorted (all nodes by id, then all ways, then all relations),
as extracts from Geofabrik are. Ids are dense within a type (tile k's node with rank r in the original
gets id k * nodes + r + 1), so both a dense and a sparse node store are exercised by real-looking data.

167 tiles of the extract (30,010 objects, about 1,470 named POIs) make the issue's shape: about 5 million
objects and 245,000 named POIs. A POI keeps its name in KEEP_NAMES of 7 tiles (the second argument, 7 by
default; chosen by its rank, so every tile keeps a different share): the other copies are unnamed, as many
of a country's POI-tagged objects are. Nothing here reads the network; bench/make-scale-extract.sh drives it.

    osmium cat helsinki.osm.pbf -f opl | python3 bench/make_scale_extract.py 167 7 > big.opl
"""
import sys

POI_KEYS = ("amenity=", "shop=", "tourism=", "leisure=", "office=", "craft=", "historic=", "railway=")


def main() -> None:
    tiles = int(sys.argv[1]) if len(sys.argv) > 1 else 167
    keep_names = int(sys.argv[2]) if len(sys.argv) > 2 else 7  # of every 7 copies of a named POI
    objects = {"n": [], "w": [], "r": []}
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line:
            objects[line[0]].append(line)
    ranks = {kind: {} for kind in objects}
    for kind, lines in objects.items():
        for rank, line in enumerate(lines):
            ranks[kind][int(line[1:line.index(" ")])] = rank
    counts = {kind: len(lines) for kind, lines in objects.items()}
    side = int(tiles ** 0.5 + 0.999)
    lon_step, lat_step = 0.02, 0.016  # the extract is 0.018° by 0.015°
    out = sys.stdout
    for kind in ("n", "w", "r"):
        for tile in range(tiles):
            dx, dy = (tile % side) * lon_step, (tile // side) * lat_step

            def renumber(ref_kind: str, ref: int) -> int:
                rank = ranks[ref_kind].get(ref)
                # A member outside the extract keeps a number no tile uses (the reader skips it, as before).
                return tile * counts[ref_kind] + rank + 1 if rank is not None else 10**12 + ref

            for line in objects[kind]:
                fields = line.split(" ")
                old_id = int(fields[0][1:])
                rank = ranks[kind][old_id]
                fields[0] = kind + str(tile * counts[kind] + rank + 1)
                for i, field in enumerate(fields):
                    if field.startswith("x") and len(field) > 1:
                        fields[i] = "x%.7f" % (float(field[1:]) + dx)
                    elif field.startswith("y") and len(field) > 1:
                        fields[i] = "y%.7f" % (float(field[1:]) + dy)
                    elif field.startswith("T") and (rank + tile) % 7 >= keep_names:
                        tags = field[1:]
                        if any(key in tags for key in POI_KEYS):
                            fields[i] = "T" + ",".join(t for t in tags.split(",") if not t.startswith("name="))
                    elif field.startswith("N") and len(field) > 1:
                        fields[i] = "N" + ",".join("n%d" % renumber("n", int(ref[1:])) for ref in field[1:].split(","))
                    elif field.startswith("M") and len(field) > 1:
                        members = []
                        for entry in field[1:].split(","):
                            ref, _, role = entry.partition("@")
                            members.append("%s%d@%s" % (ref[0], renumber(ref[0], int(ref[1:])), role))
                        fields[i] = "M" + ",".join(members)
                out.write(" ".join(fields))
                out.write("\n")


if __name__ == "__main__":
    main()
