//! Named faults: each one makes the agent break exactly one conformance rule.

use std::str::FromStr;

/// Declares a set of named faults: an enum with one variant per fault, each with its kebab-case
/// name (`--fault NAME`, `--client-fault NAME`) and a sentence saying which rule it breaks;
/// `ALL` in declaration order, `name()`, `description()` and `Display` (the name). The reference
/// agent's [`Fault`]s and the kit's reference client's faults are declared with it, in the same
/// form.
#[macro_export]
macro_rules! declare_faults {
    (
        $(#[$meta:meta])*
        pub enum $set:ident {
            $($variant:ident => $name:literal, $description:literal;)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $set {
            $(#[doc = $description] $variant,)+
        }

        impl $set {
            /// Every fault, in declaration order.
            pub const ALL: &'static [$set] = &[$($set::$variant,)+];

            /// The kebab-case name used on the command line.
            pub fn name(&self) -> &'static str {
                match self {
                    $($set::$variant => $name,)+
                }
            }

            /// One sentence saying which rule the fault breaks.
            pub fn description(&self) -> &'static str {
                match self {
                    $($set::$variant => $description,)+
                }
            }
        }

        impl ::std::fmt::Display for $set {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

declare_faults! {
    /// A single rule the reference agent can be told to break (`--fault NAME`).
    pub enum Fault {
        CardOnlyAtLegacyPath => "card-only-at-legacy-path",
            "The Agent Card is missing at /.well-known/agent-card.json and only served at the legacy /.well-known/agent.json.";
        CardMissingRequiredField => "card-missing-required-field",
            "The Agent Card omits the required `description` field.";
        CardBadInterface => "card-bad-interface",
            "The Agent Card lists an extra interface with a relative URL and no protocolVersion.";
        CardPatchVersion => "card-patch-version",
            "The JSON-RPC interface declares protocolVersion \"1.0.0\" instead of the Major.Minor form \"1.0\".";
        CardNoCacheHeaders => "card-no-cache-headers",
            "The Agent Card is served without Cache-Control and ETag headers.";
        CardServedAsHtml => "card-served-as-html",
            "The Agent Card's JSON body is served with Content-Type text/html instead of application/json.";
        CardInterfaceUnknownVersion => "card-interface-unknown-version",
            "The Agent Card lists an extra JSON-RPC interface whose protocolVersion is \"2.7\", a version A2A does not define.";
        CardSignatureBad => "card-signature-bad",
            "The Agent Card's signature is computed over other bytes than its canonical form.";
        CardSignatureNoKid => "card-signature-no-kid",
            "The protected header of the Agent Card's signature has no `kid`.";
        CardSignatureTypJwt => "card-signature-typ-jwt",
            "The protected header of the Agent Card's signature says `typ: \"JWT\"` instead of \"JOSE\".";
        CardSignatureUnknownKey => "card-signature-unknown-key",
            "The JWK Set named by the signature's `jku` does not hold the signing key: it serves another key, under another kid.";
        SendResultUnwrapped => "send-result-unwrapped",
            "SendMessage returns the bare Task or Message instead of the {\"task\"}/{\"message\"} wrapper.";
        BlockingReturnsWorking => "blocking-returns-working",
            "A blocking SendMessage returns a TASK_STATE_WORKING snapshot instead of the final or interrupted state.";
        ReuseTaskId => "reuse-task-id",
            "Every new task gets the same id, task-000001, overwriting the previous task.";
        OmitContextId => "omit-context-id",
            "Tasks and Messages carry no contextId when the client did not send one.";
        ReplaceContextId => "replace-context-id",
            "A client-provided contextId is ignored and replaced with a generated one.";
        UnknownTaskIdCreatesTask => "unknown-task-id-creates-task",
            "A message naming an unknown taskId starts a new task instead of failing with TaskNotFoundError.";
        TerminalTaskAcceptsMessage => "terminal-task-accepts-message",
            "A message to a task in a terminal state is accepted instead of failing with UnsupportedOperationError.";
        FollowUpStartsNewTask => "follow-up-starts-new-task",
            "A follow-up message to an open task creates a new task instead of continuing it.";
        FollowUpNewContextId => "follow-up-new-context-id",
            "A follow-up naming only taskId is given a freshly generated contextId instead of the task's.";
        FollowUpStoredWithFreshContext => "follow-up-stored-with-fresh-context",
            "A follow-up naming only taskId continues the task in its context, but is stored in the task's history under a freshly generated contextId.";
        AcceptMismatchedContextId => "accept-mismatched-context-id",
            "A follow-up whose contextId differs from the task's is processed instead of rejected.";
        OmitStatusState => "omit-status-state",
            "Task status objects lack the required `state` field.";
        MessageMissingMessageId => "message-missing-message-id",
            "Direct Message responses omit the required `messageId` field.";
        ArtifactMissingId => "artifact-missing-id",
            "Artifacts omit the required `artifactId` field.";
        SnakeCaseFields => "snake-case-fields",
            "Task JSON uses the proto field name `context_id` instead of the ProtoJSON name `contextId`.";
        LowercaseTaskState => "lowercase-task-state",
            "Task states are spelled in the 0.3 style (`completed`) instead of TASK_STATE_* enum names.";
        TimestampWithOffset => "timestamp-with-offset",
            "Status timestamps end in `+00:00` instead of the `Z` suffix.";
        EmitKindField => "emit-kind-field",
            "Tasks and Messages carry a 0.3-style `kind` discriminator field.";
        GetStaleState => "get-stale-state",
            "GetTask returns the task as it was at creation (TASK_STATE_SUBMITTED) instead of its current state.";
        GetUnknownReturnsNull => "get-unknown-returns-null",
            "GetTask with an unknown id returns a null result instead of TaskNotFoundError.";
        IgnoreHistoryLength => "ignore-history-length",
            "historyLength is ignored and the full history is always returned.";
        CancelReturnsPreviousState => "cancel-returns-previous-state",
            "CancelTask stores the cancellation but returns the task as it was before.";
        CancelNotPersisted => "cancel-not-persisted",
            "CancelTask returns a canceled task but does not store the change.";
        CancelThenCompletes => "cancel-then-completes",
            "CancelTask answers the task CANCELED, and the task is completed all the same: a terminal state that later reads otherwise.";
        CancelIgnored => "cancel-ignored",
            "CancelTask answers success with the task as it is, and the task runs on to COMPLETED: a cancel that does nothing.";
        GetHistoryLengthTrimsStore => "get-history-length-trims-store",
            "GetTask with historyLength trims the stored history to that length: a read that deletes what an earlier read showed.";
        FailedWorkStaysWorking => "failed-work-stays-working",
            "Work that fails (the fail scenario) under a blocking SendMessage leaves its task WORKING for good, and the answer says WORKING.";
        TerminalTaskRestarts => "terminal-task-restarts",
            "A message to a task in a terminal state is taken: the task runs again under the same id (a finished task replaced).";
        FirstMessageStoredTwice => "first-message-stored-twice",
            "The message that creates a task is stored twice in its history.";
        CancelCompletedTaskSucceeds => "cancel-completed-task-succeeds",
            "Canceling a task in a terminal state succeeds instead of failing with TaskNotCancelableError.";
        CancelUnknownReturnsNotCancelable => "cancel-unknown-returns-not-cancelable",
            "CancelTask with an unknown id fails with TaskNotCancelableError instead of TaskNotFoundError.";
        ListOmitsNextPageToken => "list-omits-next-page-token",
            "ListTasks omits `nextPageToken` on the last page instead of sending an empty string.";
        ListIncludesArtifacts => "list-includes-artifacts",
            "ListTasks includes artifacts even when includeArtifacts is false or absent.";
        ListAscending => "list-ascending",
            "ListTasks sorts tasks oldest first instead of most recently updated first.";
        ParseErrorAsInvalidRequest => "parse-error-as-invalid-request",
            "A body that is not JSON gets -32600 instead of the parse error -32700.";
        IgnoreJsonrpcVersion => "ignore-jsonrpc-version",
            "A request whose `jsonrpc` member is not \"2.0\" is processed instead of rejected with -32600.";
        UnknownMethodInvalidRequest => "unknown-method-invalid-request",
            "An unknown method gets -32600 instead of -32601.";
        MissingMessageInternalError => "missing-message-internal-error",
            "SendMessage without `message` gets the internal error -32603 instead of -32602.";
        WrongResponseId => "wrong-response-id",
            "The response id is echoed as a string even when the request id was a number.";
        OmitJsonrpcMember => "omit-jsonrpc-member",
            "Responses omit the `\"jsonrpc\": \"2.0\"` member.";
        TextPlainContentType => "text-plain-content-type",
            "JSON-RPC responses carry Content-Type text/plain instead of application/json.";
        ErrorDataNotArray => "error-data-not-array",
            "Error `data` is a single object instead of an array of typed details.";
        OmitErrorInfo => "omit-error-info",
            "Error responses carry no `data` and so no google.rpc.ErrorInfo.";
        IgnoreVersionHeader => "ignore-version-header",
            "Any A2A-Version header value, or none, is accepted as 1.0.";
        ListIgnoresPageSize => "list-ignores-page-size",
            "ListTasks ignores pageSize and returns every matching task on one page with an empty nextPageToken.";
        ListIgnoresContextFilter => "list-ignores-context-filter",
            "ListTasks ignores the contextId filter and returns tasks of every context.";
        ListOmitsTotalSize => "list-omits-total-size",
            "ListTasks omits the `totalSize` and `pageSize` fields from its response.";
        StreamingUnsupportedWrongError => "streaming-unsupported-wrong-error",
            "With streaming turned off (the card says false), SendStreamingMessage and SubscribeToTask answer -32601 (method not found) instead of UnsupportedOperationError -32004.";
        PushUnsupportedWrongError => "push-unsupported-wrong-error",
            "The push-notification-config methods answer UnsupportedOperationError -32004 instead of PushNotificationNotSupportedError -32003.";
        ExtendedCardUnsupportedWrongError => "extended-card-unsupported-wrong-error",
            "GetExtendedAgentCard answers -32601 (method not found) instead of UnsupportedOperationError -32004.";
        RejectPatchVersion => "reject-patch-version",
            "An A2A-Version header with a patch number (1.0.3) is rejected with VersionNotSupportedError instead of treated as 1.0.";
        MissingVersionAs10 => "missing-version-as-1-0",
            "A request with no or an empty A2A-Version header is processed as 1.0 instead of as 0.3 (on the 1.0-only gRPC service: instead of failing with VersionNotSupportedError).";
        BlockingOmitsArtifacts => "blocking-omits-artifacts",
            "A blocking SendMessage returns the task without its artifacts, although the stored task has them.";
        HistoryOldestFirst => "history-oldest-first",
            "A historyLength of n > 0 returns the n oldest messages instead of the n most recent.";
        CancelOpenTaskNotCancelable => "cancel-open-task-not-cancelable",
            "CancelTask on an open (non-terminal) task fails with TaskNotCancelableError instead of canceling it.";
        MismatchedContextInternalError => "mismatched-context-internal-error",
            "A follow-up whose contextId differs from its task's gets the internal error -32603 instead of -32602.";
        MessageOmitsContextId => "message-omits-context-id",
            "Direct Message responses omit `contextId` (Tasks keep theirs).";
        NestedMessageMissingRole => "nested-message-missing-role",
            "Agent messages inside a task (`status.message` and agent entries of `history`) omit the required `role` field.";
        HistoryAgentMessageEmptyParts => "history-agent-message-empty-parts",
            "Agent messages in the history of input-required and failed tasks have empty `parts` (the status message keeps its parts).";
        CardWellKnownServesHtml => "card-well-known-serves-html",
            "The well-known card URI answers 200 with an HTML page; the card is only at /.well-known/agent.json.";
        AcceptUnsupportedMediaType => "accept-unsupported-media-type",
            "A part whose mediaType the agent does not accept is processed instead of failing with ContentTypeNotSupportedError.";
        AcceptInvalidMessage => "accept-invalid-message",
            "A message missing REQUIRED fields (messageId, role, parts) is processed instead of failing with InvalidParams.";
        RejectUnknownFields => "reject-unknown-fields",
            "A message carrying a field the agent does not know is rejected with InvalidParams instead of the field being ignored.";
        ListIgnoresTimestampFilter => "list-ignores-timestamp-filter",
            "ListTasks ignores statusTimestampAfter and returns older tasks too.";
        ListIgnoresStatusFilter => "list-ignores-status-filter",
            "ListTasks ignores its status filter and returns tasks in every state.";
        ListRefused => "list-refused",
            "Not a violation of a keyworded sentence: ListTasks is refused with UnsupportedOperationError on every binding (the agent does not offer it), so the checks of its answers cannot be judged.";
        StreamFirstEventStatusUpdate => "stream-first-event-status-update",
            "Task streams start with a statusUpdate instead of the Task.";
        StreamFollowUpStartsWithStatus => "stream-follow-up-starts-with-status",
            "A SendStreamingMessage that continues an existing task starts with a WORKING statusUpdate instead of the Task (new tasks still start with the Task).";
        StreamMessageThenMore => "stream-message-then-more",
            "A Message-only stream sends a second event (a statusUpdate) after the message.";
        StreamStatusOutOfOrder => "stream-status-out-of-order",
            "A task stream sends its COMPLETED status before its WORKING status.";
        StreamOpenAfterTerminal => "stream-open-after-terminal",
            "A SendStreamingMessage stream stays open after the terminal event.";
        StreamOpenAfterInterrupted => "stream-open-after-interrupted",
            "A SendStreamingMessage stream stays open after an INPUT_REQUIRED or AUTH_REQUIRED event.";
        StreamChunkAfterTerminal => "stream-chunk-after-terminal",
            "On SendStreamingMessage, the last chunk of a chunked artifact comes after the terminal status (then the stream closes).";
        StreamChunkNoLastChunk => "stream-chunk-no-last-chunk",
            "The last chunk of a chunked artifact has lastChunk false.";
        StreamChunkAppendWrong => "stream-chunk-append-wrong",
            "The second chunk of a chunked artifact says append false though the task keeps both chunks: a client following the flags loses the first.";
        StreamChunkReplacedAtEnd => "stream-chunk-replaced-at-end",
            "Not a violation: after its chunks, a chunked artifact is sent whole again with append false and lastChunk true (a replacement, which the flags say).";
        StreamFailedStatusDropped => "stream-failed-status-dropped",
            "A SendStreamingMessage stream of a task that fails closes without its TASK_STATE_FAILED status (the last event says WORKING), though GetTask shows FAILED.";
        StreamStateNotStored => "stream-state-not-stored",
            "A stream reports the terminal status but the store keeps TASK_STATE_WORKING, so GetTask afterwards disagrees.";
        SubscribeFirstEventNotTask => "subscribe-first-event-not-task",
            "The first SubscribeToTask event is a statusUpdate instead of the Task.";
        SubscribeNoUpdates => "subscribe-no-updates",
            "Subscribers get the Task snapshot and no later events; the stream just closes when the task ends.";
        SubscribeOpenAfterTerminal => "subscribe-open-after-terminal",
            "A SubscribeToTask stream stays open after the terminal event.";
        SubscribeTerminalAllowed => "subscribe-terminal-allowed",
            "Subscribing to a task in a terminal state returns its snapshot and closes instead of failing with UnsupportedOperationError.";
        SubscribeFirstOnly => "subscribe-first-only",
            "Only the first subscriber of a task receives live events; later subscribers get the snapshot and the stream closes.";
        SubscribeUnknownWrongError => "subscribe-unknown-wrong-error",
            "SubscribeToTask with an unknown id fails with InvalidParams instead of TaskNotFoundError.";
        EmptyBatchReturnsArray => "empty-batch-returns-array",
            "An empty JSON-RPC batch `[]` is answered with an empty array instead of one Invalid Request error.";
        BatchRejected => "batch-rejected",
            "A JSON-RPC batch is refused with one Invalid Request error instead of an array of responses.";
        HistoryReplacesMessageId => "history-replaces-message-id",
            "The client's messages in a task's history carry an id the agent made up instead of the messageId the client sent.";
        IgnoreVersionQuery => "ignore-version-query",
            "The HTTP+JSON `A2A-Version` query parameter is ignored (a request that gives the version only there is read as 0.3).";
        CrossVersionIsolated => "cross-version-isolated",
            "0.3 JSON-RPC tasks/get finds only the tasks made by 0.3 requests, not those made under 1.0.";
        StreamingUndeclared => "streaming-undeclared",
            "The card declares capabilities.streaming false while the agent still streams.";
        SseWrongContentType => "sse-wrong-content-type",
            "Stream responses carry Content-Type application/json although the body is SSE-framed.";
        SseEventsUnwrapped => "sse-events-unwrapped",
            "JSON-RPC stream events are bare StreamResponses without the JSON-RPC response envelope.";
        SseWrongId => "sse-wrong-id",
            "JSON-RPC stream events carry a different id than the request.";
        RestWrongStatus => "rest-wrong-status",
            "REST TaskNotFoundError is answered with HTTP 400 instead of 404.";
        RestErrorNoErrorInfo => "rest-error-no-error-info",
            "REST error bodies have an empty `details` array, so no google.rpc.ErrorInfo.";
        RestErrorProblemJson => "rest-error-problem-json",
            "REST errors are RFC 9457 application/problem+json bodies instead of google.rpc.Status.";
        RestErrorStatusAsProblemJson => "rest-error-status-as-problem-json",
            "REST errors keep their google.rpc.Status body but carry Content-Type application/problem+json instead of application/a2a+json (a SHOULD).";
        RestPlainJsonContentType => "rest-plain-json-content-type",
            "REST success responses use Content-Type application/json instead of application/a2a+json (a SHOULD).";
        RestTextContentType => "rest-text-content-type",
            "REST success responses carry Content-Type text/plain.";
        RestSuccess201 => "rest-success-201",
            "REST POST /message:send answers HTTP 201 instead of 200.";
        RestError200 => "rest-error-200",
            "REST errors are sent with HTTP 200 (the body is still the error object).";
        RestIgnoresTenant => "rest-ignores-tenant",
            "REST routes under a /{tenant} prefix are not served (404).";
        GrpcWrongStatus => "grpc-wrong-status",
            "gRPC TaskNotFound is answered with INVALID_ARGUMENT instead of NOT_FOUND.";
        GrpcNoErrorInfo => "grpc-no-error-info",
            "gRPC errors carry no ErrorInfo in grpc-status-details-bin.";
        CrossBindingIsolated => "cross-binding-isolated",
            "Tasks created over REST are not visible over JSON-RPC/gRPC and vice versa.";
        V03Answers10Shapes => "v03-answers-1-0-shapes",
            "A 0.3 JSON-RPC request is answered with the 1.0 result shapes (the {\"task\"} wrapper, TASK_STATE_* states, no `kind`).";
        V03StateSpelled10 => "v03-state-spelled-1-0",
            "0.3 JSON-RPC task states are spelled as 1.0 enum names (TASK_STATE_COMPLETED) instead of `completed`.";
        V03CanceledSpelledCancelled => "v03-canceled-spelled-cancelled",
            "The 0.3 JSON-RPC canceled state is spelled `cancelled` instead of `canceled`.";
        V03NoKind => "v03-no-kind",
            "0.3 JSON-RPC Tasks, Messages and parts carry no `kind` discriminator.";
        V03MethodUnder10 => "v03-method-under-1-0",
            "A 0.3 method (message/send, or a /v1 REST route) sent with A2A-Version 1.0 is executed instead of failing with method not found.";
        V10MethodUnder03 => "v10-method-under-0-3",
            "A 1.0 method (SendMessage, or a 1.0 REST route) sent without A2A-Version or with 0.3 is executed as 1.0 instead of failing with method not found.";
        V03ProtoStateCancelledOneL => "v03-proto-state-cancelled-one-l",
            "0.3 REST/gRPC ProtoJSON spells the canceled state TASK_STATE_CANCELED (1.0's) instead of the 0.3 proto's TASK_STATE_CANCELLED.";
        V03DataPartRefused => "v03-data-part-refused",
            "Under 0.3, a follow-up message whose only parts are data parts is refused with InvalidParams.";
        V03NoFinal => "v03-no-final",
            "0.3 status-update events carry no `final` member.";
        V03SseRecordSeparator => "v03-sse-record-separator",
            "Each 0.3 JSON-RPC SSE event's data starts with a record-separator byte (0x1E) before the JSON-RPC response.";
        CardOmits03 => "card-omits-0-3",
            "The Agent Card declares only the 1.0 interfaces (no 0.3 interfaces or fields) while the agent still answers 0.3.";
        CancelCanceledReturnsTask => "cancel-canceled-returns-task",
            "A second CancelTask of an already canceled task answers with the canceled Task (the idempotent reading of §3.3.1): a conformant alternative the kit must accept.";
        CancelCanceledNotFound => "cancel-canceled-not-found",
            "A second CancelTask of an already canceled task fails with TaskNotFoundError: a conformant alternative the kit must accept.";
        Errors100Table => "errors-1-0-0-table",
            "REST and gRPC error statuses follow the superseded A2A 1.0.0 mapping table instead of 1.0.1 (e.g. TaskNotCancelable HTTP 409, UnsupportedOperation gRPC UNIMPLEMENTED): superseded text, which the kit must not FAIL.";
        OfficialContractOnly => "official-contract-only",
            "Only the messageId prefixes of the official TCK's table are honoured; every kit-only prefix (tck-long-running, tck-fail-task, ...) gets the default behaviour (complete the task), as most SDK test agents do.";
        PushRefusesAuthentication => "push-refuses-authentication",
            "CreateTaskPushNotificationConfig refuses a config carrying `authentication` with InvalidParams and takes one without, as an agent that reads only another form of it does: the kit must try again without it and still judge the push checks, not a violation of theirs.";
        PlaysNoContract => "plays-no-contract",
            "No scenario contract is played, as by a product agent: messageIds and `tck-` texts mean nothing; a request whose text says `approve` waits in INPUT_REQUIRED for an approval (a data part carrying the `approvalId` of the agent's status message; any other follow-up leaves it waiting), `fail` fails the task, `wait` keeps it WORKING until canceled, anything else completes it: an agent the kit drives only with a drive file, not a violation.";
        AcceptsOnlyData => "accepts-only-data",
            "As `plays-no-contract`, and the agent takes JSON only: its card declares `defaultInputModes: [\"application/json\"]`, and a message with a text part (or any part not JSON) is refused with ContentTypeNotSupportedError; a data part is answered: an agent the kit drives from its card, not a violation.";
        ActsContractOnly => "acts-contract-only",
            "Only the ACTS contract is played: the scenario prefix is read from the start of the first text part (`tck-multi-turn`, `tck-cancel`, `tck-task-failure`, `tck-stream-basic`, ...), messageIds are ignored, and follow-ups are plain text (`done` completes a multi-turn task), as the SDKs' ACTS agents do: a contract the kit must drive, not a violation.";
        GrpcStreamErrorInStream => "grpc-stream-error-in-stream",
            "A failing gRPC streaming call sends response headers and then the error as the status of an empty stream instead of failing up front: a conformant alternative the kit must accept.";
        // --- extensions, service parameters and TLS ---
        ExtensionRequiredNotEnforced => "extension-required-not-enforced",
            "A request that does not activate the card's required extension is processed instead of failing with ExtensionSupportRequiredError.";
        ExtensionVersionDowngrade => "extension-version-downgrade",
            "A request that activates another version of the required extension's URI (e.g. /v2 for /v1) is taken as activating the declared version.";
        ExtensionNotEchoed => "extension-not-echoed",
            "Responses do not list the activated extensions in an A2A-Extensions header.";
        ExtensionUnknownRejected => "extension-unknown-rejected",
            "A request that also names an extension the agent does not know is refused instead of the unknown extension being ignored.";
        ExtensionsFirstValueOnly => "extensions-first-value-only",
            "Only the first URI of a comma-separated A2A-Extensions value is read.";
        GrpcMetadataExtensionsIgnored => "grpc-metadata-extensions-ignored",
            "The 1.0 gRPC service does not read the a2a-extensions metadata, so no gRPC request activates the required extension.";
        TlsNoHsts => "tls-no-hsts",
            "Under --tls, HTTP responses carry no Strict-Transport-Security header.";
        TlsHttpInterface => "tls-http-interface",
            "Under --tls, the card lists its JSON-RPC interfaces with plain http:// URLs.";
        TlsLegacyAccepted => "tls-legacy-accepted",
            "Under --tls, a ClientHello offering only SSLv3, TLS 1.0 or TLS 1.1 is answered with a ServerHello of that version instead of being refused.";
        TlsNo13 => "tls-no-tls13",
            "Under --tls, the agent offers TLS 1.2 only, not TLS 1.3.";
        // --- durable tasks (the SQLite store; each drops one kind of data across a restart) ---
        DurableLosesTasks => "durable-loses-tasks",
            "With --store sqlite, no task is loaded back after a restart: every task acknowledged before it is gone.";
        DurableForgetsHistory => "durable-forgets-history",
            "With --store sqlite, tasks come back after a restart without their history.";
        DurableForgetsArtifacts => "durable-forgets-artifacts",
            "With --store sqlite, tasks come back after a restart without their artifacts.";
        DurableForgetsContexts => "durable-forgets-contexts",
            "With --store sqlite, the contexts the agent knew are not loaded back after a restart, and a message in one of them is refused as naming an unknown contextId.";
        DurableFailsOpenTasks => "durable-fails-open-tasks",
            "With --store sqlite, every task that was not in a terminal state comes back FAILED after a restart (interrupted work is given up), so an input-required task cannot be resumed.";
        PushDefaultIdIsTaskId => "push-default-id-is-task-id",
            "A push config created without an id gets the task id as its id, so a second such config of the task replaces the first (as a2a-sdk does): a conformant reading the kit must accept, since the spec leaves the default id to the agent.";
        DurableForgetsPushConfigs => "durable-forgets-push-configs",
            "With --store sqlite and --push, the push-notification configs are not loaded back after a restart.";
        // --- auth ---
        AuthNotEnforced => "auth-not-enforced",
            "In authenticated mode, requests without credentials are served (as the first principal) instead of refused.";
        AuthWrongTokenAccepted => "auth-wrong-token-accepted",
            "In authenticated mode, a bearer token the agent does not know is accepted (as the first principal).";
        AuthWrongStatus => "auth-wrong-status",
            "In authenticated mode, a request without valid credentials is refused as an internal error (HTTP 500, JSON-RPC -32603 in HTTP 200, gRPC INTERNAL) instead of HTTP 401 / UNAUTHENTICATED.";
        AuthNoChallenge => "auth-no-challenge",
            "In authenticated mode, refusals carry no WWW-Authenticate challenge and name no scheme.";
        AuthPrincipalsShareTasks => "auth-principals-share-tasks",
            "In authenticated mode, every principal sees and acts on the tasks of every other.";
        ExtendedCardWithoutAuth => "extended-card-without-auth",
            "In authenticated mode, the extended agent card is returned to callers without credentials.";
        ExtendedCardNoCacheHeaders => "extended-card-no-cache-headers",
            "In authenticated mode, the extended agent card is served without Cache-Control and ETag headers.";
        ExtendedCardNotACard => "extended-card-not-a-card",
            "In authenticated mode, GetExtendedAgentCard returns an object that is not an Agent Card.";
        AuthRefusesForbidden => "auth-refuses-forbidden",
            "In authenticated mode, refusals are HTTP 403 and gRPC PERMISSION_DENIED, naming the scheme in the message: a defensible alternative (0.3 §4.4 allows 401 or 403) the kit must accept.";
        AuthJsonRpcErrorIn200 => "auth-jsonrpc-error-in-200",
            "In authenticated mode, JSON-RPC refusals are a JSON-RPC error with a custom code (-32010) in HTTP 200: a defensible alternative (the error table leaves the JSON-RPC code custom) the kit must accept.";
        AuthRequiredNoStatusMessage => "auth-required-no-status-message",
            "A task the agent puts in TASK_STATE_AUTH_REQUIRED carries no status message explaining the authorization it needs.";
        ExtendedCardNotConfigured => "extended-card-not-configured",
            "In authenticated mode, the card declares the extended card but none is configured: GetExtendedAgentCard answers ExtendedAgentCardNotConfiguredError, a conformant alternative the kit must accept.";
        ExtendedCardNotConfiguredWrongError => "extended-card-not-configured-wrong-error",
            "In authenticated mode, the card declares the extended card, none is configured, and GetExtendedAgentCard answers UnsupportedOperationError instead of ExtendedAgentCardNotConfiguredError.";
        AuthCardOauthScheme => "auth-card-oauth-scheme",
            "In authenticated mode, the card also declares an OAuth 2.0 client-credentials scheme with an empty scope map (not required by any security requirement): a conformant variant the kit must accept.";
        AuthCardOauthUrlNotUrl => "auth-card-oauth-url-not-url",
            "In authenticated mode, the card also declares an OAuth 2.0 scheme whose tokenUrl is not a URL.";
        LimitedPrincipalAllowed => "limited-principal-allowed",
            "In authenticated mode, the limited principal's requests (--limited-token) are served, as the first principal's, instead of refused with an authorization error.";
        LimitedPrincipal401 => "limited-principal-401",
            "In authenticated mode, the limited principal's requests are refused as unauthenticated (HTTP 401 with a challenge, gRPC UNAUTHENTICATED) instead of with an authorization error (HTTP 403, gRPC PERMISSION_DENIED), although its token is valid.";
        LimitedExtendedCardServed => "limited-extended-card-served",
            "In authenticated mode, the limited principal is given the full extended card (the first principal's); its other requests are refused.";
        LimitedExtendedCardTailored => "limited-extended-card-tailored",
            "In authenticated mode, the limited principal is given an extended card tailored to it, holding nothing beyond the public card (its other requests are refused): a conformant alternative (1.0 §13.3 lets the card depend on the caller) the kit must accept.";
        // --- push ---
        PushConfigCreateNoId => "push-config-create-no-id",
            "CreateTaskPushNotificationConfig answers the config without its `id`.";
        PushConfigGetDropsUrl => "push-config-get-drops-url",
            "GetTaskPushNotificationConfig answers the config without its `url`.";
        PushConfigListDropsLast => "push-config-list-drops-last",
            "ListTaskPushNotificationConfigs leaves out the most recently created config.";
        PushConfigListPageTokenBroken => "push-config-list-page-token-broken",
            "ListTaskPushNotificationConfigs honours pageSize, but its nextPageToken leads back to the first page.";
        PushConfigDeleteNotDeleted => "push-config-delete-not-deleted",
            "DeleteTaskPushNotificationConfig answers success but keeps the config.";
        PushConfigGetUnknownWrongError => "push-config-get-unknown-wrong-error",
            "GetTaskPushNotificationConfig of a config that does not exist answers the internal error -32603 instead of TaskNotFoundError.";
        PushConfigGetUnknownReturnsConfig => "push-config-get-unknown-returns-config",
            "GetTaskPushNotificationConfig of a config that does not exist answers success, a placeholder config of the asked id with no webhook URL, instead of an error.";
        PushConfigDeleteAgainFails => "push-config-delete-again-fails",
            "DeleteTaskPushNotificationConfig of a config already deleted answers the internal error -32603 instead of succeeding again or TaskNotFoundError (a 1.0 violation; 0.3 states no idempotency and names its errors only by example).";
        PushConfigUnknownTaskAccepted => "push-config-unknown-task-accepted",
            "The push-config operations accept a task id that names no task (create stores a config for it) instead of answering TaskNotFoundError.";
        PushInlineConfigIgnored => "push-inline-config-ignored",
            "A push config sent inline in SendMessage's configuration is ignored (nothing is delivered to it).";
        PushPayloadWrongShape => "push-payload-wrong-shape",
            "Webhook calls carry the bare update event (no StreamResponse wrapper on 1.0, no Task on 0.3).";
        PushTokenMissing => "push-token-missing",
            "Webhook calls leave out the config's token (no X-A2A-Notification-Token header).";
        PushAuthCredentialsMissing => "push-auth-credentials-missing",
            "Webhook calls leave out the Authorization header the config's authentication asks for.";
        PushOutOfOrder => "push-out-of-order",
            "Webhook calls of a task's updates are sent out of order (an artifact update after the status that follows it).";
        PushSkipsTerminal => "push-skips-terminal",
            "The webhook is not called for the terminal status of a task.";
        PushOneNotificationAtTerminal => "push-one-notification-at-terminal",
            "The webhook gets one call per task, at its terminal state: the final Task carrying its artifacts (1.0 a StreamResponse `task`, 0.3 the Task), as from an agent that makes the artifact and the terminal state in one step: a conformant alternative the kit must accept.";
        PushAfterDelete => "push-after-delete",
            "A deleted push config is gone from Get and List, but the agent keeps calling its webhook.";
        PushAfterDeleteOnceDelivered => "push-after-delete-once-delivered",
            "A deleted push config that has had at least one webhook call is gone from Get and List, but the agent keeps calling its webhook, as an agent that caches a config once it has used it does (a config deleted before its first call is not called again).";
        PushInlineOutOfOrder => "push-inline-out-of-order",
            "Webhook calls to a push config sent inline with SendMessage go out of order (an artifact update after the terminal status that follows it), as from an agent that delivers to inline configs on a path of their own; calls to configs made with CreateTaskPushNotificationConfig keep their order.";
        PushAcceptsPrivateHost => "push-accepts-private-host",
            "Push configs whose webhook is on a private or link-local address (169.254.169.254, 10.0.0.0/8, ...) are accepted, as with --push-allow-any-host.";
        // --- registry (binding rules and 0.3 wire) ---
        RestIgnoresVersionHeader => "rest-ignores-version-header",
            "The HTTP+JSON binding does not read the A2A-Version HTTP header (only the query parameter), so a request that states its version in the header is taken as 0.3.";
        GrpcIgnoresVersionMetadata => "grpc-ignores-version-metadata",
            "The gRPC binding does not read the a2a-version metadata entry: every call is served as 1.0, whatever version it asks for.";
        RestQuerySnakeCase => "rest-query-snake-case",
            "HTTP+JSON query parameters are read under the proto's snake_case names (page_size, context_id, history_length); the camelCase names are ignored.";
        RestQueryNotDecoded => "rest-query-not-decoded",
            "HTTP+JSON query values are used as sent, without percent-decoding (`%3A` stays `%3A`).";
        StreamOnlyFinal => "stream-only-final",
            "A SendStreamingMessage stream holds back its progress: after the Task it sends only the terminal status, no WORKING status and no artifact update.";
        V03CardUrlTransportMismatch => "v03-card-url-transport-mismatch",
            "The card's 0.3 `url` is the HTTP+JSON endpoint while its `preferredTransport` says JSONRPC (and additionalInterfaces no longer lists the main url).";
        CardLastModifiedMalformed => "card-last-modified-malformed",
            "The Agent Card's Last-Modified header is an RFC 3339 timestamp instead of an HTTP-date.";
        ErrorDetailUntyped => "error-detail-untyped",
            "The google.rpc.BadRequest detail of invalid-params errors has no `@type`.";
        ErrorsWithoutBadRequest => "errors-without-bad-request",
            "Invalid-params errors carry only the ErrorInfo, no google.rpc.BadRequest naming the field.";
        SubscribeCloseEndsOthers => "subscribe-close-ends-others",
            "When a client closes one SubscribeToTask stream, the task's other subscriptions end too (at their next event, which they never receive; each waits, 2 s at most, until the task's other streams have taken the event or ended, so that a closed one is seen closed first).";
        // --- schemas ---
        WireMissingRequiredField => "wire-missing-required-field",
            "Tasks are sent without their REQUIRED `status` (results, stream events, both versions).";
        WirePartTwoMembers => "wire-part-two-members",
            "Text parts of 1.0 messages and artifacts also carry a `url` member: a Part oneof with two members.";
        WireRawNotBase64 => "wire-raw-not-base64",
            "The `raw` bytes of 1.0 file parts are sent as the text `tck!`, which is not base64.";
        WireBadEnumValue => "wire-bad-enum-value",
            "1.0 task states are sent as TASK_STATE_PAUSED, a value outside the TaskState enum.";
        WireOtherVersionField => "wire-other-version-field",
            "1.0 Tasks carry the 0.3 `kind` and 1.0 status updates the 0.3 `final`; 0.3 text parts carry the 1.0 `mediaType`.";
        WireStreamOtherTaskId => "wire-stream-other-task-id",
            "Status-update events of a stream name another task id than the stream's task.";
        // --- planned 0.3 entries (extended-card challenge, OAuth TLS, resubscribe, extensions) ---
        V03ExtendedCardNoChallenge => "v03-extended-card-no-challenge",
            "A 0.3 extended-card request (agent/getAuthenticatedExtendedCard, GET /v1/card) refused for missing credentials carries no WWW-Authenticate header.";
        OauthAuthCodePlainHttp => "oauth-auth-code-plain-http",
            "The card declares an oauth2 scheme whose authorizationCode flow has a plain http:// tokenUrl.";
        V03ResubscribeFinishedWrongTask => "v03-resubscribe-finished-wrong-task",
            "A 0.3 resubscription to a finished task streams a Task with another task's id.";
        V03ExtensionsHeaderIgnored => "v03-extensions-header-ignored",
            "0.3 requests are read for A2A-Extensions only: the 0.3 header X-A2A-Extensions activates nothing.";
        V03ExtensionNotEchoed => "v03-extension-not-echoed",
            "Responses list the activated extensions in A2A-Extensions only, never in the 0.3 header X-A2A-Extensions.";
        V03ResubscribeFinishedRefused => "v03-resubscribe-finished-refused",
            "A 0.3 resubscription to a finished task is refused with UnsupportedOperationError, as 1.0 does (a defensible alternative: 0.3 §7.9 defines resubscription for ongoing tasks).";
        V03ResubscribeFinishedEmpty => "v03-resubscribe-finished-empty",
            "A 0.3 resubscription to a finished task closes with no event (a defensible alternative: 0.3 §7.9 leaves backfill to the implementation).";
        // --- planned10: execution mode, jku, UTF-8, output modes, list page size ---
        NonBlockingWaitsForCompletion => "non-blocking-waits-for-completion",
            "On the HTTP+JSON binding a non-blocking SendMessage (returnImmediately) is answered only once its task has ended: a task held WORKING is run to completion first.";
        JkuPlainHttp => "jku-plain-http",
            "The card signature's `jku` names the JWK Set by an http:// URL even when the agent is served over https.";
        JsonLatin1Charset => "json-latin1-charset",
            "JSON answers (card, JSON-RPC, REST) are sent with `charset=iso-8859-1` and encoded in Latin-1, so a non-ASCII character becomes a byte that is not UTF-8.";
        IgnoresAcceptedOutputModes => "ignores-accepted-output-modes",
            "A SendMessage that accepts only text/plain is answered with a data part beside the text in every artifact.";
        ListIgnoresPageSizeMax => "list-ignores-page-size-max",
            "ListTasks takes a pageSize above 100 as given and returns more than 100 tasks in one page.";
        ListDefaultPageSizeUnbounded => "list-default-page-size-unbounded",
            "ListTasks without pageSize returns every matching task in one page instead of at most 50.";
    }
}

impl Fault {
    /// Every fault, in declaration order.
    pub fn all() -> &'static [Fault] {
        Self::ALL
    }
}

/// Returned when parsing a name that is not a known fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fault `{name}`; valid faults: {}", valid_names())]
pub struct UnknownFault {
    /// The name that was not recognised.
    pub name: String,
}

fn valid_names() -> String {
    Fault::all()
        .iter()
        .map(Fault::name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl FromStr for Fault {
    type Err = UnknownFault;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::all()
            .iter()
            .copied()
            .find(|fault| fault.name() == s)
            .ok_or_else(|| UnknownFault { name: s.to_owned() })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = BTreeSet::new();
        for fault in Fault::all() {
            assert!(seen.insert(fault.name()), "duplicate name {fault}");
            assert_eq!(fault.name().parse::<Fault>(), Ok(*fault));
            assert_eq!(fault.to_string(), fault.name());
            assert!(fault.description().ends_with('.'));
        }
    }

    #[test]
    fn unknown_name_lists_valid_names() {
        let err = "no-such-fault".parse::<Fault>().unwrap_err().to_string();
        assert!(err.contains("no-such-fault"));
        assert!(err.contains("omit-error-info"));
    }
}
