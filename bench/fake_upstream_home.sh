# Sourced by the bench scripts that run `places` against bench/fake_upstreams.py on 127.0.0.1 (nothing leaves
# the machine): a free port, waiting for a server, and a home's config.toml pointing the paid providers at the fake.

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Waits (at most 30 s) for an HTTP URL to answer, or for a RESP server on a port to answer PING.
wait_for() {  # url | port
    for _ in $(seq 1 300); do
        case $1 in
            http*) curl -sf "$1" >/dev/null 2>&1 && return 0 ;;
            *) [ "$(redis-cli -h 127.0.0.1 -p "$1" PING 2>/dev/null)" = PONG ] && return 0 ;;
        esac
        sleep 0.1
    done
    echo "$0: nothing answered at $1" >&2
    exit 1
}

# Writes a config.toml: Yelp and Google on the fake at 127.0.0.1:PORT, the other providers off, the chain
# local → Yelp → Google, $1 a day in Helsinki's days, and no free tier, so every Google call shows its price.
write_fake_config() {  # path port
    cat >"$1" <<TOML
[providers.google]
base_url = "http://127.0.0.1:$2"
[providers.yelp]
base_url = "http://127.0.0.1:$2"
[providers.nominatim]
enabled = false
[providers.foursquare]
enabled = false

[pipeline]
chain = ["local", "yelp", "google"]

[budget]
time_zone = "Europe/Helsinki"
daily_usd = 1.0
[budget.free_calls_per_month]
"google.search.pro" = 0
"google.search.enterprise" = 0
TOML
}
