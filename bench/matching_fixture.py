#!/usr/bin/env python3
"""Builds the labelled matching set from the Helsinki OSM extract.

Step 1 extracts real named places (id, name, address, phone, lat, lon, category) into
helsinki_places.csv. Step 2 writes left.csv (the OSM records), right.csv (each record perturbed the
way another provider lists it, plus hard negatives) and truth.csv (the true left_id,right_id pairs).
Deterministic (seeded). Run from the repository root:

    pip install osmium
    python3 bench/matching_fixture.py /work/shared/data/helsinki.osm.pbf Tests/PlacesMatchingTests/Fixtures
"""
import csv, math, os, random, sys, unicodedata

POI_KEYS = ("amenity", "shop", "tourism", "leisure", "office", "craft")


def extract(pbf):
    import osmium

    places = []

    class Handler(osmium.SimpleHandler):
        def take(self, kind, obj, lat, lon):
            tags = obj.tags
            name = tags.get("name")
            key = next((k for k in POI_KEYS if k in tags), None)
            if not name or not key:
                return
            street, number = tags.get("addr:street"), tags.get("addr:housenumber")
            address = " ".join(x for x in (street, number) if x) if street else ""
            phone = tags.get("phone") or tags.get("contact:phone") or ""
            phone = phone.split(";")[0].strip()
            places.append({"id": f"osm:{kind}/{obj.id}", "name": name, "address": address, "phone": phone,
                           "lat": f"{lat:.7f}", "lon": f"{lon:.7f}", "category": f"{key}={tags[key]}"})

        def node(self, n):
            if n.location.valid():
                self.take("node", n, n.location.lat, n.location.lon)

        def way(self, w):
            points = [(nd.lat, nd.lon) for nd in w.nodes if nd.location.valid()]
            if points:
                self.take("way", w, sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))

    Handler().apply_file(pbf, locations=True)
    return places


def strip_accents(text):
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


GENERIC_BY_CATEGORY = {"amenity=restaurant": ["Ravintola", "Restaurant"], "amenity=cafe": ["Cafe", "Kahvila"],
                       "amenity=bar": ["Bar"], "amenity=pub": ["Pub"], "tourism=hotel": ["Hotel", "Hotelli"]}
SYNONYMS = [("Saint", "St."), ("Street", "St"), ("Centre", "Ctr"), ("Delicatessen", "Deli"), ("and", "&"),
            ("Brothers", "Bros"), ("Company", "Co."), ("Oy", ""), ("Ab", "")]
STREET_ABBREVIATIONS = [("katu", "k."), ("tie", "t.")]
DECOY_WORDS = ["Express", "Outlet", "Terassi", "Spa", "Garden", "Kids", "Studio", "Annex", "Gallery Shop", "Takeaway"]


def perturb_name(name, category, rng):
    words = name.split()
    ops = rng.sample(["the", "generic", "order", "punct", "accents", "case", "synonym", "typo"], rng.randint(1, 3))
    for op in ops:
        if op == "the":
            words = words[1:] if words and words[0].lower() == "the" else ["The"] + words
        elif op == "generic" and category in GENERIC_BY_CATEGORY:
            generic = GENERIC_BY_CATEGORY[category]
            if words and words[0] in generic:
                words = words[1:] or words
            else:
                words = [rng.choice(generic)] + words if rng.random() < 0.5 else words + [rng.choice(generic)]
        elif op == "order" and len(words) >= 2:
            words = words[1:] + words[:1]
        elif op == "punct":
            text = " ".join(words)
            text = text.replace("-", " ") if "-" in text else text.replace("'", "") if "'" in text else text + "."
            words = text.split()
        elif op == "accents":
            words = [strip_accents(w) for w in words]
        elif op == "case":
            words = [w.upper() for w in words] if rng.random() < 0.5 else [w.lower() for w in words]
        elif op == "synonym":
            text = " ".join(words)
            for long, short in SYNONYMS:
                if f" {long}" in f" {text}":
                    text = text.replace(long, short).strip()
                    break
            words = text.split() or words
        elif op == "typo":
            index = max(range(len(words)), key=lambda i: len(words[i]))
            word = words[index]
            spots = [i for i in range(1, len(word) - 1) if word[i].isalpha() and word[i + 1].isalpha()]
            if len(word) >= 7 and spots:
                i = rng.choice(spots)
                word = word[:i] + word[i + 1] + word[i] + word[i + 2:]  # transposition, as people mistype
                words[index] = word
    return " ".join(words) if words else name


