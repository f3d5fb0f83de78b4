#!/usr/bin/env python3
"""a2a-tck client adapter for the official Python A2A SDK (`a2a-sdk`, PyPI).

It follows adapters/PROTOCOL.md (protocol 1): read the scenario named by
A2A_TCK_SCENARIO, drive the SDK's client through its steps, and print one JSON
line per step saying what the SDK's API returned. It stays up: after its
describe line it reads scenario after scenario on standard input, one JSON line
each, and ends each one's lines with {"event": "end"} (A2A_TCK_ONE_SHOT=1 makes
it a one-run-per-scenario adapter, for comparison). The card is resolved with
the SDK's A2ACardResolver, the client is built by its ClientFactory for every
binding it speaks, credentials go through its AuthInterceptor, extensions
through call-context service parameters. Nothing here retries or repairs.

Install: pip install -r adapters/python/requirements.txt
Run:     python adapters/python/adapter.py   (the kit sets the environment)
"""

import asyncio
import json
import os
import sys
from importlib.metadata import version

import grpc
import httpx
from a2a.client import (
    A2ACardResolver,
    A2AClientError,
    A2AClientTimeoutError,
    AgentCardResolutionError,
    AuthInterceptor,
    ClientCallContext,
    ClientCallInterceptor,
    ClientConfig,
    ClientFactory,
    CredentialService,
)
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.helpers import get_text_parts, new_text_message
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetExtendedAgentCardRequest,
    GetTaskRequest,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils import errors as sdk_errors
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH, TransportProtocol

try:  # the SDK's card verifier needs its `signing` extra (PyJWT, ES256 via cryptography)
    from a2a.utils.signing import SignatureVerificationError, create_signature_verifier
    from jwt.algorithms import get_default_algorithms
    from jwt.api_jwk import PyJWK
    from jwt.exceptions import PyJWKError
    SIGNING = 'ES256' in get_default_algorithms()
except ImportError:
    SIGNING = False

    class SignatureVerificationError(Exception):
        pass

DESCRIBE = {
    'event': 'client',
    'name': 'a2a-sdk (Python)',
    'version': version('a2a-sdk'),
    'bindings': ['JSONRPC', 'HTTP+JSON', 'GRPC'],
    'versions': ['1.0', '0.3'],
    # credentials: the SDK's AuthInterceptor places the token by the card's
    # security requirements itself. 'timeouts': ClientCallContext.timeout; no 'wait': the
    # SDK has no helper that waits for a task to end, and the adapter does not poll on its
    # behalf.
    'features': ['streaming', 'push', 'extended-card', 'extensions', 'credentials', 'timeouts']
    + (['signatures'] if SIGNING else []),
    # The calls of the SDK's client this adapter drives (every step op).
    'operations': ['send', 'stream', 'get', 'cancel', 'subscribe', 'push',
                   'extended_card'],
}

# The SDK's typed errors, named as PROTOCOL.md names them.
ERROR_KINDS = {
    sdk_errors.TaskNotFoundError: 'TaskNotFound',
    sdk_errors.TaskNotCancelableError: 'TaskNotCancelable',
    sdk_errors.PushNotificationNotSupportedError: 'PushNotificationNotSupported',
    sdk_errors.UnsupportedOperationError: 'UnsupportedOperation',
    sdk_errors.ContentTypeNotSupportedError: 'ContentTypeNotSupported',
    sdk_errors.InvalidAgentResponseError: 'InvalidAgentResponse',
    sdk_errors.ExtendedAgentCardNotConfiguredError: 'ExtendedAgentCardNotConfigured',
    sdk_errors.ExtensionSupportRequiredError: 'ExtensionSupportRequired',
    sdk_errors.VersionNotSupportedError: 'VersionNotSupported',
    sdk_errors.InvalidParamsError: 'InvalidParams',
    sdk_errors.InvalidRequestError: 'InvalidRequest',
    sdk_errors.MethodNotFoundError: 'MethodNotFound',
    sdk_errors.JSONParseError: 'ParseError',
    sdk_errors.InternalError: 'Internal',
}
GRPC_KINDS = {
    grpc.StatusCode.UNAUTHENTICATED: 'Unauthenticated',
    grpc.StatusCode.PERMISSION_DENIED: 'Unauthorized',
    grpc.StatusCode.UNAVAILABLE: 'Transport',
    grpc.StatusCode.CANCELLED: 'Transport',
    grpc.StatusCode.DEADLINE_EXCEEDED: 'Transport',
}


