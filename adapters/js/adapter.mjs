// a2a-tck client adapter for the official JavaScript A2A SDK, @a2a-js/sdk (see package.json).
//
// It follows adapters/PROTOCOL.md: it reads the scenario file named by A2A_TCK_SCENARIO,
// resolves the card at A2A_TCK_CARD_URL with the SDK's card resolver and ClientFactory (every
// transport, both protocol versions), runs the steps with the SDK's Client and prints one JSON
// line per step. It reports what the SDK returned and never retries or repairs anything.
// It stays up: after its describe line it reads scenario after scenario on standard input, one
// JSON line each, ending each one's lines with {"event":"end"} (A2A_TCK_ONE_SHOT=1 makes it
// a one-run-per-scenario adapter, for comparison).
//
// The packages are loaded with require(), so they are found in a node_modules folder next to
// this file or above it, or in NODE_PATH: NODE_PATH=/some/dir/node_modules node adapter.mjs

import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';

const require = createRequire(import.meta.url);
const { Role, taskStateToJSON, verifyAgentCardSignature } = require('@a2a-js/sdk');
const { A2AError } = require('@a2a-js/sdk/errors');
const {
  ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory,
  ServiceParameters, withA2AExtensions,
} = require('@a2a-js/sdk/client');
const { GrpcTransportFactory } = require('@a2a-js/sdk/client/grpc');

const print = (line) => process.stdout.write(JSON.stringify(line) + '\n');
const orNull = (v) => (v === undefined || v === '' ? null : v);

function describe() {
  const pkg = join(dirname(require.resolve('@a2a-js/sdk')), '..', 'package.json');
  return {
    event: 'client', name: '@a2a-js/sdk (JavaScript)', version: JSON.parse(readFileSync(pkg, 'utf8')).version,
    bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'], versions: ['1.0', '0.3'],
    // 'timeouts': an AbortSignal per call; no 'wait': the SDK has no helper that waits for a
    // task to end, and the adapter does not poll on its behalf.
    features: ['streaming', 'push', 'extended-card', 'extensions', 'timeouts',
      ...(typeof verifyAgentCardSignature === 'function' ? ['signatures'] : [])],
    // The calls of the SDK's client this adapter drives (every step op).
    operations: ['send', 'stream', 'get', 'cancel', 'subscribe', 'push', 'extended_card'],
  };
}

// ---- errors: the SDK's typed errors, named as PROTOCOL.md names them ----

const BY_CODE = {
  [-32001]: 'TaskNotFound', [-32002]: 'TaskNotCancelable', [-32003]: 'PushNotificationNotSupported',
  [-32004]: 'UnsupportedOperation', [-32005]: 'ContentTypeNotSupported', [-32006]: 'InvalidAgentResponse',
  [-32007]: 'ExtendedAgentCardNotConfigured', [-32008]: 'ExtensionSupportRequired',
  [-32009]: 'VersionNotSupported', [-32602]: 'InvalidParams', [-32600]: 'InvalidRequest',
  [-32601]: 'MethodNotFound', [-32700]: 'ParseError', [-32603]: 'Internal',
};
// The SDK's semantic classes (error.name), e.g. TaskNotFoundError; RequestMalformedError is its
// one class for INVALID_PARAMS (and, on JSON-RPC, for -32600/-32601/-32700: envelopeCode tells).
const BY_NAME = {
  TaskNotFoundError: 'TaskNotFound', TaskNotCancelableError: 'TaskNotCancelable',
  PushNotificationNotSupportedError: 'PushNotificationNotSupported',
  UnsupportedOperationError: 'UnsupportedOperation', ContentTypeNotSupportedError: 'ContentTypeNotSupported',
  InvalidAgentResponseError: 'InvalidAgentResponse',
  ExtendedAgentCardNotConfiguredError: 'ExtendedAgentCardNotConfigured',
  ExtensionSupportRequiredError: 'ExtensionSupportRequired', VersionNotSupportedError: 'VersionNotSupported',
  RequestMalformedError: 'InvalidParams',
};
// Generic A2AError (no ErrorInfo reason): its HTTP status (REST) or gRPC status code.
const BY_HTTP = { 401: 'Unauthenticated', 403: 'Unauthorized', 500: 'Internal' };
const BY_GRPC = { 1: 'Transport', 3: 'InvalidParams', 4: 'Transport', 7: 'Unauthorized', 12: 'MethodNotFound',
  13: 'Internal', 14: 'Transport', 16: 'Unauthenticated' };

