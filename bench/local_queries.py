#!/usr/bin/env python3
"""Builds the labelled local-search query set (issue 12) from the repo's own data, independently of the
code under test: OSM tags read with pyosmium (`pip install osmium`), GeoNames rows read as text.

    python3 bench/local_queries.py > bench/local-queries.jsonl
    swift run -c release places-bench local-queries bench/local-queries.jsonl

Thirteen kinds, each line {"kind", "query", "near" (or null), "expected": [ids]} — a query counts as found in
top k when any expected id is among the first k results:

  poi_exact    a POI's exact name (names unique in the extract), no --near
  typo         that name with one letter dropped, swapped with its neighbour, or replaced
  name_sv      the Swedish name (name:sv) of a Helsinki place
  name_en      the English name (name:en)
  address      "Street 9", "9 Street", "Street 9, Helsinki" of addressed objects (every object there counts)
  punctuation  a name typed without its punctuation and spaces ("rkioski", "mcdonalds")
  category     an English category word near a random point; expected: the nearest real member
  city         a big city by another of its names ("Tukholma", "Milano"); expected: the biggest city so named
  street       a street's name, or its Swedish name, a third of them followed by ", Helsinki"; expected: every
               named `highway` way so called
  area         a part of the city or a square by name ("Kamppi", "Narinkkatori"), by its Swedish name, and by
               name followed by ", Helsinki": `place` suburb/quarter/neighbourhood/square/locality objects and
               district boundaries (admin_level 9+)
  postcode     every postcode an object's addr:postcode names, alone and followed by the city most of them name;
               expected: osm:postcode/<code>
  address_sv   "Street 9" and "Street 9, Helsingfors" with the street's Swedish name (name:sv of its ways), which the
               address itself is not tagged with
  address_postcode  "Street 9, 00100 Helsinki" and "Street 9 00100 Helsinki": an address written in full with the
               postcode its objects name

The last five were added later with RNGs of their own, so the first eight kinds' queries stay as they were.

Seeded, so the file is reproducible. Nothing here is taken from public geocoding query sets.
"""
import gzip
import json
import math
import os
import random
import sys
import unicodedata

import osmium

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "Sources/PlacesApp/Resources/EmbeddedData")
PBF = os.path.join(DATA, "helsinki.osm.pbf")
CITIES = os.path.join(DATA, "geonames-cities15000.txt.gz")
POI_KEYS = ["amenity", "shop", "tourism", "leisure", "office", "craft", "historic"]
CENTER = (60.1699, 24.9450)
BOX = ((60.1642, 60.1791), (24.9352, 24.9534))

rng = random.Random(12)


def fold(text):
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in text if not unicodedata.combining(c))


def words(text):
    out, cur = [], ""
    for c in fold(text):
        if c in "'`\u2019\u00b4":
            continue
        if c.isalnum():
            cur += c
        elif cur:
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def distance(a, b):
    (lat1, lon1), (lat2, lon2) = a, b
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(h))


class Reader(osmium.SimpleHandler):
    """Every tagged node and way (with its centroid); relations (without a position) only for the area queries."""

    def __init__(self):
        super().__init__()
        self.objects = []
        self.relations = []

    def add(self, kind, oid, tags, location):
        if location is None:
            return
        self.objects.append({"id": f"osm:{kind}/{oid}", "tags": dict(tags), "at": location})

    def node(self, n):
        if len(n.tags):
            self.add("node", n.id, {t.k: t.v for t in n.tags}, (n.location.lat, n.location.lon))

    def way(self, w):
        if not len(w.tags):
            return
        refs = [(nd.location.lat, nd.location.lon) for nd in w.nodes if nd.location.valid()]
        if len(refs) > 1 and w.nodes[0].ref == w.nodes[len(w.nodes) - 1].ref:
            refs = refs[:-1]
        if refs:
            at = (sum(r[0] for r in refs) / len(refs), sum(r[1] for r in refs) / len(refs))
            self.add("way", w.id, {t.k: t.v for t in w.tags}, at)

    def relation(self, r):
        if len(r.tags):
            self.relations.append({"id": f"osm:relation/{r.id}", "tags": {t.k: t.v for t in r.tags}})


