#!/usr/bin/env python3
"""A small A2A client over JSON-RPC (1.0 and 0.3), written for the client-mode tests: it speaks
the adapter protocol (adapters/PROTOCOL.md) and, by its flags, behaves as the real clients the
tests stand for do:

  --ops send,get          declare these operations on the describe line (else none declared)
  --bindings B,...        the bindings it declares (default JSONRPC)
  --versions 1.0,0.3      the versions it declares (default both)
  --lacks get,cancel      print an error for these steps without sending anything (a client
                          whose API has no such call, and whose adapter does not declare it)
  --no-version-header     send no A2A-Version
  --trailing-slash        post to the interface URL with a slash added
  --legacy-card           fetch the card at /.well-known/agent.json (the path before 0.3)
  --reject-modeless       refuse a card whose skills have no inputModes/outputModes
  --own-card-path         fetch the card at a path of its own, /.well-known/<name>/agent-card.json
                          (a framework's client that builds the card URL from an agent id)
  --made-up-card          when the card cannot be fetched, go on with a card it makes up
                          ("Unknown Agent", no skills), as a pre-0.3 client does
  --features F,...        the features it declares (default none)
  --refuse-non-http       refuse a card any of whose interface URLs is not http(s), naming the
                          URL (google-adk's RemoteA2aAgent); --quiet-refusal: without naming it

Standard library only."""

import json
import os
import sys
import urllib.error
import urllib.request
import uuid

KINDS = {
    -32001: 'TaskNotFound', -32002: 'TaskNotCancelable',
    -32003: 'PushNotificationNotSupported', -32004: 'UnsupportedOperation',
    -32005: 'ContentTypeNotSupported', -32006: 'InvalidAgentResponse',
    -32007: 'ExtendedAgentCardNotConfigured', -32008: 'ExtensionSupportRequired',
    -32009: 'VersionNotSupported', -32700: 'ParseError', -32600: 'InvalidRequest',
    -32601: 'MethodNotFound', -32602: 'InvalidParams', -32603: 'Internal',
}
METHODS_03 = {'SendMessage': 'message/send', 'GetTask': 'tasks/get',
              'CancelTask': 'tasks/cancel'}


def flags(argv):
    out = {}
    i = 0
    while i < len(argv):
        name = argv[i].lstrip('-')
        if i + 1 < len(argv) and not argv[i + 1].startswith('--'):
            out[name] = argv[i + 1].split(',')
            i += 2
        else:
            out[name] = True
            i += 1
    return out


