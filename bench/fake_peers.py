#!/usr/bin/env python3
"""A stand-in for `peers.py --serve` (same protocol, made-up seconds), to check bench/run.js's
peer client without a GPU, torch or CuPy. Use it as the interpreter; it ignores its arguments:

  BENCH_PYTHON=bench/fake_peers.py FAKE_PEERS=MODE node bench/run.js --no-cold --filter=copy,add

With the CPU driver double (NODECUDA_LIBCUDA=build-fake/Release/libfakecuda.so) no GPU is needed.
torch answers every case with seconds = 1 ms × (id + 1) × (1, 1.1, 1.2 for answers 0, 1, 2 mod 3)
(events: half that; with --rounds=3 each row shows the 1.1 one) and a note on case 0; cupy reports
itself unavailable. MODE (FAKE_PEERS, default ok):
  ok        answers every request
  noready   never prints its ready line (BENCH_PEER_START_TIMEOUT_S)
  hang      answers FAKE_PEERS_AFTER requests (default 1), then never answers (BENCH_PEER_TIMEOUT_S)
  crash     answers FAKE_PEERS_AFTER requests, then exits with status 3 mid-request
  noise     prints lines that are not JSON objects on stdout before each answer (they are ignored)
  error     answers every request with {"error": ...} (a request peers.py could not read)
FAKE_PEERS_LOG=FILE appends one line per request: "request <case ids> <time.time()>".
"""

import json
import os
import sys
import time

MODE = os.environ.get("FAKE_PEERS", "ok")
AFTER = int(os.environ.get("FAKE_PEERS_AFTER", "1"))
LOG = os.environ.get("FAKE_PEERS_LOG")


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def report(request, answered):
    results = {}
    for case in request["cases"]:
        k = (int(case["id"]) + 1) * (1 + 0.1 * (answered % 3))
        results[case["id"]] = {"seconds": k * 1e-3, "eventSeconds": k * 0.5e-3}
        if case["id"] == "0":
            results[case["id"]]["note"] = "a fake op"
    return {"torch": {"available": True, "version": "0.0-fake", "results": results},
            "cupy": {"available": False, "reason": "fake: no cupy", "results": {}}}


def main():
    print("fake_peers: starting", file=sys.stderr)
    if MODE == "noready":
        time.sleep(3600)
    say({"ready": True, "torch": {"available": True, "version": "0.0-fake"},
         "cupy": {"available": False, "reason": "fake: no cupy"}})
    answered = 0
    for line in iter(sys.stdin.readline, ""):
        request = json.loads(line)
        if LOG:
            with open(LOG, "a") as f:
                f.write(f"request {','.join(c['id'] for c in request['cases'])} {time.time()}\n")
        if answered >= AFTER and MODE == "hang":
            time.sleep(3600)
        if answered >= AFTER and MODE == "crash":
            print("fake_peers: crashing on purpose", file=sys.stderr)
            sys.exit(3)
        if MODE == "noise":
            sys.stdout.write("not json\n[1, 2]\n\n")
        say({"error": "fake: cannot read the request"} if MODE == "error" else report(request, answered))
        answered += 1
    print("fake_peers: end of stdin", file=sys.stderr)


if __name__ == "__main__":
    main()
