#!/usr/bin/env python3
"""Builds the second labelled matching set: US- and UK-style listings of invented places, as two guide
publishers would print them, without coordinates.

Every name, street and phone number is invented here (the vocabularies below): nothing comes from a
public entity-matching benchmark. Each place is listed once by "publisher A" (left.csv) and, for 90 % of
places, once by "publisher B" (right.csv) in B's own style: street types and directionals spelt out or
abbreviated, ordinals as words or numbers, suites, floors and cross-streets after the street, phones in
other formats or changed, city qualifiers and aliases, inverted articles, taglines and host buildings
after the name, generic words added or dropped. B also lists hard negatives that are not in truth.csv:

- generic-word decoys: the place's name plus a word naming another kind of venue ("Halvard Gallery Cafe"
  beside the gallery), at the same or the next address, with their own phone;
- same-name venues of another category (a "Lotus" spa across town from the "Lotus" restaurant);
- sub-venues of one building: a hotel's bar, restaurant and spa share its address and often its phone;
- chain branches: the same name at another address with another phone;
- neighbours: another business at the same street address, or a name sharing one word.

Deterministic (seeded). Run from the repository root:

    python3 bench/matching_usuk_fixture.py Tests/PlacesMatchingTests/Fixtures/usuk
"""
import csv, os, random, sys

# ---- invented vocabularies -------------------------------------------------------------------------
STEMS = [
    "Halvard", "Marlow", "Quenby", "Tassio", "Brindle", "Corvina", "Delmont", "Esterly", "Fennick", "Gilroy",
    "Harrowgate", "Ivel", "Jessamy", "Kestrel", "Larchmont", "Mirabel", "Norrey", "Oakhurst", "Pellow", "Quillon",
    "Rosamund", "Saffery", "Thackery", "Ulverly", "Vantry", "Wexley", "Yarrow", "Zennor", "Amberly", "Bexhill",
    "Calder", "Dunmore", "Elsworth", "Farrow", "Greaves", "Hollis", "Inchley", "Juniper", "Kelso", "Lattimer",
    "Mossop", "Nettle", "Orrin", "Penhale", "Quarry", "Redfern", "Sorrel", "Tamsin", "Umber", "Vellum",
    "Whitcombe", "Yardley", "Zephyr", "Ashdown", "Birchley", "Copperfield", "Dovecote", "Embury", "Foxglove",
    "Galloway", "Hawthorne", "Ivory", "Jarrow", "Kingsley", "Lowther", "Merriam", "Northcote", "Osric", "Primrose",
    "Ravel", "Stanway", "Tolland", "Underhill", "Verity", "Winslow", "Ashby", "Bramwell", "Castellan", "Davenant",
    "Everard", "Fairleigh", "Gresham", "Hartwell", "Isolde", "Jericho", "Kilbride", "Linden", "Montague", "Nightingale",
    "Orchard", "Pemberton", "Quimby", "Rowan", "Sterling", "Trelawny", "Upton", "Valerian", "Wren", "Yeoman",
    "Chez Odile", "Casa Lunetta", "Trattoria Belsito", "Villa Serrana", "Maison Arlette", "Taverna Kyros",
    "Lotus Garden", "Golden Crane", "Jade Willow", "Silver Birch", "Blue Heron", "Red Fox", "Green Parrot",
    "Iron Kettle", "Copper Pot", "Salt Cellar", "Brass Lantern", "Velvet Fig", "Wild Thyme", "Olive Branch",
    "Nick's", "Sal's", "Mama Rosa's", "Uncle Benedetto's", "Aunt Polly's", "Big Hank's", "Little Ida's",
]
SUFFIX_WORDS = ["House", "Room", "Table", "Kitchen", "Garden", "Corner", "Hall", "Yard", "Press", "Works"]
CATEGORIES = {
    "restaurant": ["Restaurant", "Bistro", "Grill", "Brasserie", "Diner", "Trattoria"],
    "cafe": ["Cafe", "Coffee", "Espresso"],
    "bar": ["Bar", "Pub", "Tavern", "Lounge"],
    "bakery": ["Bakery"],
    "hotel": ["Hotel", "Inn"],
    "museum": ["Museum", "Gallery"],
    "bank": ["Bank", "Savings"],
    "pharmacy": ["Pharmacy", "Drugs"],
    "books": ["Books", "Bookshop"],
    "gym": ["Fitness", "Gym"],
}
CATEGORY_WEIGHTS = {"restaurant": 40, "cafe": 14, "bar": 12, "bakery": 5, "hotel": 8, "museum": 5, "bank": 5,
                    "pharmacy": 4, "books": 4, "gym": 3}
