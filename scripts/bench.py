#!/usr/bin/env python3
"""Benchmark of the full built-in run: wall time and peak memory of `a2a-tck` over repeated runs.

    python3 scripts/bench.py                 # 20 runs, prints the figures, writes reports/bench/latest.json
    python3 scripts/bench.py --runs 50 --baseline reports/bench/before.json

It builds the release binary first, then runs `a2a-tck --quiet` (the built-in reference agent, all
checks) as a child process each time, timing it and reading its peak resident set size from the
kernel's rusage. Goals (issue 2): median wall < 0.5 s, peak RSS < 30 MB on a 2-core machine.

It then starts a local flooding agent (a card with one JSON-RPC interface whose
SendStreamingMessage answers with SSE events as fast as the socket takes them, endlessly) and
runs the kit against it the same way: its time and peak memory show what the kit's caps bound.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, "target", "release", "a2a-tck")


class Flood(BaseHTTPRequestHandler):
    """A card with one JSON-RPC 1.0 interface; streams flood, everything else is TaskNotFound."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, value):
        body = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = f"http://127.0.0.1:{self.server.server_address[1]}/rpc"
        self.send_json({
            "name": "flood", "description": "floods its streams", "version": "1",
            "supportedInterfaces": [{"protocolBinding": "JSONRPC", "protocolVersion": "1.0", "url": url}],
            "capabilities": {"streaming": True},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "echo", "name": "echo", "description": "echoes", "tags": ["echo"]}],
        })

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        rid = request.get("id")
        if request.get("method") != "SendStreamingMessage":
            self.send_json({"jsonrpc": "2.0", "id": rid, "error": {"code": -32001, "message": "Task not found"}})
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        event = {"jsonrpc": "2.0", "id": rid, "result": {"statusUpdate": {
            "taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}}
        batch = (("data: " + json.dumps(event) + "\n\n") * 64).encode()
        try:
            while True:
                self.wfile.write(batch)
        except OSError:
            self.close_connection = True


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # the kit hangs up on the flood: a reset connection is expected


def start_flood():
    server = QuietServer(("127.0.0.1", 0), Flood)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run_once(extra, ok=(0,)):
    start = time.perf_counter()
    child = subprocess.Popen([BINARY, "--quiet", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        sys.exit(f"a2a-tck exited {code}: {child.stderr.read().decode(errors='replace')}")
    return wall, usage.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux


def measure(extra, runs, ok=(0,)):
    run_once(extra, ok)  # warm-up: page cache, first-run effects
    walls, rss = [], []
    for _ in range(runs):
        wall, peak = run_once(extra, ok)
        walls.append(wall)
        rss.append(peak)
    walls.sort()
    return {
        "runs": runs,
        "wall_s": {
            "median": statistics.median(walls),
            "p90": walls[int(0.9 * (len(walls) - 1))],
            "min": walls[0],
            "max": walls[-1],
        },
        "peak_rss_mb": {"max": max(rss), "median": statistics.median(rss)},
    }


def line(name, result):
    return (f"{name}, {result['runs']} runs: median {result['wall_s']['median'] * 1000:.0f} ms "
            f"(p90 {result['wall_s']['p90'] * 1000:.0f} ms, min {result['wall_s']['min'] * 1000:.0f} ms), "
            f"peak RSS {result['peak_rss_mb']['max']:.1f} MB")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--flood-runs", type=int, default=5, help="runs against the flooding agent")
    parser.add_argument("--baseline", help="an earlier result file to compare with")
    parser.add_argument("--out", default=os.path.join(ROOT, "reports", "bench", "latest.json"))
    parser.add_argument("extra", nargs="*", help="extra arguments for a2a-tck")
    args = parser.parse_args()

    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "a2a-tck"], cwd=ROOT, check=True)
    result = measure(args.extra, args.runs)
    flood_server = start_flood()
    flood_target = f"http://127.0.0.1:{flood_server.server_address[1]}"
    # A flooding agent is not conformant: exit 1 is the expected answer.
    result["flood"] = measure(["--target", flood_target], args.flood_runs, ok=(1,))
    flood_server.shutdown()
    result["machine"] = {"cpus": os.cpu_count(), "platform": platform.platform()}
    result["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print(line("full builtin run", result))
    print(line("against a flooding agent", result["flood"]))
    print(f"goals: median < 500 ms: {'met' if result['wall_s']['median'] < 0.5 else 'MISSED'}; "
          f"peak RSS < 30 MB: {'met' if result['peak_rss_mb']['max'] < 30 else 'MISSED'}; "
          f"flood peak RSS < 64 MB: {'met' if result['flood']['peak_rss_mb']['max'] < 64 else 'MISSED'}")
    if args.baseline:
        with open(args.baseline) as f:
            base = json.load(f)
        dw = result["wall_s"]["median"] / base["wall_s"]["median"] - 1
        dm = result["peak_rss_mb"]["max"] / base["peak_rss_mb"]["max"] - 1
        print(f"against {args.baseline}: median wall {dw:+.1%}, peak RSS {dm:+.1%}")
    print(f"written to {os.path.relpath(args.out, ROOT)}")


if __name__ == "__main__":
    main()
