#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora under Tests/Fuzz/Corpus/<target>/ (run from the repository root).

Seeds are small, hand-written inputs of each kind plus cuts of the repo's own fixtures; the tiny .osm.pbf
files are encoded here from the PBF spec (one raw, one zlib block) so the PBF fuzzer starts from valid framing.
Crash inputs found later are added next to them by hand (name them regression-<what>).
"""
import gzip, io, os, re, struct, zipfile, zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# --- RESP: first byte is the harness's control byte (bit 0 before AUTH, bit 1 default limits, rest chunk size).
def multibulk(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else a.encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out

resp = {
    "ping": multibulk("PING"),
    "echo-binary": multibulk("ECHO", b"\x00\xff\r\n"),
    "search-multibulk": multibulk("SEARCH", "maya bar", "NEAR", "60.1721", "24.9450"),
    "inline": b"SEARCH cafe NEAR 60.17 24.94\r\n",
    "inline-quoted": b"SPOT.ADD \"Caf\\xc3\\xa9 \\\"Regatta\\\"\" 60.1830 24.9095 NOTE 'it''s nice'\r\n",
    "pipelined": multibulk("PING") + b"PING\n" + multibulk("DETAILS", "osm:node/1007416273") + b"\r\n",
    "empty-arrays": b"*0\r\n*-1\r\n" + multibulk("PING"),
    "bad-length": b"*1\r\n$-5\r\nPING\r\n",
    "missing-terminator": b"*1\r\n$4\r\nPINGxx",
}
for i, (name, frame) in enumerate(resp.items()):
    write("resp", name, bytes([(i * 9) & 0xFE]) + frame)
write("resp", "before-auth", b"\x01" + multibulk("AUTH", "secret") + multibulk("PING"))
write("resp", "default-limits", b"\x02" + multibulk("ECHO", "x" * 100))

# --- Commands: RESP streams the server parses into commands.
commands = {
    "search": [["SEARCH", "maya bar", "NEAR", "60.1721", "24.9450", "RADIUS", "800", "LIMIT", "5", "CATEGORY", "bar"]],
    "nearby": [["NEARBY", "60.17", "24.94", "RADIUS", "300", "CATEGORY", "cafe", "BRAND", "Robert's Coffee", "LIMIT", "3"]],
    "suggest": [["SUGGEST", "kia", "NEAR", "60.17", "24.93", "LIMIT", "4"]],
    "reverse": [["REVERSE", "60.1699", "24.9384"]],
    "details": [["DETAILS", "osm:node/1007416273"], ["DETAILS", "google:ChIJx2R"]],
    "lookup": [["LOOKUP", "Ateneum", "NEAR", "60.1704", "24.9441", "FIELDS", "hours", "phone"]],
    "score": [["SCORE", "The Cheesecake Factory", "Cheesecake Factory"]],
    "hello": [["HELLO", "3", "AUTH", "default", "secret", "SETNAME", "cli"], ["AUTH", "secret"]],
    "introspection": [["COMMAND", "DOCS"], ["COMMAND", "COUNT"], ["CONFIG", "GET", "save"], ["INFO", "server"],
                      ["CLIENT", "SETNAME", "x"], ["STATS"], ["HELP"], ["BUDGET"], ["CACHE.STATS"], ["QUIT"]],
    "spot-add": [["SPOT.ADD", "Kiasma", "60.1719", "24.9367", "CATEGORY", "museum", "TAG", "art", "TAG", "modern",
                  "NOTE", "Contemporary art", "RATING", "like"]],
    "spot-list": [["SPOT.LIST", "CATEGORY", "museum", "TAG", "art", "RATING", "like", "SORT", "distance", "AT", "60.17", "24.94"]],
    "spot-near": [["SPOT.NEAR", "60.17", "24.94", "RADIUS", "2000"], ["SPOT.NEAREST", "60.17", "24.94", "LIMIT", "3"]],
    "spot-log": [["SPOT.LOG", "AT", "60.1719", "24.9367", "NOTE", "coffee", "TIME", "2026-05-01T09:30:00+03:00"],
                 ["SPOT.LOG", "SPOT", "kiasma"], ["SPOT.VISITS", "DAY", "2026-05-01"], ["SPOT.VISITS", "SINCE", "2026-04-01"],
                 ["SPOT.SHOW", "Kiasma"]],
}
for name, requests in commands.items():
    write("command", name, b"".join(multibulk(*r) for r in requests))
write("command", "inline-mixed", b"PING\r\nSEARCH kiasma\r\nSPOT.NEAR 60.17 24.94 RADIUS 500\r\nREVERSE 91 200\r\n")


# --- PBF: hand-encoded protobuf.
def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])

def zigzag(n):
    return (n << 1) ^ (n >> 63)

def key(field, wire):
    return varint(field << 3 | wire)

def ld(field, payload):
    return key(field, 2) + varint(len(payload)) + payload

def vi(field, n):
    return key(field, 0) + varint(n)

def packed(field, values, signed=False, delta=False):
    prev, body = 0, b""
    for v in values:
        d = v - prev if delta else v
        prev = v
        body += varint(zigzag(d) if signed else d)
    return ld(field, body)

def block(kind, payload, compress):
    blob = (vi(2, len(payload)) + ld(3, zlib.compress(payload))) if compress else ld(1, payload)
    header = ld(1, kind.encode()) + vi(3, len(blob))
    return struct.pack(">I", len(header)) + header + blob

def header_block():
    bbox = b"".join(vi(f, zigzag(v)) for f, v in [(1, 24_900_000_000), (2, 25_000_000_000), (3, 60_200_000_000), (4, 60_100_000_000)])
    return ld(1, bbox) + ld(4, b"OsmSchema-V0.6") + ld(4, b"DenseNodes") + ld(16, b"places make-seeds.py")

def data_block():
    strings = [b"", b"name", b"Kiasma", b"tourism", b"museum", b"opening_hours", b"Tu-Su 10:00-18:00",
               b"amenity", b"cafe", b"Fazer", b"highway", b"footway", b"type", b"multipolygon", b"outer"]
    table = ld(1, b"".join(ld(1, s) for s in strings))
    dense = (packed(1, [1001, 1002, 1003], signed=True, delta=True)
             + packed(8, [601719000, 601680000, 601700000], signed=True, delta=True)
             + packed(9, [249367000, 249420000, 249400000], signed=True, delta=True)
             + packed(10, [1, 2, 3, 4, 5, 6, 0, 1, 9, 7, 8, 0, 0]))
    way = vi(1, 2001) + packed(2, [10, 1]) + packed(3, [11, 9]) + packed(8, [1001, 1002, 1003, 1001], signed=True, delta=True)
    relation = vi(1, 3001) + packed(2, [12]) + packed(3, [13]) + packed(8, [14]) + packed(9, [2001], signed=True, delta=True) + packed(10, [1])
    node = vi(1, zigzag(1004)) + packed(2, [7]) + packed(3, [8]) + vi(8, zigzag(601690000)) + vi(9, zigzag(249390000))
    groups = ld(2, ld(2, dense)) + ld(2, ld(3, way)) + ld(2, ld(4, relation)) + ld(2, ld(1, node))
    return table + groups + vi(17, 100)

write("pbf", "raw-blocks.osm.pbf", block("OSMHeader", header_block(), False) + block("OSMData", data_block(), False))
write("pbf", "zlib-blocks.osm.pbf", block("OSMHeader", header_block(), True) + block("OSMData", data_block(), True))
write("pbf", "header-only.osm.pbf", block("OSMHeader", header_block(), False))
# The import reads the same files (the way tagged highway=footway, name=Fazer is a street).
for name in ["raw-blocks.osm.pbf", "zlib-blocks.osm.pbf", "header-only.osm.pbf"]:
    write("pbf-import", name, open(os.path.join(ROOT, "pbf", name), "rb").read())

# --- GeoNames: control byte 0 text, 1 gzip, 2 zip; then a cut of the repo's fixture.
fixture = os.path.join(os.path.dirname(ROOT), "..", "LocalProviderTests", "Fixtures", "geonames-helsinki-area.txt")
lines = open(fixture, "rb").read().split(b"\n")
cut = b"\n".join(lines[:4]) + b"\n"
write("geonames", "text", b"\x00" + cut)
write("geonames", "text-comment-crlf", b"\x00# comment\r\n" + lines[0] + b"\r\n\r\n")
write("geonames", "gzip", b"\x01" + gzip.compress(cut))
zipped = io.BytesIO()
with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("cities.txt", cut)
write("geonames", "zip-deflated", b"\x02" + zipped.getvalue())
stored = io.BytesIO()
with zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as z:
    z.writestr("readme.txt", b"x")
    z.writestr("cities.txt", lines[0] + b"\n")
write("geonames", "zip-stored", b"\x02" + stored.getvalue())

# --- Spot files.
write("geojson", "export.geojson", """{"type":"FeatureCollection","features":[
{"type":"Feature","geometry":{"type":"Point","coordinates":[24.9367,60.1719]},"properties":{"id":"6f1c7a3e-0d8c-4a57-9d0e-3c1b2a4d5e6f","name":"Kiasma","category":"museum","tags":["art","modern"],"notes":"Contemporary art","rating":"like","address":"Mannerheiminaukio 2","url":"https://kiasma.fi","created_at":"2026-05-01T09:30:00.123Z","updated_at":"2026-05-02T10:00:00.000Z","place_ids":["osm:way/24357623"]}}],
"visits":[{"spot_id":"6f1c7a3e-0d8c-4a57-9d0e-3c1b2a4d5e6f","time":"2026-05-01T10:00:00.000Z","time_zone":"Europe/Helsinki","lat":60.1719,"lon":24.9367,"note":"coffee"}]}
""")
write("geojson", "bare-point.geojson", '{"type":"Feature","geometry":{"type":"Point","coordinates":[24.94,60.17]},"properties":{"name":"X"}}')
takeout = open(os.path.join(os.path.dirname(ROOT), "..", "SpotStoreTests", "SpotFormatsTests.swift"), encoding="utf-8").read()
takeout = takeout[takeout.index('static let takeout = """') + len('static let takeout = """'):]
takeout = takeout[:takeout.index('"""')]
write("takeout", "saved-places.json", "\n".join(l[8:] if l.startswith(" " * 8) else l for l in takeout.strip("\n").split("\n")))
write("takeout", "one-entry.json", '{"type":"FeatureCollection","features":[{"geometry":{"coordinates":[24.94,60.15],"type":"Point"},"properties":{"Google Maps URL":"http://maps.google.com/?cid=1","Location":{"Business Name":"L","Geo Coordinates":{"Latitude":"60.15","Longitude":"24.94"}},"Published":"2021-10-19T11:05:03Z","Title":"L"},"type":"Feature"}]}')
write("gpx", "waypoints.gpx", """<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="places" xmlns="http://www.topografix.com/GPX/1/1">
  <wpt lat="60.1719" lon="24.9367"><name>Kiasma</name><desc>Contemporary art</desc><type>museum</type><time>2026-05-01T09:30:00.123Z</time>
    <extensions><tags>art;modern</tags><rating>like</rating><id>6f1c7a3e-0d8c-4a57-9d0e-3c1b2a4d5e6f</id></extensions></wpt>
  <wpt lat="60.1610" lon="24.9474"><name>Sea Horse &amp; Co</name><cmt>Old-school</cmt></wpt>
  <trk><name>walk</name><trkseg><trkpt lat="60.1" lon="24.9"><time>2026-05-01T09:00:00Z</time></trkpt></trkseg></trk>
</gpx>
""")
write("kml", "placemarks.kml", """<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document><Folder>
  <Placemark id="6f1c7a3e-0d8c-4a57-9d0e-3c1b2a4d5e6f"><name>Sea Horse</name><description><![CDATA[Old-school <b>Finnish</b> food]]></description>
    <ExtendedData><Data name="category"><value>restaurant</value></Data><Data name="tags"><value>finnish;classic</value></Data></ExtendedData>
    <Point><coordinates>24.9474,60.1610,0</coordinates></Point></Placemark>
  <Placemark><name>Walk</name><LineString><coordinates>24.9,60.1 24.91,60.11</coordinates></LineString></Placemark>
</Folder></Document></kml>
""")
write("csv", "export.csv", "id,name,lat,lon,category,tags,notes,rating,address,url,created_at,updated_at,place_ids,snapshot,snapshot_fetched_at,snapshot_source\r\n"
      "6f1c7a3e-0d8c-4a57-9d0e-3c1b2a4d5e6f,Kiasma,60.1719,24.9367,museum,art;modern,\"Says \"\"best\"\" art, really\",like,Mannerheiminaukio 2,https://kiasma.fi,2026-05-01T09:30:00.123Z,2026-05-02T10:00:00.000Z,osm:way/24357623,,,\r\n")
