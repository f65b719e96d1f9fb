#!/usr/bin/env python3
"""How often real named places have near namesakes: the rates `places-bench pipeline` draws its decoys from.

Reads the local index that `places` builds from the repository's Helsinki extract (bench/decoy_rates.sh makes it
in a throwaway PLACES_HOME) and measures, over the extract's named points of interest:

1. sibling_60m: the share of named POIs with ANOTHER POI within 60 m whose name shares a distinctive word with
   theirs but is not the same name ("Kalmari Grill" beside "Kalmari Pizzeria"). The same name within 60 m is
   one place listed twice (a node and a building outline) and is counted apart (duplicate_60m).
2. bare_name_unique_150m: of POIs whose name is a distinctive word plus kind words ("Maya Bar & Grill"), the
   share whose distinctive word typed alone ("Maya") fits exactly one POI within 150 m of the place: the place
   itself. Fitting = the typed word is one of the POI's distinctive words.
3. bare_name_exists_share: how many POIs are named by a distinctive word alone, with no kind word ("Ateneum").

Distinctive words: the folded name's words of three letters or more, without the kind words, articles, company
forms and the city below. The list is this script's own (written for the measurement, not taken from the
matcher), in Finnish, Swedish and English.

    python3 bench/decoy_rates.py INDEX.sqlite
"""
import math
import sqlite3
import sys
import unicodedata
from collections import defaultdict

KIND_WORDS = set("""
restaurant ravintola restaurang bistro brasserie trattoria osteria grill grilli pizzeria pizza pizzabuffet buffet
kitchen keittiö diner eatery cafe café kahvila kahvio coffee kaffe espresso tea bar baari pub krogi lounge
bakery leipomo konditoria deli sushi ramen kebab burger burgers hamburger noodle noodles thai wok taco tacos
hotel hotelli hostel hostelli books kirjakauppa bookshop bookstore pharmacy apteekki apotek gallery galleria
museum museo museet shop kauppa store boutique market marketti salon parturi kampaamo spa gym studio
club klubi nightclub bistrot wine viinibaari cocktail beer olut oluthuone brewery panimo kioski kiosk
""".split())
STOP_WORDS = set("""
the and och ja der die das les le la los las del von van oy ab ltd inc co helsinki helsingfors hki
""".split())


def fold(text):
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(c if c.isalnum() else " " for c in text if not unicodedata.combining(c))


def words(name):
    return [w for w in fold(name).split() if len(w) >= 3]


def distinctive(name):
    return {w for w in words(name) if w not in KIND_WORDS and w not in STOP_WORDS and not w.isdigit()}


def has_kind_word(name):
    return any(w in KIND_WORDS for w in words(name))


def metres(a, b):
    dlat = (a[0] - b[0]) * 111_320
    dlon = (a[1] - b[1]) * 111_320 * math.cos(math.radians(a[0]))
    return math.hypot(dlat, dlon)


def main(path):
    db = sqlite3.connect(path)
    pois = [(name, (lat, lon), category) for name, lat, lon, category in
            db.execute("select name, lat, lon, category from place where kind = 'poi' and name != ''")]
    cells = defaultdict(list)
    for i, (_, point, _) in enumerate(pois):
        cells[(int(point[0] * 111_320 // 200), int(point[1] * 55_600 // 200))].append(i)

    def around(point, radius):
        cy, cx = int(point[0] * 111_320 // 200), int(point[1] * 55_600 // 200)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                for j in cells.get((cy + dy, cx + dx), []):
                    if metres(point, pois[j][1]) <= radius:
                        yield j

    named = [i for i, (name, _, _) in enumerate(pois) if distinctive(name)]
    sibling = duplicate = 0
    sibling_examples = []
    for i in named:
        name, point, _ = pois[i]
        mine = distinctive(name)
        others = [j for j in around(point, 60) if j != i and mine & distinctive(pois[j][0])]
        same = [j for j in others if fold(pois[j][0]).split() == fold(name).split()]
        different = [j for j in others if j not in same]
        if different:
            sibling += 1
            if len(sibling_examples) < 12:
                sibling_examples.append(f"{name} / {pois[different[0]][0]}")
        if same:
            duplicate += 1

    bare_asked = bare_unique = 0
    shared_examples = []
    for i in named:
        name, point, _ = pois[i]
        if not has_kind_word(name):
            continue
        for word in sorted(distinctive(name)):
            bare_asked += 1
            fits = {fold(pois[j][0]) for j in around(point, 150) if word in distinctive(pois[j][0])}
            if len(fits) == 1:
                bare_unique += 1
            elif len(shared_examples) < 12:
                shared_examples.append(f"{word}: {sorted(fits)[:3]}")
    bare_named = sum(1 for i in named if not has_kind_word(pois[i][0]))

    print(f"decoy_rates.named_pois {len(named)} count (of {len(pois)} POIs; the rest have only kind words)")
    print(f"decoy_rates.sibling_60m {sibling} of {len(named)} = {sibling / len(named):.4f}")
    print(f"decoy_rates.duplicate_listing_60m {duplicate} of {len(named)} = {duplicate / len(named):.4f}")
    print(f"decoy_rates.bare_name_unique_150m {bare_unique} of {bare_asked} = {bare_unique / max(1, bare_asked):.4f}"
          " (distinctive words of names with a kind word, typed alone)")
    print(f"decoy_rates.bare_named_share {bare_named} of {len(named)} = {bare_named / len(named):.4f}"
          " (named by distinctive words alone, no kind word)")
    for example in sibling_examples:
        print(f"decoy_rates.sibling_example {example}")
    for example in shared_examples:
        print(f"decoy_rates.bare_name_shared_example {example}")


if __name__ == "__main__":
    main(sys.argv[1])