def _cause_kind(cause):
    """Kind of the httpx / gRPC exception an untyped SDK error came from.
    A status the agent answered with that the SDK did not type (other than
    401/403) stays None, i.e. Other: the SDK has no type for it."""
    if isinstance(cause, httpx.HTTPStatusError):
        return {401: 'Unauthenticated', 403: 'Unauthorized'}.get(
            cause.response.status_code)
    if isinstance(cause, grpc.aio.AioRpcError):
        return GRPC_KINDS.get(cause.code())
    if isinstance(cause, (httpx.TransportError, httpx.StreamError)):
        return 'Transport'
    return None


def error_of(exc):
    kind = next((k for cls, k in ERROR_KINDS.items() if isinstance(exc, cls)), None)
    if kind is None:
        if isinstance(exc, CardRejected):
            kind = 'CardRejected'
        elif isinstance(exc, SignatureVerificationError):
            return {'kind': 'SignatureInvalid', 'message': f'{type(exc).__name__}: {exc}'}
        elif isinstance(exc, A2AClientTimeoutError):
            kind = 'Transport'
        elif isinstance(exc, AgentCardResolutionError):
            kind = _cause_kind(exc.__cause__) or 'CardRejected'
        elif isinstance(exc, A2AClientError):
            kind = _cause_kind(exc.__cause__)
        else:
            kind = _cause_kind(exc)
    if kind is None:
        return {'kind': 'Other', 'message': f'{type(exc).__name__}: {exc}'}
    return {'kind': kind, 'message': str(exc)}


class CardRejected(Exception):
    """The SDK's ClientFactory refused the card (it raises ValueError)."""


class BearerToken(CredentialService):
    """Hands the scenario's token to the SDK's AuthInterceptor for any scheme."""

    def __init__(self, token):
        self.token = token

    async def get_credentials(self, security_scheme_name, context):
        return self.token


class CallSpy(ClientCallInterceptor):
    """Notes which transport call the client chose (unary or streaming)."""

    method = None

    @property
    def streamed(self):
        return self.method in ('send_message_streaming', 'subscribe')

    async def before(self, args):
        self.method = args.method

    async def after(self, args):
        pass


def text_of(parts):
    return ''.join(get_text_parts(parts))


class Held:
    """What a user of the SDK holds after reading a send/subscribe iterator:
    the SDK's client passes stream events through unaggregated, so the task
    is folded here (snapshot, then status and artifact updates on top)."""

    def __init__(self):
        self.task, self.message, self.events = None, None, 0

    def _task_for(self, task_id, context_id):
        if self.task is None:
            self.task = Task(id=task_id, context_id=context_id)
        return self.task

    def add(self, event):
        self.events += 1
        which = event.WhichOneof('payload')
        if which == 'task':
            self.task = Task()
            self.task.CopyFrom(event.task)
        elif which == 'message':
            self.message = event.message
        elif which == 'status_update':
            up = event.status_update
            self._task_for(up.task_id, up.context_id).status.CopyFrom(up.status)
        elif which == 'artifact_update':
            up = event.artifact_update
            task = self._task_for(up.task_id, up.context_id)
            for art in task.artifacts:
                if art.artifact_id == up.artifact.artifact_id:
                    if up.append:
                        art.parts.extend(up.artifact.parts)
                    else:
                        art.CopyFrom(up.artifact)
                    break
            else:
                task.artifacts.add().CopyFrom(up.artifact)

    def line(self, op, streamed):
        out = {'op': op}
        if self.message is not None:
            out.update(result='message', text=text_of(self.message.parts))
        elif self.task is not None:
            out.update(task_line(self.task))
        out.update(streamed=streamed, events=self.events)
        return out