let lastHttpStatus = 0; // status of the last HTTP response the SDK got (set by the fetch below)
async function recordingFetch(...args) {
  lastHttpStatus = 0;
  const response = await fetch(...args);
  lastHttpStatus = response.status;
  return response;
}

function errorOf(e) {
  // The JSON-RPC transports wrap an error event of a stream in a plain Error, typed one as cause.
  const err = !(e instanceof A2AError) && e?.cause instanceof A2AError ? e.cause : e;
  let message = `${err?.name ?? typeof err}: ${err?.message ?? String(err)}`;
  let kind;
  if (err instanceof A2AError) {
    kind = (err.transport === 'jsonrpc' && BY_CODE[err.envelopeCode]) || BY_NAME[err.name]
      || (err.transport === 'rest' && BY_HTTP[err.statusCode])
      || (err.transport === 'grpc' && BY_GRPC[err.status]);
    const code = err.envelopeCode ?? err.statusCode ?? err.status; // JSON-RPC code, HTTP or gRPC status
    if (code !== undefined) message = `${err.name} (${err.transport} ${code}): ${err.message}`;
  } else if ((err?.name === 'TypeError' && err.cause !== undefined) || err?.name === 'AbortError'
    || err?.name === 'TimeoutError') {
    kind = 'Transport'; // fetch's own failures (refused, reset, body cut off) carry the socket error
  } else if (lastHttpStatus >= 300) {
    kind = 'Transport'; // an untyped "HTTP error ..." the SDK raised for a non-2xx response
  }
  return { kind: kind || 'Other', message };
}

// ---- credentials and extensions ----

// Headers that carry the bearer token where the card's security schemes ask for it.
function credentialHeaders(card, token) {
  const schemes = card.securitySchemes ?? {};
  const wanted = card.securityRequirements?.[0]?.schemes ?? card.security?.[0] ?? schemes;
  const headers = {};
  for (const name of Object.keys(wanted)) {
    const s = schemes[name];
    if (!s) continue;
    const type = s.scheme?.$case ?? s.type; // v1.0 (as the SDK parses it) or v0.3 spelling
    const v = s.scheme?.value ?? s;
    if (type === 'httpAuthSecurityScheme' || type === 'http') {
      headers.Authorization = `${/^basic$/i.test(v.scheme) ? 'Basic' : 'Bearer'} ${token}`;
    } else if (type === 'apiKeySecurityScheme' || type === 'apiKey') {
      const where = v.location ?? v.in;
      if (where === 'header') headers[v.name] = token;
      else if (where === 'cookie') headers.Cookie = `${v.name}=${token}`;
    } else if (type && type !== 'mtlsSecurityScheme' && type !== 'mutualTLS') {
      headers.Authorization = `Bearer ${token}`; // OAuth 2.0 and OpenID Connect access tokens
    }
  }
  return Object.keys(headers).length ? headers : { Authorization: `Bearer ${token}` };
}

// The SDK's CallInterceptor: adds the credentials to every call's service parameters.
const bearerInterceptor = (token) => ({
  async before(args) {
    if (args.options?.serviceParameters) Object.assign(args.options.serviceParameters, credentialHeaders(args.agentCard, token));
  },
  async after() {},
});

// ---- results ----

const textOf = (parts) => (parts ?? []).filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('');
const stateOf = (s) => (typeof s === 'number' ? taskStateToJSON(s) : orNull(s));

