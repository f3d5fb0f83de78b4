#!/usr/bin/env python3
"""A client adapter for the tests (adapters/PROTOCOL.md) that starts slowly.

It notes each start in the file SLOW_ADAPTER_STARTS, then waits SLOW_ADAPTER_DELAY
seconds (a client's start-up). It drives the `card` step itself (the card fetched
with urllib, its name and skills printed) and answers every other step with an
error. SLOW_ADAPTER_MODE: `one-shot` (one run per scenario), `persistent` (it
stays up and reads scenario after scenario on standard input), `hang` (stays up,
and on the first scenario it is given, the first time it is started, never
answers). Each scenario's play, binding and version go to standard error.
"""

import json
import os
import sys
import time
import urllib.request

with open(os.environ['SLOW_ADAPTER_STARTS'], 'a') as f:
    f.write('start\n')
time.sleep(float(os.environ.get('SLOW_ADAPTER_DELAY', '1')))
MODE = os.environ.get('SLOW_ADAPTER_MODE', 'one-shot')


def emit(line):
    print(json.dumps(line), flush=True)


def play(scenario):
    print('scenario {} {} {}'.format(scenario.get('play'), scenario.get('binding'),
                                     scenario.get('version')), file=sys.stderr, flush=True)
    for step in scenario.get('steps', []):
        if step.get('op') != 'card':
            emit({'op': step.get('op'),
                  'error': {'kind': 'Other', 'message': 'this adapter drives the card step only'}})
            continue
        with urllib.request.urlopen(scenario['card_url'], timeout=10) as answer:
            card = json.load(answer)
        emit({'op': 'card', 'name': card.get('name'),
              'skills': [s.get('id') for s in card.get('skills', [])],
              'streaming': bool(card.get('capabilities', {}).get('streaming'))})


with open(os.environ['A2A_TCK_SCENARIO']) as f:
    scenario = json.load(f)
if not scenario.get('describe'):
    play(scenario)
    sys.exit(0)
describe = {'event': 'client', 'name': 'slow test adapter', 'version': '0',
            'bindings': ['JSONRPC'], 'versions': ['1.0', '0.3'], 'features': []}
if MODE == 'one-shot':
    emit(describe)
    sys.exit(0)
emit({**describe, 'persistent': True})
hung = os.environ['SLOW_ADAPTER_STARTS'] + '.hung'
while True:
    line = sys.stdin.readline()
    if not line:
        break
    if not line.strip():
        continue
    scenario = json.loads(line)
    if MODE == 'hang' and not os.path.exists(hung):
        open(hung, 'w').close()
        print('hanging', file=sys.stderr, flush=True)
        time.sleep(3600)
    play(scenario)
    emit({'event': 'end'})