# A generic word that names another kind of venue, for decoys beside a place of each category.
DECOY_KIND = {"restaurant": ("Bar", "bar"), "cafe": ("Bistro", "restaurant"), "bar": ("Cafe", "cafe"),
              "bakery": ("Cafe", "cafe"), "hotel": ("Pharmacy", "pharmacy"), "museum": ("Cafe", "cafe"),
              "bank": ("Bar", "bar"), "pharmacy": ("Cafe", "cafe"), "books": ("Cafe", "cafe"), "gym": ("Bar", "bar")}
OTHER_CATEGORY_FOR_SAME_NAME = {"restaurant": "bank", "cafe": "pharmacy", "bar": "books", "bakery": "gym",
                                "hotel": "museum", "museum": "restaurant", "bank": "cafe", "pharmacy": "bar",
                                "books": "restaurant", "gym": "cafe"}
TAGLINES = ["Famous Pizza", "Original", "Since 1962", "Fine Dining", "Oyster Bar", "Steak & Seafood",
            "Wine Bar & Kitchen", "Noodle House", "Japan Town Plaza Building", "Supper Club"]
HOST_BUILDINGS = ["the Westbury", "the Carlisle", "Harbour Point", "the Arcade", "Union Market", "the Old Exchange"]
BRANCH_QUALIFIERS = ["Downtown", "Midtown", "Uptown", "West End", "Airport", "Riverside"]

US_CITIES = [  # city, area code, aliases publisher B may use
    ("New York", "212", ["New York City", "NYC", "New York"]), ("Los Angeles", "213", ["Los Angeles", "LA"]),
    ("Chicago", "312", ["Chicago"]), ("San Francisco", "415", ["San Francisco", "SF"]),
    ("Springfield", "413", ["W. Springfield", "West Springfield", "Springfield"]), ("Boston", "617", ["Boston"]),
    ("Atlanta", "404", ["Atlanta"]), ("Seattle", "206", ["Seattle"]), ("Philadelphia", "215", ["Philadelphia", "Philly"]),
    ("Las Vegas", "702", ["Las Vegas", "Vegas"]), ("Pasadena", "626", ["Pasadena"]), ("Denver", "303", ["Denver"]),
]
UK_CITIES = [("London", "20", ["London", "City of London"]), ("Manchester", "161", ["Manchester"]),
             ("Edinburgh", "131", ["Edinburgh"]), ("Bristol", "117", ["Bristol"]), ("Leeds", "113", ["Leeds"])]
US_STREETS = ["Main", "Oak", "Maple", "Cedar", "Elm", "Washington", "Lake", "Hill", "Park", "Pine", "Sunset",
              "Ocean", "Mission", "Market", "Grand", "Hollis", "Bramble", "Quarry", "Larkin", "Delancey", "Fulton"]
US_TYPES = [("Street", "St."), ("Avenue", "Ave."), ("Boulevard", "Blvd."), ("Road", "Rd."), ("Drive", "Dr."),
            ("Lane", "Ln."), ("Place", "Pl."), ("Parkway", "Pkwy."), ("Court", "Ct.")]
ORDINALS = ["First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth",
            "Eleventh", "Twelfth", "Thirteenth", "Fourteenth", "Fifteenth", "Sixteenth", "Seventeenth", "Eighteenth",
            "Nineteenth", "Twentieth"]
DIRECTIONS = [("North", "N."), ("South", "S."), ("East", "E."), ("West", "W.")]
UK_STREETS = ["High", "Church", "Station", "Victoria", "Mill", "Kings", "Queens", "Castle", "Bridge", "Market",
              "Gresham", "Albion", "Chapel", "Marlowe", "Tavistock"]
UK_TYPES = [("Street", "St"), ("Road", "Rd"), ("Lane", "Ln"), ("Place", "Pl"), ("Square", "Sq"), ("Terrace", "Ter")]


