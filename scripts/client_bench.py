#!/usr/bin/env python3
"""Client mode's speed with a client that is slow to start.

Runs `a2a-tck client` through every play with the Python adapter (a2a-sdk) behind a
wrapper that sleeps --startup seconds (2 by default) each time it starts: once with
the adapter staying up (one process, scenario after scenario on its standard
input), and with --one-shot also as a one-run-per-scenario adapter
(A2A_TCK_ONE_SHOT=1), for comparison. Prints, per mode, the wall time, how many
times the adapter started, and the results; writes them to
reports/bench/client.json. Exits 1 when the modes' results differ or when the run
that stays up takes --limit seconds (60) or more.

Needs python3 and the release build of the kit (A2A_TCK names another binary); the
SDK is installed from PyPI into a scratch venv unless --python names a Python that
has it (e.g. a venv made by an earlier run with --keep).
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def kit():
    path = os.environ.get('A2A_TCK', str(ROOT / 'target/release/a2a-tck'))
    if not os.access(path, os.X_OK):
        subprocess.run(['cargo', 'build', '--release', '--locked', '-p', 'a2a-tck'],
                       cwd=ROOT, check=True)
    return path


def python_with_sdk(scratch):
    venv = Path(scratch) / 'py'
    print(f'-- installing a2a-sdk (PyPI) into {venv}', flush=True)
    subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True)
    subprocess.run([str(venv / 'bin/pip'), 'install', '--quiet', '--disable-pip-version-check',
                    '-r', str(ROOT / 'adapters/python/requirements.txt')], check=True)
    return str(venv / 'bin/python')


def run(binary, python, startup, one_shot, scratch):
    name = 'one-shot' if one_shot else 'persistent'
    starts = Path(scratch) / f'starts-{name}'
    report = ROOT / f'reports/bench/client-{name}.json'
    command = (f'echo start >> {shlex.quote(str(starts))}; sleep {startup}; '
               f'exec {shlex.quote(python)} adapters/python/adapter.py')
    env = dict(os.environ)
    env.pop('A2A_TCK_ONE_SHOT', None)
    if one_shot:
        env['A2A_TCK_ONE_SHOT'] = '1'
    print(f'-- a2a-tck client, the adapter {name}, {startup} s of start-up', flush=True)
    began = time.monotonic()
    subprocess.run([binary, 'client', '--cmd', command, '--report', str(report)], cwd=ROOT,
                   env=env, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - began
    results = json.loads(report.read_text())['results']
    return {
        'mode': name,
        'wall_s': round(wall, 1),
        'starts': len(starts.read_text().splitlines()) if starts.exists() else 0,
        'results': len(results),
        'statuses': dict(Counter(r['status'] for r in results)),
        'by_result': {f"{r['id']} {r['binding']} {r['version']}": r['status'] for r in results},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--startup', type=float, default=2.0, help='seconds the wrapper sleeps')
    parser.add_argument('--one-shot', action='store_true',
                        help='also run the adapter once per scenario (takes minutes)')
    parser.add_argument('--python', help='a Python with a2a-sdk installed')
    parser.add_argument('--limit', type=float, default=60.0,
                        help='seconds the run that stays up must stay under')
    args = parser.parse_args()
    binary = kit()
    (ROOT / 'reports/bench').mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        python = args.python or python_with_sdk(scratch)
        runs = [run(binary, python, args.startup, False, scratch)]
        if args.one_shot:
            runs.append(run(binary, python, args.startup, True, scratch))
    print(f"\n{'mode':<11} {'wall s':>7} {'starts':>7} {'results':>8}  statuses")
    for r in runs:
        print(f"{r['mode']:<11} {r['wall_s']:>7} {r['starts']:>7} {r['results']:>8}  {r['statuses']}")
    (ROOT / 'reports/bench/client.json').write_text(
        json.dumps({'startup_s': args.startup, 'runs': runs}, indent=2) + '\n')
    failed = False
    if runs[0]['wall_s'] >= args.limit:
        print(f"the adapter that stays up took {runs[0]['wall_s']} s, not under {args.limit} s")
        failed = True
    if len(runs) > 1 and runs[0]['by_result'] != runs[1]['by_result']:
        differ = [k for k in runs[0]['by_result']
                  if runs[0]['by_result'][k] != runs[1]['by_result'].get(k)]
        print(f'the two modes judged differently: {differ}')
        failed = True
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