def perturb_phone(phone, rng):
    digits = "".join(c for c in phone if c.isdigit())
    if phone.strip().startswith("+358"):
        national = "0" + digits[3:]
    elif digits.startswith("358"):
        national = "0" + digits[3:]
    elif digits.startswith("0"):
        national = digits
    else:
        return phone
    style = rng.choice(["national", "spaced", "dashed", "intl00", "intl"])
    if style == "national":
        return national
    if style == "spaced":
        return f"{national[:2]} {national[2:5]} {national[5:]}"
    if style == "dashed":
        return f"({national[:2]}) {national[2:5]}-{national[5:]}"
    if style == "intl00":
        return "00358 " + national[1:]
    return "+358" + national[1:]


def perturb_address(address, rng):
    if not address or rng.random() < 0.15:
        return ""
    for long, short in STREET_ABBREVIATIONS:
        if rng.random() < 0.3 and long in address:
            parts = address.split()
            if parts[0].endswith(long):
                parts[0] = parts[0][: -len(long)] + short
                address = " ".join(parts)
            break
    if rng.random() < 0.2:
        address += ", 00100 Helsinki"
    return address


def move(lat, lon, metres, rng):
    angle = rng.uniform(0, 2 * math.pi)
    dlat = metres * math.cos(angle) / 111_320
    dlon = metres * math.sin(angle) / (111_320 * math.cos(math.radians(lat)))
    return f"{lat + dlat:.7f}", f"{lon + dlon:.7f}"


def labelled(places, rng):
    left, right, truth = [], [], []
    names = {}
    for p in places:
        names.setdefault(p["name"], []).append(p)
    for index, p in enumerate(places):
        left.append({**p, "country": "FI"})
        lat, lon = float(p["lat"]), float(p["lon"])
        if rng.random() < 0.9:  # 10 % of places are missing from the other provider
            jitter = rng.uniform(0, 20) if rng.random() < 0.85 else rng.uniform(20, 45)
            rlat, rlon = move(lat, lon, jitter, rng)
            rid = f"r{index:05d}"
            right.append({"id": rid, "name": perturb_name(p["name"], p["category"], rng),
                          "address": perturb_address(p["address"], rng),
                          "phone": perturb_phone(p["phone"], rng) if p["phone"] and rng.random() < 0.85 else "",
                          "lat": rlat, "lon": rlon, "category": p["category"] if rng.random() < 0.5 else "",
                          "country": "FI"})
            truth.append((p["id"], rid))
        # Hard negative 1: another branch of the same brand, 150-800 m away, with its own phone and address.
        if len(names[p["name"]]) > 1 or rng.random() < 0.08:
            blat, blon = move(lat, lon, rng.uniform(150, 800), rng)
            right.append({"id": f"branch{index:05d}", "name": p["name"], "address": "Fredrikinkatu " + str(rng.randint(1, 80)),
                          "phone": f"+358 9 {rng.randint(1000000, 9999999)}", "lat": blat, "lon": blon,
                          "category": p["category"], "country": "FI"})
        # Hard negative 2: a neighbouring venue with a similar name, in the next building.
        if rng.random() < 0.12:
            nlat, nlon = move(lat, lon, rng.uniform(5, 40), rng)
            right.append({"id": f"near{index:05d}", "name": p["name"] + " " + rng.choice(DECOY_WORDS),
                          "address": "", "phone": "", "lat": nlat, "lon": nlon, "category": "", "country": "FI"})
    return left, right, truth


def write(path, rows, fields):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def main():
    pbf, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    places = sorted(extract(pbf), key=lambda p: p["id"])
    fields = ["id", "name", "address", "phone", "lat", "lon", "category"]
    write(os.path.join(out, "helsinki_places.csv"), places, fields)
    left, right, truth = labelled(places, random.Random(20261121))
    random.Random(7).shuffle(right)
    write(os.path.join(out, "left.csv"), left, fields + ["country"])
    write(os.path.join(out, "right.csv"), right, fields + ["country"])
    with open(os.path.join(out, "truth.csv"), "w", newline="", encoding="utf-8") as f:
        f.write("left_id,right_id\n")
        for l, r in truth:
            f.write(f"{l},{r}\n")
    print(f"{len(places)} places; left {len(left)}, right {len(right)}, true pairs {len(truth)}", file=sys.stderr)


if __name__ == "__main__":
    main()
