#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the tests and benchmarks: initdb into a temporary directory as an
# unprivileged user, listening on 127.0.0.1 on a free port, with TLS offered (a self-signed certificate) so
# sslmode=require can be tested. `.ci/run` uses it; a developer can too:
#
#   eval "$(bash Tests/PostgresTestCluster/cluster.sh start)"   # exports PLACES_TEST_DATABASE_URL and PLACES_TEST_CLUSTER_DIR
#   swift test --filter Postgres
#   bash Tests/PostgresTestCluster/cluster.sh stop "$PLACES_TEST_CLUSTER_DIR"
#
# Other verbs (used by the tests that stop the database under load): `pause DIR` stops the server but keeps
# its data; `resume DIR` starts it again on the same port.
# PostgreSQL refuses to run as root: as root the cluster runs as `postgres` (created by Debian's package), or as
# a system user `places-pg` created here when that is missing.
set -euo pipefail

# Closes every descriptor this script inherited beyond stdin, stdout and stderr, before anything can pass one on to
# the postmaster, which outlives the script. Foundation's Process on Linux learns that its child exited when the
# child's end of a socket it hands down is closed: a postmaster holding that socket would make a Swift test's
# waitUntilExit() wait as long as the server runs. A pipe the caller reads to its end would hang the same way.
# (255 is the script itself, which bash keeps close-on-exec.)
close_inherited_descriptors() {
    local self=$BASHPID fd
    for fd in $(ls "/proc/$self/fd" 2>/dev/null); do
        case $fd in
            0 | 1 | 2 | 255) ;;
            *) eval "exec $fd>&-" 2>/dev/null || true ;;
        esac
    done
}
close_inherited_descriptors

find_bin() {
    local candidate
    for candidate in "${PG_BIN:-}" /usr/lib/postgresql/15/bin /usr/local/bin "$(pg_config --bindir 2>/dev/null || true)"; do
        if [ -n "$candidate" ] && [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then
            echo "$candidate"; return 0
        fi
    done
    echo "cluster.sh: no initdb/pg_ctl found (install postgresql-15, or set PG_BIN)" >&2
    return 1
}

# Runs a command as the cluster's owner.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        su -s /bin/sh "$owner" -c "$*"
    else
        sh -c "$*"
    fi
}

pick_owner() {
    if [ "$(id -u)" -ne 0 ]; then owner=$(id -un); return; fi
    if id postgres >/dev/null 2>&1; then owner=postgres; return; fi
    id places-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin places-pg
    owner=places-pg
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null \
        || echo $(( 20000 + RANDOM % 20000 ))
}

start_server() {
    local dir=$1 port=$2
    as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/log' -w -t 60 -o \"-p $port -k $dir -c listen_addresses=127.0.0.1\" start" >/dev/null
}

start() {
    bin=$(find_bin)
    pick_owner
    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/places-pg.XXXXXX")
    chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown "$owner" "$dir"
    as_owner "'$bin/initdb' -D '$dir/data' -A trust -U places --no-sync" >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    {
        echo "fsync = off"                      # a throwaway cluster: speed over durability
        echo "synchronous_commit = off"
        echo "full_page_writes = off"
        echo "max_connections = 300"
        echo "shared_buffers = 128MB"
    } >>"$dir/data/postgresql.conf"
    if command -v openssl >/dev/null 2>&1 \
        && openssl req -new -x509 -days 2 -nodes -subj /CN=127.0.0.1 -keyout "$dir/data/server.key" \
            -out "$dir/data/server.crt" >/dev/null 2>&1; then
        [ "$(id -u)" -eq 0 ] && chown "$owner" "$dir/data/server.key" "$dir/data/server.crt"
        chmod 600 "$dir/data/server.key"
        echo "ssl = on" >>"$dir/data/postgresql.conf"
    fi
    local port attempt
    for attempt in 1 2 3 4 5; do
        port=$(free_port)
        if start_server "$dir" "$port" 2>>"$dir/start.err"; then
            echo "$port" >"$dir/port"
            echo "$bin" >"$dir/bin"
            echo "$owner" >"$dir/owner"
            echo "export PLACES_TEST_DATABASE_URL='postgres://places@127.0.0.1:$port/postgres'"
            echo "export PLACES_TEST_CLUSTER_DIR='$dir'"
            return 0
        fi
    done
    echo "cluster.sh: PostgreSQL did not start; its log:" >&2
    cat "$dir/log" "$dir/start.err" >&2 || true
    exit 1
}

load() {
    local dir=${1:?give the cluster directory (PLACES_TEST_CLUSTER_DIR)}
    [ -f "$dir/port" ] || { echo "cluster.sh: $dir is not a cluster started by this script" >&2; exit 1; }
    bin=$(cat "$dir/bin"); owner=$(cat "$dir/owner"); port=$(cat "$dir/port")
}

stop() {
    local dir=${1:?give the cluster directory (PLACES_TEST_CLUSTER_DIR)}
    [ -d "$dir" ] || return 0
    if [ -f "$dir/port" ]; then
        load "$dir"
        as_owner "'$bin/pg_ctl' -D '$dir/data' -m immediate -w stop" >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

pause() {
    load "$1"
    as_owner "'$bin/pg_ctl' -D '$1/data' -m fast -w stop" >/dev/null
}

resume() {
    load "$1"
    start_server "$1" "$port"
}

case "${1:-}" in
    start) start ;;
    stop) stop "${2:-}" ;;
    pause) pause "${2:-}" ;;
    resume) resume "${2:-}" ;;
    *) echo "usage: cluster.sh start | stop DIR | pause DIR | resume DIR" >&2; exit 2 ;;
esac