const taskLine = (op, t) => ({
  op, result: 'task', task_id: orNull(t.id), context_id: orNull(t.contextId), state: stateOf(t.status?.state),
  artifacts: (t.artifacts ?? []).map((a) => ({ artifact_id: orNull(a.artifactId), text: textOf(a.parts) })),
});
const messageLine = (op, m) => ({ op, result: 'message', text: textOf(m.parts) });
const resultLine = (op, r) => ('messageId' in r ? messageLine(op, r) : taskLine(op, r));

// Puts a stream's events together into what a user of the SDK holds at the end.
function absorb(held, event) {
  const { $case: kind, value: v } = event.payload ?? {};
  const task = () => (held.task ??= { id: v.taskId, contextId: v.contextId, status: undefined, artifacts: [] });
  if (kind === 'task') held.task = { ...v, artifacts: [...(v.artifacts ?? [])] };
  else if (kind === 'message') held.message = v;
  else if (kind === 'statusUpdate') task().status = v.status;
  else if (kind === 'artifactUpdate' && v.artifact) {
    const artifacts = task().artifacts;
    const i = artifacts.findIndex((a) => a.artifactId === v.artifact.artifactId);
    if (i < 0) artifacts.push(v.artifact);
    else if (v.append) artifacts[i] = { ...artifacts[i], parts: [...artifacts[i].parts, ...v.artifact.parts] };
    else artifacts[i] = v.artifact;
  }
}

// ---- the run ----

async function main() {
  const scenario = JSON.parse(readFileSync(process.env.A2A_TCK_SCENARIO, 'utf8'));
  if (!scenario.describe) return play(scenario);
  if (process.env.A2A_TCK_ONE_SHOT) return print(describe());
  print({ ...describe(), persistent: true });
  // Scenario after scenario on standard input, until it ends.
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    try {
      await play(JSON.parse(line));
    } catch (e) {
      process.stderr.write(`adapter failed: ${e?.stack ?? e}\n`);
    }
    await new Promise((done) => process.stderr.write('', done));
    print({ event: 'end' });
  }
}