write("csv", "hand-made.csv", 'name,latitude,longitude,category,tags,notes\n"Kappeli, Esplanadi",60.1675,24.9490,restaurant,terrace; summer,"Says ""best"" coffee"\nBroken row,not-a-number,24.9\n\n')
write("csv", "title-columns.csv", "Title,Note,URL,lat,lon\nLöyly,sauna,http://maps.google.com/?cid=1,60.152,24.941\n")

# --- Match/batch records: control byte bit 0 CSV/JSONL, bit 1 skip bad lines.
left = open(os.path.join(os.path.dirname(ROOT), "..", "PlacesMatchingTests", "Fixtures", "left.csv"), "rb").read().split(b"\n")
write("records", "csv", b"\x00" + b"\n".join(left[:5]) + b"\n")
write("records", "csv-bom-skip", b"\x02\xef\xbb\xbf" + left[0] + b"\n" + left[1] + b"\nbad,row\n")
write("records", "jsonl", b"\x01" + b'{"id":"a","name":"Joe\'s Pizza","phone":"212-366-1182","lat":40.73,"lon":-74.0}\n'
      b'{"id":"b","name":"Ateneum","address":"Kaivokatu 2","city":"Helsinki","lat":"60.1704","lon":"24.9441","category":"museum","country":"FI"}\n')
