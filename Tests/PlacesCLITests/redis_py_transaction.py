#!/usr/bin/env python3
"""redis-py's default pipeline (transaction on: MULTI … EXEC) against a running `places serve`.

Usage: redis_py_transaction.py PORT
Prints one JSON object: the replies of a good transaction, and what redis-py raised for a transaction
with a command the server refuses while queuing (EXECABORT). Driven by ServerTransactionCLITests.swift.
"""
import json
import sys

try:
    import redis
except ImportError:
    print("python3 cannot import redis (apt-get install python3-redis, or pip install redis); .ci/run installs it", file=sys.stderr)
    sys.exit(3)

client = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]), decode_responses=True, socket_timeout=30)
pipe = client.pipeline()  # transaction=True is redis-py's default
pipe.execute_command("SPOT.ADD", "Pipeline Sauna", "60.1700", "24.9400", "CATEGORY", "sauna")
pipe.execute_command("SEARCH", "maya bar", "NEAR", "60.1721", "24.9450")
pipe.ping()
good = pipe.execute()

bad = client.pipeline()
bad.ping()
bad.execute_command("NEARBY", "north", "east")
try:
    bad.execute()
    aborted = None
except redis.exceptions.ResponseError as error:
    aborted = type(error).__name__ + ": " + str(error)

print(json.dumps({"replies": good, "aborted": aborted, "after": client.ping()}))