async function play(scenario) {
  const cardUrl = scenario.card_url ?? process.env.A2A_TCK_CARD_URL;
  const extensions = scenario.extensions ?? [];
  const opts = extensions.length ? { serviceParameters: ServiceParameters.create(withA2AExtensions(...extensions)) } : undefined;

  // The resolver keeps the card it fetched, for the `card` step.
  class KeepingResolver extends DefaultAgentCardResolver {
    async resolve(baseUrl, path) { return (this.card = await super.resolve(baseUrl, path)); }
  }
  const legacyCompat = { enabled: true };
  const resolver = new KeepingResolver({ fetchImpl: recordingFetch, legacyCompat });
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ fetchImpl: recordingFetch, legacyCompat }),
      new RestTransportFactory({ fetchImpl: recordingFetch, legacyCompat }),
      new GrpcTransportFactory({ legacyCompat }),
    ],
    cardResolver: resolver,
    clientConfig: { interceptors: scenario.bearer ? [bearerInterceptor(scenario.bearer)] : [] },
  });

  let client, setupError;
  try {
    client = await factory.createFromUrl(cardUrl, ''); // '': the URL is the card's own
  } catch (e) {
    setupError = errorOf(e);
    if (resolver.card || setupError.kind === 'Other') setupError.kind = 'CardRejected';
  }

  let cardReads = 0; // the card steps so far
  let last = null; // the task of the previous send, get or subscribe
  const taskId = (ref) => (ref === 'last' || ref === undefined ? last?.id ?? '' : ref);
  const remember = (line) => { if (line.task_id) last = { id: line.task_id, contextId: line.context_id }; return line; };

  async function readStream(op, events) {
    const held = { events: 0 };
    let error;
    try {
      for await (const event of events) { held.events++; absorb(held, event); }
    } catch (e) { error = errorOf(e); }
    if (!held.task && !held.message) return error ? { op, error } : { op, streamed: true, events: 0 };
    const line = held.task ? remember(taskLine(op, held.task)) : messageLine(op, held.message);
    return { ...line, streamed: true, events: held.events, ...(error && { error }) };
  }

  const steps = {
    card: async (step) => {
      // A second read asks the SDK's resolver again, as a user wanting the card as it stands
      // does; whatever caching happens is the SDK's.
      if (cardReads++ > 0) {
        try {
          await resolver.resolve(cardUrl, '');
        } catch (e) {
          return { op: 'card', error: { ...errorOf(e), kind: 'CardRejected' } };
        }
      }
      const card = resolver.card;
      const line = { op: 'card', name: card.name, skills: (card.skills ?? []).map((s) => s.id), streaming: !!card.capabilities?.streaming };
      if (!step.verify) return line;
      // The SDK's verifier (it canonicalises the card itself); the key is the trusted key
      // whose kid is the signature's protected-header kid.
      const keys = scenario.trusted_keys?.keys ?? [];
      const verify = verifyAgentCardSignature(async (kid) => {
        const key = keys.find((k) => k.kid === kid);
        if (!key) throw new Error(`no trusted key with kid ${JSON.stringify(kid)}`);
        return key;
      });
      try {
        await verify(card);
      } catch (e) {
        return { op: 'card', error: { kind: 'SignatureInvalid', message: `${e?.name ?? typeof e}: ${e?.message ?? String(e)}` } };
      }
      return { ...line, verified: true };
    },
    send: async (step) => {
      const follow = step.follow_up && last;
      const message = {
        messageId: randomUUID(), role: Role.ROLE_USER, taskId: follow ? last.id : '', contextId: follow ? last.contextId ?? '' : '',
        parts: [{ content: { $case: 'text', value: step.text }, metadata: undefined, filename: '', mediaType: '' }],
        metadata: undefined, extensions: [], referenceTaskIds: [],
      };
      const params = { tenant: '', message, configuration: undefined, metadata: undefined };
      // timeout_ms: the SDK's per-call abort signal, as its users give a deadline.
      const callOpts = step.timeout_ms === undefined ? opts
        : { ...(opts ?? {}), signal: AbortSignal.timeout(step.timeout_ms) };
      if ((step.stream ?? 'auto') === 'never') {
        return { ...remember(resultLine('send', await client.sendMessage(params, callOpts))), streamed: false };
      }
      // 'auto' and 'always': the SDK's streaming call (which itself falls back to the unary
      // call when the card does not declare streaming).
      return readStream('send', client.sendMessageStream(params, callOpts));
    },
    get: async (step) => remember(taskLine('get', await client.getTask({ tenant: '', id: taskId(step.task) }, opts))),
    cancel: async (step) => taskLine('cancel', await client.cancelTask({ tenant: '', id: taskId(step.task), metadata: undefined }, opts)),
    subscribe: async (step) => readStream('subscribe', client.resubscribeTask({ tenant: '', id: taskId(step.task) }, opts)),
    extended_card: async () => {
      const card = await client.getAgentCard(opts);
      return { op: 'extended_card', name: card.name, skills: (card.skills ?? []).map((s) => s.id) };
    },
    push: async (step) => {
      const config = { tenant: '', id: '', taskId: taskId(step.task), url: step.url, token: step.token ?? '', authentication: undefined };
      const r = await client.createTaskPushNotificationConfig(config, opts);
      return { op: 'push', task_id: orNull(r.taskId), config_id: orNull(r.id), url: orNull(r.url), token: orNull(r.token) };
    },
  };

  for (const step of scenario.steps ?? []) {
    let line;
    if (setupError) line = { op: step.op, error: setupError };
    else if (!steps[step.op]) line = { op: step.op, error: { kind: 'Other', message: `unknown op ${step.op}` } };
    else {
      try { line = await steps[step.op](step); } catch (e) { line = { op: step.op, error: errorOf(e) }; }
    }
    print(line);
  }
}

main()
  .catch((e) => process.stderr.write(`adapter failed: ${e?.stack ?? e}\n`))
  .finally(() => process.stdout.write('', () => process.exit(0))); // gRPC channels would hold the process
