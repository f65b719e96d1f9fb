#!/usr/bin/env python3
"""Lists the `places` commands that lack an end-to-end test or examples in their --help, and the server
commands that no test sends through a real socket.

  python3 Tests/command-coverage.py [PATH/TO/places]     # default: .build/debug/places

CLI: walks `places --help` down every SUBCOMMANDS list; a leaf command counts as tested when a file in
Tests/PlacesCLITests (whose tests run the built binary) passes its words as consecutive string literals
(`run("spots", "add", …` or `["spots", "add"`), or, for a one-word command, `run("search"` /
`arguments: ["search"`. Its help must say "Example" and show a line starting `places <command>`.

Server: the command names of the table (ServerCommand.swift's built-ins, PlacesCommands.swift's application
commands). An application command counts when a test with the real application behind a socket sends it:
the CLI tests that start `places serve`, and PlacesServerTests files that open `.places(…)` (the real
command table). A built-in (PING, AUTH, …) counts in any test file that talks to a server over a socket.
A name counts as sent when it appears as a word in a string literal (`"SPOT.ADD Café 60.17 24.94"`,
`["SPOT.ADD", …]`). The check is textual: it finds a command nobody mentions, not a weak test.

Exit status 1 when anything is missing, with one line per gap.
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BINARY = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build/debug/places"


def help_text(path):
    result = subprocess.run([str(BINARY), *path, "--help"], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        sys.exit(f"places {' '.join(path)} --help failed: {result.stderr.strip()}")
    return result.stdout


def subcommands(text):
    start = text.find("SUBCOMMANDS:\n")
    if start < 0:
        return []
    names = []
    for line in text[start + len("SUBCOMMANDS:\n"):].splitlines():
        # Names are indented by two spaces; wrapped abstracts by more.
        if line.startswith("  ") and not line.startswith("   "):
            name = line.split()[0]
            if name not in ("See", "help"):
                names.append(name)
    return names


def cli_gaps():
    sources = "\n".join(p.read_text() for p in sorted((ROOT / "Tests/PlacesCLITests").glob("*.swift")))
    gaps, leaves, pending = [], [], [[]]
    while pending:
        path = pending.pop()
        text = help_text(path)
        children = subcommands(text)
        name = " ".join(["places", *path])
        if path:
            has_example = any(line.strip() == name or line.strip().startswith(name + " ") for line in text.splitlines())
            if "Example" not in text or not has_example:
                gaps.append(f"CLI   {name}: --help has no example that runs it")
        if not children and path:
            leaves.append(path)
        pending += [path + [child] for child in children]
    for path in sorted(leaves):
        words = r'"\s*,\s*"'.join(re.escape(word) for word in path)
        pattern = rf'(run\(|arguments:\s*\[|\[)\s*"{words}"' if len(path) == 1 else rf'"{words}"'
        if not re.search(pattern, sources):
            gaps.append(f"CLI   places {' '.join(path)}: no test in Tests/PlacesCLITests runs it through the binary")
    return leaves, gaps


def server_commands():
    table = (ROOT / "Sources/PlacesServer/Commands/ServerCommand.swift").read_text()
    application = (ROOT / "Sources/PlacesServer/Commands/PlacesCommands.swift").read_text()
    builtins = re.findall(r'ServerCommandEntry\(name: "([A-Z.]+)"', table)
    places = re.findall(r'\.core\(app, "([A-Z.]+)"', application)
    return builtins, places


def sent_commands(text):
    """Every upper-case word that starts a string literal or follows a space inside one."""
    words = set()
    for literal in re.findall(r'"((?:[^"\\\n]|\\.)*)"', text):
        for word in re.findall(r'(?:^|(?<=\s)|(?<=\\r\\n))([A-Z][A-Z.]+)\b', literal):
            words.add(word)
    return words


def server_gaps():
    builtins, places = server_commands()
    socket_files, real_files = [], []
    for path in sorted((ROOT / "Tests").rglob("*.swift")):
        text = path.read_text()
        starts_binary = "RunningServer" in text or re.search(r'"serve"', text)
        real_table = re.search(r"commands:\s*\.places\(", text)
        over_socket = starts_binary or "TestServer.start" in text or "LoopbackSocket" in text
        if over_socket and "struct TestServer" not in text:
            socket_files.append(path)
            if starts_binary or real_table:
                real_files.append(path)
    socket_words = set().union(*(sent_commands(p.read_text()) for p in socket_files))
    real_words = set().union(*(sent_commands(p.read_text()) for p in real_files))
    gaps = [f"SERVER {name}: no test sends it through a socket" for name in builtins if name not in socket_words]
    gaps += [f"SERVER {name}: no test sends it through a socket with the real application" for name in places
             if name not in real_words]
    return builtins + places, gaps


def main():
    leaves, cli = cli_gaps()
    commands, server = server_gaps()
    for line in cli + server:
        print(line)
    print(f"{len(leaves)} CLI commands, {len(commands)} server commands; {len(cli) + len(server)} gaps", file=sys.stderr)
    return 1 if cli or server else 0


if __name__ == "__main__":
    sys.exit(main())