def main():
    reader = Reader()
    reader.apply_file(PBF, locations=True)
    objects = reader.objects
    pois = [o for o in objects if o["tags"].get("name", "").strip() and any(k in o["tags"] for k in POI_KEYS)]
    by_name = {}
    for p in pois:
        by_name.setdefault(" ".join(words(p["tags"]["name"])), []).append(p)
    queries = []

    def add(kind, query, expected, near=None):
        queries.append({"kind": kind, "query": query, "near": near, "expected": sorted(expected)})

    unique = sorted([ps[0] for key, ps in by_name.items() if len(ps) == 1 and len(key) >= 4], key=lambda p: p["id"])
    for p in rng.sample(unique, 30):
        add("poi_exact", p["tags"]["name"], [p["id"]])

    typo_pool = [p for p in unique if max(len(w) for w in words(p["tags"]["name"])) >= 5]
    for i, p in enumerate(rng.sample(typo_pool, 30)):
        name = p["tags"]["name"]
        target = max(words(name), key=len)
        start = fold(name).find(target)
        j = rng.randrange(1, len(target) - 1)
        edit = i % 3
        if edit == 0:
            typo = target[:j] + target[j + 1:]
        elif edit == 1:
            typo = target[:j] + target[j + 1] + target[j] + target[j + 2:]
        else:
            typo = target[:j] + rng.choice([c for c in "aeiklmnorstu" if c != target[j]]) + target[j + 1:]
        query = fold(name)[:start] + typo + fold(name)[start + len(target):] if start >= 0 else typo
        add("typo", query, [p["id"]], near=None if i % 2 else "%.4f,%.4f" % CENTER)

    for lang, kind, count in (("sv", "name_sv", 30), ("en", "name_en", 25)):
        seen = {}
        for p in pois:
            other = p["tags"].get(f"name:{lang}", "").strip()
            if other and words(other) != words(p["tags"]["name"]) and len(words(other)) > 0:
                seen.setdefault(" ".join(words(other)), []).append(p)
        pool = sorted([(ps[0]["tags"][f"name:{lang}"], ps[0]) for k, ps in seen.items() if len(ps) == 1],
                      key=lambda x: x[1]["id"])
        for other, p in rng.sample(pool, min(count, len(pool))):
            add(kind, other, [p["id"]])

    addresses = {}
    for o in objects:
        street, number = o["tags"].get("addr:street"), o["tags"].get("addr:housenumber")
        if street and number:
            addresses.setdefault((street.strip(), "".join(fold(number).split())), []).append(o["id"])
    keys = sorted(addresses)
    for i, key in enumerate(rng.sample(keys, 30)):
        street, number = key
        form = i % 3
        query = f"{street} {number}" if form == 0 else f"{number} {street}" if form == 1 else f"{street} {number}, Helsinki"
        add("address", query, addresses[key])

    punctuated = sorted({p["tags"]["name"] for p in pois
                         if any(c in p["tags"]["name"] for c in "-'’&.") or (len(words(p["tags"]["name"])) == 2
                                                                           and len(words(p["tags"]["name"])[0]) <= 2)})
    for name in rng.sample(punctuated, min(20, len(punctuated))):
        joined = "".join(words(name))
        if joined == " ".join(words(name)):
            continue
        members = [p["id"] for p in by_name[" ".join(words(name))]]
        add("punctuation", joined, members, near="%.4f,%.4f" % CENTER)

    categories = [
        ("chemist", {("amenity", "pharmacy"), ("shop", "chemist")}), ("pharmacy", {("amenity", "pharmacy")}),
        ("bookshop", {("shop", "books")}), ("cash machine", {("amenity", "atm")}), ("jewellery", {("shop", "jewelry")}),
        ("supermarket", {("shop", "supermarket")}), ("coffee shop", {("amenity", "cafe")}), ("pub", {("amenity", "pub")}),
        ("hotel", {("tourism", "hotel")}), ("museum", {("tourism", "museum")}), ("bank", {("amenity", "bank")}),
        ("bakery", {("shop", "bakery")}), ("florist", {("shop", "florist")}), ("hairdresser", {("shop", "hairdresser")}),
        ("optician", {("shop", "optician")}), ("shoe shop", {("shop", "shoes")}), ("cinema", {("amenity", "cinema")}),
        ("theatre", {("amenity", "theatre")}), ("library", {("amenity", "library")}), ("dentist", {("amenity", "dentist")}),
        ("ice cream", {("amenity", "ice_cream")}), ("restaurant", {("amenity", "restaurant")}), ("bar", {("amenity", "bar")}),
        ("clothes shop", {("shop", "clothes")}), ("fast food", {("amenity", "fast_food")}),
    ]
    for word, tags in categories:
        members = [p for p in pois if any(p["tags"].get(k) == v for k, v in tags)]
        if not members:
            continue
        point = (round(rng.uniform(*BOX[0]), 4), round(rng.uniform(*BOX[1]), 4))
        nearest = min(distance(point, m["at"]) for m in members)
        add("category", word, [m["id"] for m in members if distance(point, m["at"]) <= nearest + 1],
            near="%.4f,%.4f" % point)

    rows = []
    with gzip.open(CITIES, "rt", encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            rows.append((int(c[0]), c[1], c[2], c[3].split(",") if c[3] else [], int(c[14] or 0)))
    names = {}
    for gid, name, ascii_name, alternates, population in rows:
        for n in {" ".join(words(x)) for x in [name, ascii_name] + alternates}:
            names.setdefault(n, []).append((population, gid))
    big = sorted(rows, key=lambda r: -r[4])[:150]
    picked = 0
    for gid, name, ascii_name, alternates, population in sorted(big, key=lambda r: r[0]):
        own = {" ".join(words(name)), " ".join(words(ascii_name))}
        pool = sorted({a for a in alternates if a.strip() and all(ord(ch) < 0x250 for ch in a) and len(a) >= 4
                       and not any(ch.isdigit() for ch in a) and a != a.upper()
                       and " ".join(words(a)) not in own and not any(" ".join(words(a)) in o for o in own)
                       and max(names[" ".join(words(a))])[1] == gid})
        if pool and rng.random() < 0.35:
            add("city", rng.choice(pool), [f"geonames:{gid}"])
            picked += 1
        if picked >= 30:
            break

    # Streets and areas: what a geocoder finds by name besides POIs. Not a road: a named bus stop or platform.
    named_rng = random.Random(18)
    streets = {}
    for o in objects:
        tags = o["tags"]
        if o["id"].startswith("osm:way/") and tags.get("highway") not in (None, "bus_stop", "platform") and tags.get("name", "").strip():
            streets.setdefault(" ".join(words(tags["name"])), []).append(o)
    for key in named_rng.sample(sorted(streets), 25):
        ways = streets[key]
        swedish = sorted({w["tags"]["name:sv"] for w in ways if w["tags"].get("name:sv", "").strip()
                          and words(w["tags"]["name:sv"]) != words(w["tags"]["name"])})
        query = swedish[0] if swedish and named_rng.random() < 0.3 else ways[0]["tags"]["name"]
        add("street", query + (", Helsinki" if named_rng.random() < 0.33 else ""), [w["id"] for w in ways])

    def is_area(tags):
        if tags.get("place") in ("suburb", "quarter", "neighbourhood", "square", "locality"):
            return True
        level = tags.get("admin_level", "")
        return tags.get("boundary") == "administrative" and level.isdigit() and int(level) >= 9

    areas = {}
    for o in objects + reader.relations:
        if is_area(o["tags"]) and o["tags"].get("name", "").strip():
            areas.setdefault(" ".join(words(o["tags"]["name"])), []).append(o)
    for key in sorted(areas):
        members = areas[key]
        swedish = sorted({m["tags"]["name:sv"] for m in members if m["tags"].get("name:sv", "").strip()
                          and words(m["tags"]["name:sv"]) != words(m["tags"]["name"])})
        add("area", members[0]["tags"]["name"], [m["id"] for m in members])
        add("area", members[0]["tags"]["name"] + ", Helsinki", [m["id"] for m in members])
        if swedish:
            add("area", swedish[0], [m["id"] for m in members])

    postcodes = {}
    for o in objects + reader.relations:
        for code in o["tags"].get("addr:postcode", "").split(";"):
            code = " ".join(code.split()).upper()
            if code and any(c.isdigit() for c in code):
                city = o["tags"].get("addr:city", "").strip()
                postcodes.setdefault(code, {})
                if city:
                    postcodes[code][city] = postcodes[code].get(city, 0) + 1
    for code in sorted(postcodes):
        add("postcode", code, [f"osm:postcode/{code}"])
        cities = postcodes[code]
        if cities:
            add("postcode", code + " " + max(sorted(cities), key=lambda c: cities[c]), [f"osm:postcode/{code}"])

    # Addresses on a street typed by its Swedish name ("Norra Esplanaden 33"); addresses are tagged with the Finnish one.
    swedish_rng = random.Random(19)
    swedish_of = {}
    for o in objects:
        tags = o["tags"]
        if o["id"].startswith("osm:way/") and tags.get("highway") and tags.get("name", "").strip() and tags.get("name:sv", "").strip() \
                and words(tags["name:sv"]) != words(tags["name"]):
            swedish_of.setdefault(tags["name"].strip(), set()).add(tags["name:sv"].strip())
    on_swedish = sorted(key for key in addresses if len(swedish_of.get(key[0], ())) == 1)
    for i, key in enumerate(swedish_rng.sample(on_swedish, min(20, len(on_swedish)))):
        street, number = key
        swedish = next(iter(swedish_of[street]))
        add("address_sv", f"{swedish} {number}" if i % 2 == 0 else f"{swedish} {number}, Helsingfors", addresses[key])

    # Addresses written in full with their postcode, as a letter is addressed ("Bulevardi 1, 00100 Helsinki").
    postcode_rng = random.Random(20)
    postcode_of = {}
    for o in objects:
        tags = o["tags"]
        street, number, code = tags.get("addr:street"), tags.get("addr:housenumber"), tags.get("addr:postcode", "").strip()
        if street and number and code and ";" not in code:
            postcode_of.setdefault((street.strip(), "".join(fold(number).split())), set()).add(code)
    with_code = sorted(key for key, codes in postcode_of.items() if len(codes) == 1)
    for i, key in enumerate(postcode_rng.sample(with_code, min(20, len(with_code)))):
        street, number = key
        code = next(iter(postcode_of[key]))
        add("address_postcode", f"{street} {number}, {code} Helsinki" if i % 2 == 0 else f"{street} {number} {code} Helsinki",
            addresses[key])

    for q in queries:
        print(json.dumps(q, ensure_ascii=False))
    counts = {}
    for q in queries:
        counts[q["kind"]] = counts.get(q["kind"], 0) + 1
    print(f"{len(queries)} queries: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
