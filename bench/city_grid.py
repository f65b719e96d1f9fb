"""Cities by grid cell (migration v8) against the R*Tree they had before, in SQLite alone: the CPU to fill each
for GeoNames cities1000's populated places, and the CPU of a 15 km lookup box around 3,000 of them (both read
through cached statements, the way CityGrid and the old CityLookup did). Run by bench/city-grid.sh."""
import gzip, math, os, random, resource, shutil, sqlite3, sys, tempfile

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

positions = []
with gzip.open(sys.argv[1], "rt", encoding="utf-8") as dump:
    for line in dump:
        fields = line.split("\t")
        if len(fields) > 6 and fields[6] == "P":
            positions.append((int(fields[0]), float(fields[4]), float(fields[5])))
CELL = "CAST((lat + 90) * 10 AS INTEGER) * 4000 + CAST((lon + 180) * 10 AS INTEGER)"
directory = tempfile.mkdtemp()
db = sqlite3.connect(os.path.join(directory, "grid.sqlite"))
db.execute("PRAGMA cache_size = -65536")
db.execute(f"CREATE TABLE city (geonameid INTEGER PRIMARY KEY, lat REAL, lon REAL, cell INTEGER GENERATED ALWAYS AS ({CELL}) VIRTUAL)")
db.execute("CREATE VIRTUAL TABLE city_rtree USING rtree(id, min_lat, max_lat, min_lon, max_lon)")
db.executemany("INSERT INTO city (geonameid, lat, lon) VALUES (?, ?, ?)", positions)
db.commit()
start = cpu()
db.execute("INSERT INTO city_rtree SELECT geonameid, lat, lat, lon, lon FROM city")
db.commit()
rtree_fill = cpu() - start
start = cpu()
db.execute("CREATE INDEX city_by_cell ON city(cell)")
db.commit()
grid_fill = cpu() - start

random.seed(7)
boxes = []
for _, lat, lon in random.sample(positions, 3000):
    lat, lon = lat + random.uniform(-0.05, 0.05), lon + random.uniform(-0.05, 0.05)
    d_lat = 15000 / 6371008.8 * 180 / math.pi
    cos_lat = math.cos(math.radians(lat))
    d_lon = 180 if cos_lat < 1e-9 else min(180, d_lat / cos_lat)
    boxes.append((max(-90, lat - d_lat), min(90, lat + d_lat), max(-180, lon - d_lon), min(180, lon + d_lon)))
RTREE = """SELECT c.* FROM city_rtree r CROSS JOIN city c ON c.geonameid = r.id
           WHERE r.max_lat >= ? AND r.min_lat <= ? AND r.max_lon >= ? AND r.min_lon <= ?"""
GRID = "SELECT * FROM city WHERE cell BETWEEN ? AND ? AND lat BETWEEN ? AND ? AND lon BETWEEN ? AND ?"
for _ in range(3):
    start = cpu()
    rtree_rows = sum(len(db.execute(RTREE, (a, b, c, d)).fetchall()) for a, b, c, d in boxes)
    rtree_lookup = (cpu() - start) / len(boxes)
    start = cpu()
    grid_rows = 0
    for a, b, c, d in boxes:
        first, last = int((c + 180) * 10), int((d + 180) * 10)
        for row in range(int((a + 90) * 10), int((b + 90) * 10) + 1):
            grid_rows += len(db.execute(GRID, (row * 4000 + first, row * 4000 + last, a, b, c, d)).fetchall())
    grid_lookup = (cpu() - start) / len(boxes)
    print(f"{len(positions)} cities (SQLite {sqlite3.sqlite_version}): fill R*Tree {rtree_fill:.2f} s CPU, grid index {grid_fill:.2f} s; "
          f"15 km lookup R*Tree {rtree_lookup * 1e6:.0f} µs ({rtree_rows} rows), grid {grid_lookup * 1e6:.0f} µs ({grid_rows} rows)")
db.close()
shutil.rmtree(directory)