class Failed(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def fetch(url, body=None, headers=None):
    request = urllib.request.Request(url, data=body, headers=headers or {},
                                     method='POST' if body is not None else 'GET')
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except OSError as e:
        raise Failed('Transport', str(e))


class Client:
    def __init__(self, scenario, opts):
        self.sc = scenario
        self.opts = opts
        self.card = None
        self.url = None
        self.version = None
        self.tenant = None
        self.last = None

    def resolve(self):
        if self.card is not None:
            return self.card
        url = self.sc['card_url']
        if self.opts.get('legacy-card'):
            url = url.replace('/.well-known/agent-card.json', '/.well-known/agent.json')
        if self.opts.get('own-card-path'):
            url = url.replace('/.well-known/agent-card.json', '/.well-known/mini/agent-card.json')
        status, body = fetch(url)
        if status != 200 and self.opts.get('made-up-card'):
            self.card = {'name': 'Unknown Agent', 'skills': []}
            return self.card
        if status != 200:
            raise Failed('CardRejected', f'HTTP {status} for the card at {url}')
        card = json.loads(body)
        if self.opts.get('refuse-non-http'):
            for i in card.get('supportedInterfaces', []):
                if not i.get('url', '').startswith(('http://', 'https://')):
                    named = '' if self.opts.get('quiet-refusal') else f": {i.get('url')}"
                    # As long as google-adk's message, whose URL comes after 200 characters.
                    raise Failed('CardRejected', 'failed to initialize the remote agent: ' * 6
                                 + f'interface URL must use http(s){named}')
        if self.opts.get('reject-modeless'):
            for skill in card.get('skills', []):
                if 'inputModes' not in skill or 'outputModes' not in skill:
                    raise Failed('CardRejected',
                                 f"skill {skill.get('id')} has no inputModes/outputModes")
        interfaces = [(i['url'], i.get('protocolVersion'), i.get('tenant'))
                      for i in card.get('supportedInterfaces', [])
                      if i.get('protocolBinding') == 'JSONRPC']
        if not interfaces:
            listed = [(card.get('url'), card.get('preferredTransport', 'JSONRPC'))] + [
                (i.get('url'), i.get('transport')) for i in card.get('additionalInterfaces', [])]
            interfaces = [(url, '0.3', None) for url, transport in listed
                          if url and transport == 'JSONRPC']
        if not interfaces:
            raise Failed('CardRejected', 'no JSON-RPC interface')
        self.url, self.version, self.tenant = interfaces[0]
        self.card = card
        return card

    def call(self, method, params):
        self.resolve()
        if self.version == '0.3':
            method = METHODS_03[method]
        elif self.tenant:
            params = {**params, 'tenant': self.tenant}
        headers = {'Content-Type': 'application/json'}
        if not self.opts.get('no-version-header') and self.version != '0.3':
            headers['A2A-Version'] = '1.0'
        url = self.url + ('/' if self.opts.get('trailing-slash') else '')
        body = json.dumps({'jsonrpc': '2.0', 'id': str(uuid.uuid4()),
                           'method': method, 'params': params}).encode()
        status, answer = fetch(url, body, headers)
        try:
            answer = json.loads(answer)
        except ValueError:
            raise Failed('Transport', f'HTTP {status}: not JSON')
        if 'error' in answer:
            error = answer['error']
            raise Failed(KINDS.get(error.get('code'), 'Other'), error.get('message', ''))
        return answer.get('result')

    def message(self, step):
        text = step.get('text', '')
        if self.version == '0.3':
            message = {'kind': 'message', 'messageId': str(uuid.uuid4()), 'role': 'user',
                       'parts': [{'kind': 'text', 'text': text}]}
        else:
            message = {'messageId': str(uuid.uuid4()), 'role': 'ROLE_USER',
                       'parts': [{'text': text}]}
        if step.get('follow_up') and self.last:
            message['taskId'], message['contextId'] = self.last
        return message

    def task_line(self, op, task):
        self.last = (task.get('id'), task.get('contextId'))
        state = (task.get('status') or {}).get('state')
        artifacts = [{'artifact_id': a.get('artifactId'),
                      'text': ''.join(p.get('text', '') for p in a.get('parts', []))}
                     for a in task.get('artifacts') or []]
        return {'op': op, 'result': 'task', 'task_id': task.get('id'),
                'context_id': task.get('contextId'), 'state': state,
                'artifacts': artifacts}

    def result_line(self, op, result):
        result = result or {}
        if self.version != '0.3':
            if 'message' in result:
                result = {'kind': 'message', **result['message']}
            elif 'task' in result:
                result = {'kind': 'task', **result['task']}
        if result.get('kind') == 'message':
            text = ''.join(p.get('text', '') for p in result.get('parts', []))
            return {'op': op, 'result': 'message', 'text': text}
        return self.task_line(op, result)

    def task_of(self, step):
        task = step.get('task', 'last')
        if task == 'last':
            if not self.last:
                raise Failed('Other', 'no task yet')
            return self.last[0]
        return task

    def step(self, step):
        op = step['op']
        if op in self.opts.get('lacks', []):
            raise Failed('Other', f'this client has no {op} call')
        if op == 'card':
            card = self.resolve()
            return {'op': op, 'name': card.get('name'),
                    'skills': [s.get('id') for s in card.get('skills', [])],
                    'streaming': bool((card.get('capabilities') or {}).get('streaming'))}
        if op == 'send':
            if step.get('stream') == 'always':
                raise Failed('Other', 'this client does not stream')
            self.resolve()
            return self.result_line(op, self.call('SendMessage',
                                                  {'message': self.message(step)}))
        if op == 'get':
            return self.task_line(op, self.call('GetTask', {'id': self.task_of(step)}))
        if op == 'cancel':
            return self.task_line(op, self.call('CancelTask', {'id': self.task_of(step)}))
        raise Failed('Other', f'this client has no {op} call')


def main():
    opts = flags(sys.argv[1:])
    with open(os.environ['A2A_TCK_SCENARIO']) as f:
        scenario = json.load(f)
    if scenario.get('describe'):
        line = {'event': 'client', 'name': 'mini client', 'version': '0',
                'bindings': opts.get('bindings', ['JSONRPC']),
                'versions': opts.get('versions', ['1.0', '0.3']),
                'features': opts.get('features', [])}
        if 'ops' in opts:
            line['operations'] = opts['ops']
        print(json.dumps(line), flush=True)
        return
    client = Client(scenario, opts)
    for step in scenario.get('steps', []):
        try:
            line = client.step(step)
        except Failed as e:
            line = {'op': step['op'], 'error': {'kind': e.kind, 'message': str(e)}}
        print(json.dumps(line), flush=True)


main()
