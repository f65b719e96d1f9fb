#!/usr/bin/env bash
# Installs the places(1) manual page into PREFIX/share/man/man1 (default /usr/local). The page is generated from
# the commands themselves by swift-argument-parser's generate-manual tool, the tool behind its GenerateManual
# plugin (`swift package plugin generate-manual` makes the same page, after building every product in release).
#
#   bash scripts/install-man.sh                  # /usr/local/share/man/man1/places.1 (may need sudo)
#   bash scripts/install-man.sh ~/.local         # ~/.local/share/man/man1/places.1
#   PLACES_BIN=/path/to/places bash scripts/install-man.sh PREFIX    # the page of an already built binary
#   CONFIGURATION=debug bash scripts/install-man.sh PREFIX           # build in debug mode (default: release)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-/usr/local}
configuration=${CONFIGURATION:-release}
if [ -z "${PLACES_BIN:-}" ]; then
    swift build -c "$configuration" --product places >&2
    PLACES_BIN="$(swift build -c "$configuration" --show-bin-path)/places"
fi
# The tool gets a build folder of its own: it needs only ArgumentParser, and a `swift test` that runs this script
# holds the lock on .build for as long as the tests run.
tool_scratch=.build-man
swift build -c "$configuration" --product generate-manual --scratch-path "$tool_scratch" >&2
tool="$(swift build -c "$configuration" --scratch-path "$tool_scratch" --show-bin-path)/generate-manual"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$tool" "$PLACES_BIN" --output-directory "$out"
install -d "$prefix/share/man/man1"
install -m 644 "$out/places.1" "$prefix/share/man/man1/places.1"
echo "installed $prefix/share/man/man1/places.1 (man places; or man -l $prefix/share/man/man1/places.1)"