def task_line(task):
    return {
        'result': 'task',
        'task_id': task.id or None,
        'context_id': task.context_id or None,
        'state': TaskState.Name(task.status.state),
        'artifacts': [{'artifact_id': a.artifact_id, 'text': text_of(a.parts)}
                      for a in task.artifacts],
    }


def card_verifier(trusted_keys):
    """The SDK's own verifier, with a key provider that hands it the trusted
    key whose kid is the signature's protected-header kid. A kid it does not
    trust raises PyJWKError, which the SDK counts as that signature failing."""
    if not SIGNING:
        raise RuntimeError('a2a-sdk signing extra (PyJWT with ES256) is not installed')
    keys = (trusted_keys or {}).get('keys') or []

    def key_provider(kid, jku):
        for jwk in keys:
            if kid is not None and jwk.get('kid') == kid:
                return PyJWK(jwk)
        raise PyJWKError(f'no trusted key with kid {kid!r}')

    return create_signature_verifier(key_provider, ['ES256'])


def split_card_url(url):
    """(base URL, card path) for A2ACardResolver, which fetches base/path."""
    if url.endswith(AGENT_CARD_WELL_KNOWN_PATH):
        return url[:-len(AGENT_CARD_WELL_KNOWN_PATH)], AGENT_CARD_WELL_KNOWN_PATH
    scheme, _, rest = url.partition('://')
    host, slash, path = rest.partition('/')
    return f'{scheme}://{host}', slash + path


