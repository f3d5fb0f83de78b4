#!/usr/bin/env python3
"""Benchmark of `a2a-tck survey` over a fleet of live agents on loopback: wall time, agents and
requests per second, and the survey process's peak memory as the fleet grows.

    python3 scripts/survey_bench.py                         # 300 agents, then 4 shards merged
    python3 scripts/survey_bench.py --sizes 50,150,300      # one survey per size, one table
    python3 scripts/survey_bench.py --agents 500 --no-shards
    python3 scripts/survey_bench.py --kit /tmp/old/a2a-tck --agent /tmp/old/a2a-reference-agent --no-build

It builds the release binaries (unless --no-build), then starts the fleet of the largest size,
every agent on its own 127.0.0.1 port (ephemeral), --start-jobs of them starting at once. Out of
every 20 agents:

  17  reference agents (`a2a-reference-agent`, a process each), the first clean and each of the
      others breaking one rule, cycling through `a2a-reference-agent --list-faults`
   1  dead: a port bound and never listened on (held until the end), every connection refused
   1  slow: a reference agent with --delay-ms (default 200): every answer that late
   1  hostile, in turn: `silent` accepts and never answers, `garbage` answers bytes that are
      not HTTP, `hangup` resets every connection at once (threads of this script, one
      selector loop for all of them)

A fleet of N agents is the first N of that list, so every size has the same mix. Before each
survey the reference agents are started again on their ports, so that no survey meets what an
earlier one left in an agent (an agent that reuses task ids answers differently). For each size
it writes a survey file (`deadline` --deadline seconds per agent; `select` --select globs, none
by default: every check) and runs `a2a-tck survey FILE --out DIR --agents --at-once` under
/usr/bin/time -v (its "Maximum resident set size"; without it, the kernel's VmHWM of the process,
read from /proc while it runs), sampling its VmRSS as agents finish, and reads the index and
every report. It measures:

  wall time        of the survey process, and agents per second (agents / wall)
  requests         counted from the reports, since the kit counts no requests: per report, the
                   exchanges its latency figures timed (every answer that succeeded: a 2xx, no
                   JSON-RPC error, gRPC status 0, and every stream's first event) plus the
                   exchanges kept as evidence of the results that did not pass (refusals,
                   errors, no answer). It misses the refusals of passing checks and may count
                   twice a successful exchange of a failing check; the hostile servers count
                   the connections they took, exactly, beside it
  peak RSS         of the survey process, and its VmRSS when a quarter, half, three quarters
                   of the agents had finished: flat when each agent's state is released once
                   its report is written
  over budget      every entry that took longer than its deadline and the stop's grace (2 s)
                   plus --slack seconds: a defect if any

Then, at the largest size (unless --no-shards), it runs the same survey as --shards N separate
processes (`--shard I/N`, --shards-at-once at a time, each surveying --at-once / --shards-at-once
agents at once: the machine carries the load of the one process) and `a2a-tck merge`, times
them, and checks
that the merged index equals the one-process index but for the times and the reports' digests
(and, for an agent over its budget, how far its run got before the deadline; for an agent
breaking a rule in UNSTABLE, `reuse-task-id`, its counts: which of the kit's concurrent checks
meets which task depends on their order).

The figures go to reports/bench/survey-latest.json (--out). Every process it starts is stopped
when it ends. Exits 1 when a survey exits other than 0 or 1, an agent cost more than its budget,
or the merged index differs.
"""

import argparse
import concurrent.futures
import json
import os
import platform
import re
import selectors
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
TIME = "/usr/bin/time"
# Faults whose results depend on the order the kit's concurrent checks reach the agent (an
# agent that gives every task the same id mixes the checks' tasks): two surveys of the same
# agent agree on its outcome, not on its counts.
UNSTABLE = {"reuse-task-id"}
GRACE = 2.0  # a2a_tck::stop::GRACE: what checks in flight get once the deadline has passed
HOSTILE = ("silent", "garbage", "hangup")
# Out of every 20 agents: positions of the dead, slow and hostile ones; the rest are reference
# agents.
DEAD, SLOW, HOSTILE_AT = 6, 13, 19