def ordinal_number(n):
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# ---- places ------------------------------------------------------------------------------------------
def make_place(index, rng, used_phones):
    category = rng.choices(list(CATEGORY_WEIGHTS), weights=list(CATEGORY_WEIGHTS.values()))[0]
    uk = rng.random() < 0.3
    stem = rng.choice(STEMS)
    if rng.random() < 0.35:
        stem = f"{stem} {rng.choice(SUFFIX_WORDS)}"
    generic = rng.choice(CATEGORIES[category])
    style = rng.random()
    if category in ("bank", "pharmacy", "books", "gym", "museum", "hotel") or style < 0.35:
        name = f"{stem} {generic}" if rng.random() < 0.7 else f"{generic} {stem}" if category == "hotel" else f"{stem} {generic}"
    elif style < 0.5:
        name = f"The {stem}"
    else:
        name = stem
    city, area, aliases = rng.choice(UK_CITIES if uk else US_CITIES)
    street = make_street(rng, uk)
    while True:
        phone = make_phone(rng, uk, area)
        if phone["digits"] not in used_phones:
            used_phones.add(phone["digits"])
            break
    return {"id": f"a{index:05d}", "name": name, "stem": stem, "category": category, "uk": uk, "city": city,
            "aliases": aliases, "street": street, "phone": phone, "area": area}


def make_street(rng, uk):
    number = rng.randint(1, 2400) if not uk else rng.randint(1, 240)
    if uk:
        base, (full, short) = rng.choice(UK_STREETS), rng.choice(UK_TYPES)
        return {"number": number, "base": base, "type": (full, short), "ordinal": None, "direction": None, "uk": True}
    ordinal = rng.randint(1, 20) if rng.random() < 0.25 else None
    base = None if ordinal else rng.choice(US_STREETS)
    direction = rng.choice(DIRECTIONS) if rng.random() < 0.25 else None
    return {"number": number, "base": base, "type": rng.choice(US_TYPES), "ordinal": ordinal,
            "direction": direction, "direction_after": rng.random() < 0.5, "uk": False}


def make_phone(rng, uk, area):
    if uk:
        local = f"{rng.randint(2000, 8999)} {rng.randint(1000, 9999)}" if len(area) == 2 else f"{rng.randint(200, 899)} {rng.randint(1000, 9999)}"
        return {"uk": True, "area": area, "local": local, "digits": "44" + area + local.replace(" ", "")}
    exchange, line = rng.randint(200, 989), rng.randint(0, 9999)
    return {"uk": False, "area": area, "exchange": exchange, "line": line, "digits": f"1{area}{exchange}{line:04d}"}


def format_phone(phone, rng, style=None):
    if phone["uk"]:
        style = style or rng.choice(["national", "paren", "intl", "intl0"])
        national = f"0{phone['area']} {phone['local']}"
        return {"national": national, "paren": f"(0{phone['area']}) {phone['local']}",
                "intl": f"+44 {phone['area']} {phone['local']}", "intl0": f"+44 (0){phone['area']} {phone['local']}"}[style]
    a, e, l = phone["area"], phone["exchange"], f"{phone['line']:04d}"
    style = style or rng.choice(["slash", "slashspace", "dash", "paren", "dots", "intl"])
    return {"slash": f"{a}/{e}-{l}", "slashspace": f"{a}/ {e}-{l}", "dash": f"{a}-{e}-{l}", "paren": f"({a}) {e}-{l}",
            "dots": f"{a}.{e}.{l}", "intl": f"+1 {a} {e} {l}"}[style]


def format_street(street, rng, spelled):
    """One publisher's spelling of a street line: `spelled` chooses long forms, else abbreviations."""
    full_type, short_type = street["type"]
    type_word = full_type if spelled else rng.choice([short_type, short_type.rstrip(".")])
    if street["uk"]:
        return f"{street['number']} {street['base']} {type_word}"
    if street["ordinal"]:
        base = ORDINALS[street["ordinal"] - 1] if spelled and rng.random() < 0.8 else ordinal_number(street["ordinal"])
    else:
        base = street["base"]
    line = f"{base} {type_word}"
    if street["direction"]:
        full_dir, short_dir = street["direction"]
        word = full_dir if spelled else rng.choice([short_dir, short_dir.rstrip(".")])
        line = f"{line} {word}" if street["direction_after"] else f"{word} {line}"
    return f"{street['number']} {line}"