class Run:
    def __init__(self, scenario):
        self.sc = scenario
        # One httpx client shared by the card resolver and every SDK client;
        # the factories give it the SDK's default A2A-Version header.
        self.http = httpx.AsyncClient()
        self.factories = {streaming: ClientFactory(ClientConfig(
            streaming=streaming,
            httpx_client=self.http,
            grpc_channel_factory=grpc.aio.insecure_channel,
            supported_protocol_bindings=[
                TransportProtocol.JSONRPC,
                TransportProtocol.HTTP_JSON,
                TransportProtocol.GRPC,
            ],
        )) for streaming in (True, False)}
        self.card = None
        self.card_error = None
        self.clients = {}  # streaming on/off -> (client, spy)
        self.last_task = None
        self.last_context = None

    async def close(self):
        for client, _ in self.clients.values():
            await client.close()
        await self.http.aclose()

    async def resolve_card(self, verifier=None):
        for client, _ in self.clients.values():
            await client.close()
        self.clients, self.card, self.card_error = {}, None, None
        base, path = split_card_url(
            self.sc.get('card_url') or os.environ['A2A_TCK_CARD_URL'])
        try:
            self.card = await A2ACardResolver(self.http, base, path).get_agent_card(
                signature_verifier=verifier)
        except Exception as exc:
            self.card_error = exc
            raise
        return self.card

    async def client(self, streaming=True):
        if self.card is None:
            if self.card_error is not None:
                raise self.card_error  # resolved once per scenario; no retry
            await self.resolve_card()
        if streaming not in self.clients:
            spy = CallSpy()
            interceptors = [spy]
            if self.sc.get('bearer'):
                interceptors.insert(0, AuthInterceptor(BearerToken(self.sc['bearer'])))
            try:
                client = self.factories[streaming].create(self.card, interceptors)
            except ValueError as exc:  # no interface on the card it can use
                raise CardRejected(f'ValueError: {exc}') from exc
            self.clients[streaming] = (client, spy)
        return self.clients[streaming]

    def context(self, timeout_ms=None):
        updates = [with_a2a_extensions(self.sc.get('extensions') or [])]
        return ClientCallContext(
            service_parameters=ServiceParametersFactory.create(updates),
            timeout=None if timeout_ms is None else timeout_ms / 1000)

    def task_id(self, step):
        ref = step.get('task', 'last')
        return (self.last_task or '') if ref == 'last' else ref

    def remember(self, task):
        if task is not None and task.id:
            self.last_task, self.last_context = task.id, task.context_id

    async def read_stream(self, op, events, spy):
        held = Held()
        try:
            async for event in events:
                held.add(event)
                self.remember(held.task)
        except Exception as exc:
            if held.events == 0:
                raise
            return {**held.line(op, spy.streamed), 'error': error_of(exc)}
        return held.line(op, spy.streamed)

    async def step(self, step):
        op = step['op']
        if op == 'card':
            verify = bool(step.get('verify'))
            card = await self.resolve_card(
                card_verifier(self.sc.get('trusted_keys')) if verify else None)
            line = {'op': op, 'name': card.name,
                    'skills': [s.id for s in card.skills],
                    'streaming': card.capabilities.streaming
                    if card.capabilities.HasField('streaming') else None}
            return {**line, 'verified': True} if verify else line
        if op == 'send':
            # 'auto' and 'always' are the same config (streaming on): the SDK
            # then streams only when the card says `streaming: true`.
            client, spy = await self.client(step.get('stream', 'auto') != 'never')
            follow = step.get('follow_up')
            message = new_text_message(
                step['text'], role=Role.ROLE_USER,
                task_id=self.last_task if follow else None,
                context_id=self.last_context if follow else None)
            spy.method = None
            events = client.send_message(
                SendMessageRequest(message=message),
                context=self.context(step.get('timeout_ms')))
            return await self.read_stream(op, events, spy)
        if op == 'subscribe':
            client, spy = await self.client()
            spy.method = None
            events = client.subscribe(
                SubscribeToTaskRequest(id=self.task_id(step)), context=self.context())
            return await self.read_stream(op, events, spy)
        client, _ = await self.client()
        if op == 'get':
            task = await client.get_task(
                GetTaskRequest(id=self.task_id(step)), context=self.context())
            self.remember(task)
            return {'op': op, **task_line(task), 'streamed': False, 'events': 1}
        if op == 'cancel':
            task = await client.cancel_task(
                CancelTaskRequest(id=self.task_id(step)), context=self.context())
            return {'op': op, **task_line(task), 'streamed': False, 'events': 1}
        if op == 'extended_card':
            card = await client.get_extended_agent_card(
                GetExtendedAgentCardRequest(), context=self.context())
            return {'op': op, 'name': card.name, 'skills': [s.id for s in card.skills]}
        if op == 'push':
            config = await client.create_task_push_notification_config(
                TaskPushNotificationConfig(
                    task_id=self.task_id(step), url=step.get('url', ''),
                    token=step.get('token') or ''),
                context=self.context())
            return {'op': op, 'task_id': config.task_id or None,
                    'config_id': config.id or None, 'url': config.url or None,
                    'token': config.token or None}
        return {'op': op, 'error': {'kind': 'Other', 'message': f'unknown op {op!r}'}}


def emit(line):
    print(json.dumps(line), flush=True)


async def play(scenario):
    run = Run(scenario)
    try:
        for step in scenario.get('steps', []):
            try:
                emit(await run.step(step))
            except Exception as exc:
                emit({'op': step.get('op'), 'error': error_of(exc)})
    finally:
        await run.close()


async def main():
    with open(os.environ['A2A_TCK_SCENARIO']) as f:
        scenario = json.load(f)
    if not scenario.get('describe'):
        await play(scenario)
        return
    if os.environ.get('A2A_TCK_ONE_SHOT'):
        emit(DESCRIBE)
        return
    emit({**DESCRIBE, 'persistent': True})
    # Scenario after scenario on standard input, until it ends.
    while True:
        line = await asyncio.to_thread(sys.stdin.readline)
        if not line:
            return
        if not line.strip():
            continue
        try:
            await play(json.loads(line))
        finally:
            sys.stderr.flush()
            emit({'event': 'end'})


if __name__ == '__main__':
    asyncio.run(main())