def kinds(n):
    """The fleet's first n agents: (name, kind, fault) with kind reference, dead, slow or one of
    HOSTILE, fault the rule a reference agent breaks (None: clean)."""
    out = []
    references = hostiles = 0
    for i in range(n):
        at = i % 20
        if at == DEAD:
            out.append((f"dead-{i:04}", "dead", None))
        elif at == SLOW:
            out.append((f"slow-{i:04}", "slow", None))
        elif at == HOSTILE_AT:
            kind = HOSTILE[hostiles % len(HOSTILE)]
            hostiles += 1
            out.append((f"{kind}-{i:04}", kind, None))
        else:
            out.append((f"ref-{i:04}", "reference", references))
            references += 1
    return out


class Hostile:
    """Listening sockets that misbehave, served by one selector loop on a thread: `silent`
    reads and never answers, `garbage` answers bytes that are not HTTP and closes, `hangup`
    closes at once. Counts the connections each kind took."""

    GARBAGE = b"\x00\xff\xfeNOT HTTP \x1b[2J" + bytes(range(256)) * 4 + b"\r\n\r\n"

    def __init__(self):
        self.selector = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.connections = {kind: 0 for kind in HOSTILE}
        self.sockets = []
        self.stopping = False
        wake_r, self.wake_w = socket.socketpair()
        self.selector.register(wake_r, selectors.EVENT_READ, ("wake", None))
        self.sockets.append(wake_r)
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def listen(self, kind):
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        server.setblocking(False)
        with self.lock:
            self.sockets.append(server)
            self.selector.register(server, selectors.EVENT_READ, ("listen", kind))
        self.wake_w.send(b"x")
        return f"http://127.0.0.1:{server.getsockname()[1]}"

    def loop(self):
        while not self.stopping:
            for key, _ in self.selector.select(timeout=1.0):
                role, kind = key.data
                sock = key.fileobj
                try:
                    if role == "wake":
                        sock.recv(4096)
                    elif role == "listen":
                        conn, _ = sock.accept()
                        conn.setblocking(False)
                        self.connections[kind] += 1
                        if kind == "hangup":
                            # A reset, every time (a plain close races the kit's write: a
                            # reset or an early end, two different errors from run to run).
                            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                            conn.close()
                        else:
                            self.selector.register(conn, selectors.EVENT_READ, ("conn", kind))
                    else:
                        data = sock.recv(65536)
                        if not data:  # the kit hung up
                            self.selector.unregister(sock)
                            sock.close()
                        elif kind == "garbage":
                            self.selector.unregister(sock)
                            try:
                                sock.sendall(self.GARBAGE)
                            except OSError:
                                pass
                            sock.close()
                        # silent: what it reads is dropped, nothing is ever sent
                except (OSError, KeyError, ValueError):
                    try:
                        self.selector.unregister(sock)
                    except (KeyError, ValueError):
                        pass
                    sock.close()

    def close(self):
        self.stopping = True
        self.wake_w.send(b"x")
        self.thread.join(timeout=5)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()
        self.wake_w.close()