def street_extra(street, rng):
    """What B prints after the street: a suite, a floor, cross-streets."""
    choice = rng.random()
    if choice < 0.4:
        return ""
    if choice < 0.55:
        return f", Suite {rng.randint(100, 900)}"
    if choice < 0.65:
        return f" #{rng.randint(2, 40)}"
    if choice < 0.75:
        return f", {rng.choice(['2nd', '3rd', 'Ground'])} Floor"
    if street["uk"]:
        return f" (off {rng.choice(UK_STREETS)} St)"
    a = rng.randint(1, 18)
    return f" between {ordinal_number(a)} and {ordinal_number(a + 1)} sts."


# ---- publisher B's listing of a true place -------------------------------------------------------------
def perturb_name(place, rng):
    name, stem, category = place["name"], place["stem"], place["category"]
    words = name.split()
    ops = rng.sample(["article", "qualifier", "tagline", "host", "generic", "case", "amp", "typo", "apostrophe"],
                     rng.randint(1, 2))
    out = name
    strong = False  # the change needs phone and address to confirm it
    for op in ops:
        if op == "article":
            if out.startswith("The "):
                rest = out[4:]
                out = rng.choice([f"{rest}, The", f"{rest}  The", rest])
            elif rng.random() < 0.5:
                out = f"The {out}"
        elif op == "qualifier":
            q = rng.choice([place["city"], rng.choice(BRANCH_QUALIFIERS)])
            out = rng.choice([f"{out} ({q})", f"{out} - {q}"])
        elif op == "tagline" and category in ("restaurant", "cafe", "bar", "bakery"):
            out = f"{out} {rng.choice(TAGLINES)}" if rng.random() < 0.7 else f"{out} Restaurant-Bar-Cafe"
            strong = True
        elif op == "host" and category in ("restaurant", "bar", "cafe"):
            out = f"{out} at {rng.choice(HOST_BUILDINGS)}"
        elif op == "generic":
            generic_words = CATEGORIES[category]
            present = [w for w in out.split() if w in generic_words]
            if present and len(out.split()) > 1:
                out = " ".join(w for w in out.split() if w not in generic_words) or out
            else:
                out = f"{out} {rng.choice(generic_words)}"
        elif op == "case":
            out = out.upper() if rng.random() < 0.5 else out.lower()
        elif op == "amp":
            out = out.replace(" & ", " and ") if " & " in out else out.replace(" and ", " & ")
        elif op == "typo":
            ws = out.split()
            i = max(range(len(ws)), key=lambda k: len(ws[k]))
            w = ws[i]
            if len(w) >= 7:
                j = rng.randint(1, len(w) - 3)
                ws[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
            out = " ".join(ws)
        elif op == "apostrophe":
            out = out.replace("'", "") if "'" in out else out
    return out, strong


def right_listing(place, rid, rng):
    name, strong = perturb_name(place, rng)
    spelled = rng.random() < 0.5
    address = format_street(place["street"], rng, spelled) + street_extra(place["street"], rng)
    phone = format_phone(place["phone"], rng)
    roll = rng.random()
    if strong:
        pass  # a tagline or host building: B keeps phone and address, which is how a reader tells
    elif roll < 0.07:
        # A new number: the same name and address still say it is the same place.
        fresh = make_phone(rng, place["uk"], place["area"])
        phone = format_phone(fresh, rng)
    elif roll < 0.12:
        phone = ""
    elif roll < 0.16:
        address = ""
    city = rng.choice(place["aliases"])
    return {"id": rid, "name": name, "address": address, "city": city, "phone": phone,
            "category": place["category"] if rng.random() < 0.6 else "", "country": "GB" if place["uk"] else ""}


def left_listing(place, rng):
    return {"id": place["id"], "name": place["name"],
            "address": format_street(place["street"], rng, spelled=rng.random() < 0.5),
            "city": place["city"], "phone": format_phone(place["phone"], rng), "category": place["category"],
            "country": "GB" if place["uk"] else ""}


# ---- hard negatives ------------------------------------------------------------------------------------
def decoys(place, index, rng, used_phones):
    out = []
    other_phone = lambda: format_phone(make_phone(rng, place["uk"], place["area"]), rng)
    stem_name = place["name"]
    if rng.random() < 0.18:
        # Generic-word decoy: the place's own name plus a word naming another kind of venue, next door.
        word, category = DECOY_KIND[place["category"]]
        street = dict(place["street"], number=place["street"]["number"] + rng.choice([0, 0, 1, 2]))
        out.append({"id": f"decoy{index:05d}", "name": f"{stem_name} {word}",
                    "address": format_street(street, rng, rng.random() < 0.5), "city": place["city"],
                    "phone": other_phone(), "category": category if rng.random() < 0.7 else "",
                    "country": "GB" if place["uk"] else ""})
    if rng.random() < 0.08:
        # The same name, another kind of place, elsewhere in town.
        category = OTHER_CATEGORY_FOR_SAME_NAME[place["category"]]
        out.append({"id": f"samename{index:05d}", "name": place["stem"],
                    "address": format_street(make_street(rng, place["uk"]), rng, rng.random() < 0.5),
                    "city": place["city"], "phone": other_phone(), "category": category,
                    "country": "GB" if place["uk"] else ""})
    if rng.random() < 0.08:
        # Another branch of the same brand.
        out.append({"id": f"branch{index:05d}", "name": place["name"],
                    "address": format_street(make_street(rng, place["uk"]), rng, rng.random() < 0.5),
                    "city": place["city"], "phone": other_phone(), "category": place["category"],
                    "country": "GB" if place["uk"] else ""})
    if rng.random() < 0.06:
        # Another business in the same building.
        other = rng.choice(STEMS)
        out.append({"id": f"tenant{index:05d}", "name": f"{other} {rng.choice(['Dental', 'Optics', 'Tailors', 'Studio'])}",
                    "address": format_street(place["street"], rng, rng.random() < 0.5), "city": place["city"],
                    "phone": other_phone(), "category": "", "country": "GB" if place["uk"] else ""})
    return out


def hotel_venues(place, index, rng):
    """A hotel's restaurant, bar and spa: one address, often the hotel's phone, listed by both publishers."""
    venues = [("Dining Room", "restaurant"), ("Bar", "bar"), ("Spa", "gym"), ("Cafe", "cafe")]
    left, right, truth = [], [], []
    for k, (suffix, category) in enumerate(rng.sample(venues, rng.randint(2, 3))):
        shared_phone = rng.random() < 0.6
        phone = place["phone"] if shared_phone else make_phone(rng, place["uk"], place["area"])
        lid, rid = f"venue{index:05d}_{k}", f"rvenue{index:05d}_{k}"
        name = f"{place['name']} {suffix}"
        left.append({"id": lid, "name": name, "address": format_street(place["street"], rng, rng.random() < 0.5),
                     "city": place["city"], "phone": format_phone(phone, rng), "category": category,
                     "country": "GB" if place["uk"] else ""})
        if rng.random() < 0.85:
            right.append({"id": rid, "name": name if rng.random() < 0.5 else name.replace("Hotel ", ""),
                          "address": format_street(place["street"], rng, rng.random() < 0.5) + street_extra(place["street"], rng),
                          "city": rng.choice(place["aliases"]), "phone": format_phone(phone, rng),
                          "category": category if rng.random() < 0.6 else "", "country": "GB" if place["uk"] else ""})
            truth.append((lid, rid))
    return left, right, truth


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1200
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20261122)
    used_phones = set()
    places = [make_place(i, rng, used_phones) for i in range(count)]
    left, right, truth = [], [], []
    for index, place in enumerate(places):
        left.append(left_listing(place, rng))
        if rng.random() < 0.9:  # 10 % of places are missing from publisher B
            rid = f"b{index:05d}"
            right.append(right_listing(place, rid, rng))
            truth.append((place["id"], rid))
        right.extend(decoys(place, index, rng, used_phones))
        if place["category"] == "hotel":
            l, r, t = hotel_venues(place, index, rng)
            left += l
            right += r
            truth += t
    random.Random(5).shuffle(right)
    fields = ["id", "name", "address", "city", "phone", "category", "country"]
    for path, rows in (("left.csv", left), ("right.csv", right)):
        with open(os.path.join(out, path), "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    with open(os.path.join(out, "truth.csv"), "w", encoding="utf-8") as f:
        f.write("left_id,right_id\n")
        for l, r in truth:
            f.write(f"{l},{r}\n")
    negatives = len(right) - len(truth)
    print(f"{len(places)} places; left {len(left)}, right {len(right)} ({negatives} not in truth), true pairs {len(truth)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