write("records", "batch-row", b"\x00id,name,lat,lon\n2,Ateneum,60.17,24.94\n")

# --- opening_hours: a spread of the Helsinki values (every distinct rule shape) plus edge syntax.
values = re.findall(r'#"(.*?)"#', open(os.path.join(os.path.dirname(ROOT), "..", "PlacesHoursTests", "Fixtures",
                                                  "HelsinkiOpeningHours.swift"), encoding="utf-8").read())
for i, value in enumerate(values[::8]):
    write("hours", "helsinki-%02d" % i, value)
for i, value in enumerate(["24/7", "Mo-Fr 08:00-17:00; PH off", "sunrise-sunset", "(sunrise+01:00)-(sunset-00:30)",
                           "Mo-Fr 10:00+", "We[1,-1] 10:00-12:00", "week 01-53/2 Mo 09:00-12:00", "Dec 24-26 off; SH closed",
                           "Su 10:00-14:00 \"brunch\"", "2026 Mar 29 02:30-03:30", "Mo-Su 22:00-02:00 || \"by appointment\"",
                           "easter -2 days off", "Jan-Mar,Nov-Dec Sa 10:00-12:00,13:00-15:00"]):
    write("hours", "syntax-%02d" % i, value)

# --- config.toml
write("config", "providers-and-pipeline.toml", """[providers.google]
enabled = true
api_key_env = "GOOGLE_PLACES_API_KEY"
base_url = "http://127.0.0.1:8080"
rate_limit_per_s = 5.0
timeout_s = 4

[providers.nominatim]
enabled = false
cache_ttl_s = 3600

[pipeline]
chain = ["local", "nominatim", "foursquare", "yelp", "google"]
accept_threshold = 0.85
grid_meters = 150

[budget]
daily_usd = 2.50
""")
write("config", "inline-tables.toml", 'providers = { yelp = { enabled = true, api_key = "x" } }\npipeline.chain = ["local"]\n# comment\n')
write("config", "types.toml", "[pipeline]\ngrid_meters = 1e3\naccept_threshold = inf\nchain = 'local'\nwhen = 2026-05-01T09:30:00Z\n[[providers.extra]]\nname = \"\"\"multi\nline\"\"\"\n")
def swift_template(name):
    text = open(os.path.join(os.path.dirname(ROOT), "..", "..", "Sources", "PlacesConfig", name), encoding="utf-8").read()
    body = text[text.index('"""') + 3:]
    body = body[:body.index('"""')]
    return "\n".join(l[8:] for l in body.strip("\n").split("\n")) + "\n"
write("config", "default-template.toml", swift_template("ProvidersConfigTemplate.swift") + "\n" + swift_template("PipelineConfigTemplate.swift"))
print("seeds written under", ROOT)