def dead_port():
    """A port bound and never listened on, held until the fleet stops: a connection to it is
    refused, and no other socket (an agent started later) can take it."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    return held, f"http://127.0.0.1:{held.getsockname()[1]}"


def start_agent(binary, extra, port=0):
    """A reference agent on `port` (0: an ephemeral one): (process, base URL)."""
    agent = subprocess.Popen(
        [binary, "--port", str(port), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    line = agent.stdout.readline().strip()  # "listening on http://127.0.0.1:PORT"
    if not line.startswith("listening on "):
        agent.kill()
        agent.wait()
        raise RuntimeError(f"the reference agent did not start: {line!r}")
    agent.stdout.close()  # the rest of its banner is written at once, before the line is read
    return agent, line.removeprefix("listening on ")


def rss_kb(pid, field="VmRSS"):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class Fleet:
    """The agents, started; `stop` ends every process and socket it started."""

    def __init__(self, args, n, faults):
        self.processes = {}  # name -> process
        self.extra = {}  # name -> the agent's arguments
        self.held = []  # the dead ports' sockets
        self.start_jobs = args.start_jobs
        self.binary = args.agent
        self.hostile = Hostile()
        self.urls = {}
        self.kinds = {}
        started = time.perf_counter()
        jobs = []
        for name, kind, reference in kinds(n):
            self.kinds[name] = kind
            if kind == "dead":
                held, self.urls[name] = dead_port()
                self.held.append(held)
            elif kind in HOSTILE:
                self.urls[name] = self.hostile.listen(kind)
            elif kind == "slow":
                self.extra[name] = ["--delay-ms", str(args.delay_ms)]
            else:
                fault = faults[reference % len(faults)]
                self.kinds[name] = fault or "clean"
                self.extra[name] = [] if fault is None else ["--fault", fault]
        self.start({name: 0 for name in self.extra})
        self.start_s = time.perf_counter() - started
        rss = [rss_kb(p.pid) or 0 for p in self.processes.values()]
        self.processes_rss_mb = sum(rss) / 1024
        self.process_rss_mb = (sum(rss) / len(rss) / 1024) if rss else 0.0

    def start(self, ports):
        """Starts the reference agents named in `ports` (name -> port, 0: any)."""
        try:
            with concurrent.futures.ThreadPoolExecutor(self.start_jobs) as pool:
                futures = {pool.submit(start_agent, self.binary, self.extra[name], port): name
                           for name, port in ports.items()}
                for future in concurrent.futures.as_completed(futures):
                    process, url = future.result()
                    self.processes[futures[future]] = process
                    self.urls[futures[future]] = url
        except BaseException:
            self.stop()
            raise

    def end_processes(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def restart(self):
        """Every reference agent started again on its port: each survey meets agents that
        remember nothing of the one before (a faulty agent's answers may depend on what it
        kept, e.g. one that reuses task ids)."""
        ports = {name: int(self.urls[name].rsplit(":", 1)[1]) for name in self.processes}
        self.end_processes()
        self.processes = {}
        self.start(ports)

    def stop(self):
        self.end_processes()
        for held in self.held:
            held.close()
        self.hostile.close()


def survey_file(path, fleet, n, args):
    lines = ["[defaults]", f"deadline = {args.deadline}"]
    if args.select:
        lines.append("select = [" + ", ".join(json.dumps(s) for s in args.select) + "]")
    for name, _, _ in kinds(n):
        lines += ["", "[[agent]]", f"name = {json.dumps(name)}", f"target = {json.dumps(fleet.urls[name])}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run_survey(args, file, out, extra=(), at_once=None):
    """Runs `a2a-tck survey`; its wall time, peak RSS (MB), VmRSS samples by agents done, exit
    status and stderr."""
    command = [args.kit, "survey", file, "--out", out, "--agents", str(at_once or args.at_once), *extra]
    time_out = None
    if os.path.exists(TIME):
        time_out = out + ".time"
        command = [TIME, "-v", "-o", time_out, *command]
    os.makedirs(out, exist_ok=True)
    log = open(out + ".log", "w")
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    kit_pid = child.pid
    if time_out:
        # The kit is /usr/bin/time's only child.
        for _ in range(200):
            try:
                with open(f"/proc/{child.pid}/task/{child.pid}/children") as f:
                    pids = f.read().split()
            except OSError:
                pids = []
            if pids:
                kit_pid = int(pids[0])
                break
            time.sleep(0.01)
    done = [0]
    samples = []  # (agents done, VmRSS kB)
    hwm = [0]

    def read_stderr():
        for line in child.stderr:
            log.write(line)
            m = re.match(r"\[(\d+)/(\d+)\]", line)
            if m:
                done[0] = int(m.group(1))

    def poll():
        while child.poll() is None:
            rss = rss_kb(kit_pid)
            peak = rss_kb(kit_pid, "VmHWM")
            if rss is not None:
                samples.append((done[0], rss))
            if peak is not None:
                hwm[0] = max(hwm[0], peak)
            time.sleep(0.2)

    reader = threading.Thread(target=read_stderr, daemon=True)
    poller = threading.Thread(target=poll, daemon=True)
    reader.start()
    poller.start()
    code = child.wait()
    wall = time.perf_counter() - started
    reader.join()
    poller.join()
    log.close()
    peak_kb = hwm[0]
    if time_out:
        with open(time_out) as f:
            text = f.read()
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
        if m:
            peak_kb = int(m.group(1))
        m = re.search(r"Exit status: (\d+)", text)
        if m:
            code = int(m.group(1))
    with open(out + ".log") as f:
        stderr = f.read()
    return {"wall_s": wall, "peak_rss_mb": peak_kb / 1024, "samples": samples, "exit": code, "stderr": stderr}


def requests_of(report):
    """The requests a report shows (see the module's doc): timed successes plus the evidence of
    results that did not pass."""
    n = 0
    for op in report.get("latency", []):
        for key in ("answer", "first_event"):
            if op.get(key):
                n += op[key]["count"]
    for result in report.get("results", []):
        if result.get("status") != "PASS":
            n += len(result.get("evidence", []))
    return n


def read_out(out, fleet, deadline, slack):
    with open(os.path.join(out, "index.json")) as f:
        index = json.load(f)
    requests = 0
    over = []
    by_kind = {}
    for entry in index["agents"]:
        if entry.get("report"):
            with open(os.path.join(out, entry["report"])) as f:
                requests += requests_of(json.load(f))
        seconds = entry["duration_ms"] / 1000
        if seconds > deadline + GRACE + slack:
            over.append(f"{entry['name']} ({fleet.kinds[entry['name']]}): {seconds:.1f} s, "
                        f"{entry['outcome']}{': ' + entry['error'] if entry.get('error') else ''}")
        kind = fleet.kinds[entry["name"]]
        kind = kind if kind in ("dead", "slow", "clean") + HOSTILE else "fault"
        k = by_kind.setdefault(kind, {"agents": 0, "outcomes": {}, "max_s": 0.0, "total_s": 0.0})
        k["agents"] += 1
        k["outcomes"][entry["outcome"]] = k["outcomes"].get(entry["outcome"], 0) + 1
        k["max_s"] = max(k["max_s"], seconds)
        k["total_s"] += seconds
    return index, requests, over, by_kind


def at_fractions(samples, n):
    """VmRSS (MB) of the survey when a quarter, a half, three quarters of the agents were done."""
    out = {}
    for q in (0.25, 0.5, 0.75):
        seen = [rss for done, rss in samples if done >= q * n]
        out[str(q)] = seen[0] / 1024 if seen else None
    return out


def comparable(index, fleet):
    """What two surveys of the same fleet must agree on: all but times and reports' digests,
    and, for an agent whose deadline cut its run or of a fault in UNSTABLE, how far the run got
    and what it counted."""
    out = {}
    for entry in index["agents"]:
        e = {k: v for k, v in entry.items() if k not in ("started_at", "finished_at", "duration_ms", "report_sha256")}
        if entry["outcome"] == "over-budget" or fleet.kinds[entry["name"]] in UNSTABLE:
            e = {k: e.get(k) for k in ("name", "target", "agent_sha256", "outcome", "exit_status", "report")}
        out[entry["name"]] = e
    return out


def differences(one, merged, fleet):
    a, b = comparable(one, fleet), comparable(merged, fleet)
    diffs = []
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            ea, eb = a.get(name) or {}, b.get(name) or {}
            keys = sorted(k for k in set(ea) | set(eb) if ea.get(k) != eb.get(k))
            diffs.append(f"{name}: " + "; ".join(f"{k}: {ea.get(k)!r} vs {eb.get(k)!r}" for k in keys))
    for key in ("exit_status", "outcomes"):
        if one[key] != merged[key]:
            diffs.append(f"index {key}: {one[key]!r} vs {merged[key]!r}")
    return diffs


def shards(args, file, tmp, n, fleet, one_index):
    count = args.shards
    outs = [os.path.join(tmp, f"shard-{i}") for i in range(count)]
    fleet.restart()
    # The shards running at once share the agents surveyed at once of the one process.
    at_once = max(1, args.at_once // args.shards_at_once)
    started = time.perf_counter()
    runs = [None] * count
    with concurrent.futures.ThreadPoolExecutor(args.shards_at_once) as pool:
        futures = {pool.submit(run_survey, args, file, outs[i], ["--shard", f"{i}/{count}"], at_once): i
                   for i in range(count)}
        for future in concurrent.futures.as_completed(futures):
            runs[futures[future]] = future.result()
    shards_wall = time.perf_counter() - started
    for i, run in enumerate(runs):
        if run["exit"] not in (0, 1):
            sys.exit(f"shard {i}/{count} exited {run['exit']}:\n{run['stderr'][-3000:]}")
    merged = os.path.join(tmp, "merged")
    started = time.perf_counter()
    done = subprocess.run([args.kit, "merge", *outs, "--out", merged], capture_output=True, text=True)
    merge_s = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(f"merge exited {done.returncode}: {done.stderr[-3000:]}")
    with open(os.path.join(merged, "index.json")) as f:
        merged_index = json.load(f)
    diffs = differences(one_index, merged_index, fleet)
    return {
        "shards": count,
        "at_once": args.shards_at_once,
        "agents_at_once_each": at_once,
        "agents": n,
        "wall_s": shards_wall,
        "merge_s": merge_s,
        "per_shard": [{"agents": sum(1 for line in r["stderr"].splitlines() if re.match(r"\[\d+/\d+\]", line)),
                       "wall_s": r["wall_s"], "peak_rss_mb": r["peak_rss_mb"]} for r in runs],
        "equal": not diffs,
        "differences": diffs,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", type=int, default=300, help="the fleet's size (one survey)")
    parser.add_argument("--sizes", help="several fleet sizes, comma-separated (e.g. 50,150,300)")
    parser.add_argument("--deadline", type=float, default=30, help="each agent's budget, seconds")
    parser.add_argument("--select", action="append", default=[], help="a check glob (repeatable); none: all")
    parser.add_argument("--at-once", type=int, default=8, help="the survey's --agents: agents surveyed at once")
    parser.add_argument("--delay-ms", type=int, default=200, help="the slow agents' delay")
    parser.add_argument("--start-jobs", type=int, default=8, help="agent processes starting at once")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--shards-at-once", type=int, default=2)
    parser.add_argument("--no-shards", action="store_true")
    parser.add_argument("--slack", type=float, default=1.0, help="seconds past deadline + grace an agent may take")
    parser.add_argument("--kit", default=os.path.join(TARGET, "release", "a2a-tck"))
    parser.add_argument("--agent", default=os.path.join(TARGET, "release", "a2a-reference-agent"))
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--keep", help="keep the surveys' folders here (default: a temporary folder, removed)")
    parser.add_argument("--out", default=os.path.join(ROOT, "reports", "bench", "survey-latest.json"))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else [args.agents]
    if not args.no_build:
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "-p", "a2a-tck", "-p", "a2a-reference-agent"],
            cwd=ROOT,
            check=True,
        )
    listed = subprocess.run([args.agent, "--list-faults"], capture_output=True, text=True, check=True).stdout
    faults = [None] + [line.split()[0] for line in listed.splitlines() if line.strip()]
    largest = max(sizes)
    tmp = args.keep or tempfile.mkdtemp(prefix="survey-bench-")
    os.makedirs(tmp, exist_ok=True)
    results = {"sizes": [], "deadline_s": args.deadline, "select": args.select, "at_once": args.at_once,
               "delay_ms": args.delay_ms, "faults": len(faults) - 1}
    failed = []
    fleet = Fleet(args, largest, faults)
    try:
        print(f"fleet of {largest}: {len(fleet.processes)} agent processes started in {fleet.start_s:.2f} s "
              f"({args.start_jobs} at once), {fleet.processes_rss_mb:.0f} MB resident in all "
              f"({fleet.process_rss_mb:.1f} MB each); {len(faults) - 1} faults cycled", flush=True)
        one_index = None
        for n in sizes:
            file = os.path.join(tmp, f"agents-{n}.toml")
            survey_file(file, fleet, n, args)
            out = os.path.join(tmp, f"one-{n}")
            shutil.rmtree(out, ignore_errors=True)
            fleet.restart()
            before = dict(fleet.hostile.connections)
            run = run_survey(args, file, out)
            if run["exit"] not in (0, 1):
                sys.exit(f"the survey of {n} exited {run['exit']}:\n{run['stderr'][-3000:]}")
            index, requests, over, by_kind = read_out(out, fleet, args.deadline, args.slack)
            hostile = {k: fleet.hostile.connections[k] - before[k] for k in HOSTILE}
            figures = {
                "agents": n,
                "wall_s": run["wall_s"],
                "agents_per_s": n / run["wall_s"],
                "requests": requests,
                "requests_per_s": requests / run["wall_s"],
                "peak_rss_mb": run["peak_rss_mb"],
                "rss_mb_at_done": at_fractions(run["samples"], n),
                "outcomes": index["outcomes"],
                "by_kind": by_kind,
                "hostile_connections": hostile,
                "over_budget_defects": over,
            }
            results["sizes"].append(figures)
            at = figures["rss_mb_at_done"]
            print(f"{n:4} agents: {run['wall_s']:6.1f} s, {figures['agents_per_s']:5.2f} agents/s, "
                  f"{requests} requests ({figures['requests_per_s']:.0f}/s), peak RSS {run['peak_rss_mb']:.1f} MB "
                  f"(RSS at 1/4, 1/2, 3/4 done: " + ", ".join("-" if v is None else f"{v:.1f}" for v in at.values())
                  + f" MB); outcomes {index['outcomes']}; hostile connections {hostile}", flush=True)
            for kind, k in sorted(by_kind.items()):
                print(f"      {kind:8} {k['agents']:4} agents, {k['outcomes']}, longest {k['max_s']:.1f} s, "
                      f"mean {k['total_s'] / k['agents']:.1f} s")
            for line in over:
                print(f"      OVER BUDGET: {line}")
                failed.append(f"{n} agents: {line}")
            if n == largest:
                one_index, one_file = index, file
        if not args.no_shards and one_index is not None:
            shard = shards(args, one_file, tmp, largest, fleet, one_index)
            results["shards"] = shard
            print(f"{shard['shards']} shards of {largest} agents, {shard['at_once']} at a time: "
                  f"{shard['wall_s']:.1f} s, merge {shard['merge_s']:.2f} s; per shard: "
                  + ", ".join(f"{s['agents']} agents {s['wall_s']:.1f} s {s['peak_rss_mb']:.1f} MB"
                              for s in shard["per_shard"])
                  + f"; merged index {'equals' if shard['equal'] else 'DIFFERS from'} the one-process index",
                  flush=True)
            for line in shard["differences"]:
                print(f"      {line}")
                failed.append(f"merge: {line}")
    finally:
        fleet.stop()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    last = results["sizes"][-1]
    rate = last["agents_per_s"]
    print("projection for 10,000 agents at the rate of the last size "
          f"({rate:.2f} agents/s a process): " + ", ".join(
              f"{s} shard(s) {10000 / s / rate / 60:.0f} min each" for s in (1, 4, 16, 64)))
    if len(results["sizes"]) > 1:
        print("\n| agents | wall | agents/s | requests/s | peak RSS |")
        print("|---|---|---|---|---|")
        for f in results["sizes"]:
            print(f"| {f['agents']} | {f['wall_s']:.1f} s | {f['agents_per_s']:.2f} | "
                  f"{f['requests_per_s']:.0f} | {f['peak_rss_mb']:.1f} MB |")
    results["fleet"] = {"agents": largest, "processes": len(fleet.processes), "start_s": fleet.start_s,
                        "processes_rss_mb": fleet.processes_rss_mb, "start_jobs": args.start_jobs}
    results["machine"] = {"cpus": os.cpu_count(), "platform": platform.platform()}
    results["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    print(f"written to {os.path.relpath(args.out, ROOT)}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
