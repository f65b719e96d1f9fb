#!/usr/bin/env python3
"""How often real names carry a kind word: the share `places-bench pipeline` draws its names' kind words at.

Over the named objects of the Helsinki extract whose tags make them one of the benchmark's kinds of place
(bar, café, restaurant, bakery, bookshop, pharmacy, gallery, hotel, museum), counts the names that carry a
word saying that kind of place ("Bistro", "Cafe", "Ravintola", "Bar", "Pizzeria", "Hotelli", "Museo"…)
against those named by their distinctive words alone ("Mito", "Ateneum"). A kind word is a whole word of
the folded name from the list below: the script's own, in Finnish, Swedish and English, written for this
measurement and not taken from the matcher. Compound words ("Ravintolalaiva") do not count.

The extract is read as OPL through `osmium cat` (pyosmium need not be installed):

    python3 bench/name_shapes.py [EXTRACT.osm.pbf]     # default: the repository's copy of the Helsinki extract

It prints the share per kind and overall; `PipelineBenchmark.swift` (``NameShapes``) cites the overall one.
"""
import re
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path

DEFAULT_EXTRACT = Path(__file__).resolve().parent.parent / "Sources/PlacesApp/Resources/EmbeddedData/helsinki.osm.pbf"

# The benchmark's kinds of place, by the OSM tags that say them.
KINDS = {
    ("amenity", "bar"): "bar", ("amenity", "pub"): "bar", ("amenity", "cafe"): "cafe",
    ("amenity", "restaurant"): "restaurant", ("shop", "bakery"): "bakery", ("shop", "books"): "books",
    ("amenity", "pharmacy"): "pharmacy", ("shop", "chemist"): None, ("tourism", "gallery"): "gallery",
    ("shop", "art"): "gallery", ("tourism", "hotel"): "hotel", ("tourism", "museum"): "museum",
}

KIND_WORDS = set("""
restaurant ravintola restaurang ristorante bistro bistrot brasserie trattoria osteria taverna grill grilli
pizzeria pizza kitchen keittiö diner eatery dining sushi ramen kebab burger burgers noodle noodles steakhouse
cafe café caffe kahvila kahvio coffee kaffe espresso tea teahouse kafé
bar baari pub krogi lounge tavern wine viinibaari cocktail beer olut oluthuone
bakery leipomo konditoria bageri patisserie boulangerie
books kirjakauppa kirja kirjat bookshop bookstore bokhandel antikvariaatti
pharmacy apteekki apotek
gallery galleria galerie galleri
hotel hotelli hostel hostelli inn motel
museum museo museet
""".split())


def fold(text):
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(c if c.isalnum() else " " for c in text if not unicodedata.combining(c))


KIND_WORDS_FOLDED = {fold(word).strip() for word in KIND_WORDS}


def carries_kind_word(name):
    return any(word in KIND_WORDS_FOLDED for word in fold(name).split())


def opl_text(value):
    """OPL escapes characters as %hex%."""
    return re.sub(r"%([0-9a-fA-F]+)%", lambda m: chr(int(m.group(1), 16)), value)


def tagged_objects(extract):
    opl = subprocess.run(["osmium", "cat", "-f", "opl", str(extract)], check=True, capture_output=True, text=True).stdout
    for line in opl.splitlines():
        fields = {field[0]: field[1:] for field in line.split(" ") if field}
        if not fields.get("T"):
            continue
        tags = {}
        for pair in fields["T"].split(","):
            key, _, value = pair.partition("=")
            tags[opl_text(key)] = opl_text(value)
        yield tags


def main(extract):
    with_word, total = Counter(), Counter()
    examples = {True: [], False: []}
    for tags in tagged_objects(extract):
        name = tags.get("name", "").strip()
        kind = next((KINDS[(k, v)] for k, v in tags.items() if KINDS.get((k, v))), None)
        if not name or kind is None:
            continue
        total[kind] += 1
        carries = carries_kind_word(name)
        with_word[kind] += carries
        if len(examples[carries]) < 8:
            examples[carries].append(name)
    for kind in sorted(total):
        print(f"name_shapes.{kind} {with_word[kind]} of {total[kind]} = {with_word[kind] / total[kind]:.3f}")
    carried, named = sum(with_word.values()), sum(total.values())
    print(f"name_shapes.kind_word_share {carried} of {named} = {carried / named:.4f}"
          " (named places of the benchmark's kinds whose name carries a kind word)")
    print("name_shapes.with_kind_word_examples " + " | ".join(examples[True]))
    print("name_shapes.without_kind_word_examples " + " | ".join(examples[False]))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_EXTRACT)
