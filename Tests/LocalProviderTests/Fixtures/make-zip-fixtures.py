#!/usr/bin/env python3
"""Writes the GeoNames zip fixtures the importer tests read, with Python's own zipfile module (an
implementation independent of ours and of ZIPFoundation):

  geonames-helsinki-area-descriptor.zip  written to a stream that cannot seek, so every entry's sizes and
                                          CRC follow its data in a data descriptor (flag bit 3) and the local
                                          header says 0: what zip tools that stream write
  geonames-helsinki-area-zip64.zip       the dump entry with zip64 extra fields (force_zip64), as archives
                                          over 4 GiB (allCountries-sized) carry them

Each holds a readme first, then the dump (deflated), like the zips geonames.org serves.

    python3 Tests/LocalProviderTests/Fixtures/make-zip-fixtures.py
"""
import io
import os
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
README = b"GeoNames extract for tests: Helsinki and its neighbours.\n"


class Unseekable(io.RawIOBase):
    """A write-only stream without seek or tell, so zipfile streams entries with data descriptors."""

    def __init__(self, sink):
        self.sink = sink

    def writable(self):
        return True

    def write(self, data):
        self.sink.write(data)
        return len(data)


def main():
    with open(os.path.join(HERE, "geonames-helsinki-area.txt"), "rb") as f:
        dump = f.read()

    sink = io.BytesIO()
    with zipfile.ZipFile(Unseekable(sink), "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in (("readme.txt", README), ("geonames-helsinki-area.txt", dump)):
            info = zipfile.ZipInfo(name, date_time=(2026, 11, 22, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w") as entry:
                entry.write(data)
    with open(os.path.join(HERE, "geonames-helsinki-area-descriptor.zip"), "wb") as f:
        f.write(sink.getvalue())

    with zipfile.ZipFile(os.path.join(HERE, "geonames-helsinki-area-zip64.zip"), "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("readme.txt", date_time=(2026, 11, 22, 0, 0, 0)), README)
        info = zipfile.ZipInfo("geonames-helsinki-area.txt", date_time=(2026, 11, 22, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as entry:
            entry.write(dump)


if __name__ == "__main__":
    main()
