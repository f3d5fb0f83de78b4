//! The agent's behaviour policy: built once from the configuration (the fault set and the
//! profile), a plain struct of values that the store, the service and the binding adapters
//! read. Every fault that changes what the agent *does* is translated here, and only here;
//! the faults that change only the *shape* of outgoing JSON live in `crate::shape`.

mod build;
pub(crate) mod features;
pub mod wire_rules;

pub use crate::error::StatusTable;
use crate::error::{GrpcCode, RpcError};

/// Everything the agent decides, as values. `Policy::new(&AgentConfig::default())` is conformant.
#[derive(Debug, Clone)]
pub struct Policy {
    pub tasks: TaskPolicy,
    pub cancel: CancelPolicy,
    pub list: ListPolicy,
    pub subscribe: SubscribePolicy,
    pub streams: StreamPolicy,
    pub service: ServicePolicy,
    pub requests: RequestPolicy,
    pub versions: VersionPolicy,
    pub jsonrpc: JsonRpcPolicy,
    pub rest: RestPolicy,
    pub grpc: GrpcPolicy,
    pub errors: ErrorStatuses,
    pub card: CardPolicy,
    /// Which scenarios of the table the agent plays.
    pub scenarios: ScenarioSet,
    pub isolation: Isolation,
    /// Authenticated mode and the faults of its rules.
    pub auth: features::AuthPolicy,
    /// The required extension and the faults of its rules.
    pub extensions: features::ExtensionPolicy,
    pub tls: TlsPolicy,
    pub http: HttpPolicy,
    /// Content-Type of SSE stream responses (both HTTP bindings).
    pub sse_content_type: &'static str,
    pub wire_rules: wire_rules::WireRules,
}

/// The task lifecycle (read by the store).
#[derive(Debug, Clone)]
pub struct TaskPolicy {
    /// Every new task gets the same id.
    pub reuse_task_id: bool,
    /// Work that fails under a blocking send leaves its task WORKING for good (and the answer
    /// says WORKING).
    pub failed_work_stays_working: bool,
    /// A message to a task in a terminal state runs the task again, under the same id.
    pub terminal_task_restarts: bool,
    /// The message that creates a task is stored twice in its history.
    pub first_message_twice: bool,
    pub client_context_id: ClientContext,
    pub absent_context_id: AbsentContext,
    /// A message naming an unknown task: TaskNotFoundError, or start a new task.
    pub unknown_task_starts_task: bool,
    /// A message to a terminal task: UnsupportedOperationError, or answer with the task.
    pub terminal_task_accepts_message: bool,
    /// A follow-up to an open task continues it, or starts a new one.
    pub follow_up_starts_new_task: bool,
    /// A follow-up naming only a taskId gets the task's contextId, or a fresh one.
    pub follow_up_fresh_context_id: bool,
    /// A follow-up naming only a taskId is stored in the history under a fresh contextId
    /// (the task keeps its own).
    pub follow_up_stored_fresh_context_id: bool,
    pub mismatched_context_id: MismatchedContext,
    /// A blocking SendMessage answers with a WORKING snapshot instead of the final state.
    pub blocking_returns_working: bool,
    /// GetTask answers with the task as it was created.
    pub get_returns_initial: bool,
    /// A terminal status reached while streaming is stored.
    pub streamed_terminal_stored: bool,
    /// The second chunk of a chunked artifact says `append` true (it extends the artifact
    /// either way).
    pub second_chunk_appends: bool,
    /// The last chunk of a chunked artifact has `lastChunk` true.
    pub last_chunk_flagged: bool,
    /// After its chunks, a chunked artifact is sent whole again (`append` false, `lastChunk`
    /// true), and its chunks carry no `lastChunk`.
    pub chunks_replaced_at_end: bool,
}

/// What happens to a contextId the client sent with a new message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientContext {
    Keep,
    Replace,
}

/// What a new task or reply gets when the client sent no contextId.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbsentContext {
    Generate,
    Omit,
}

/// A follow-up whose contextId differs from its task's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MismatchedContext {
    InvalidParams,
    Internal,
    Accept,
}

/// CancelTask (read by the store).
#[derive(Debug, Clone)]
pub struct CancelPolicy {
    /// An unknown id: TaskNotFoundError, or TaskNotCancelableError.
    pub unknown_not_cancelable: bool,
    /// An open task is canceled, or refused with TaskNotCancelableError.
    pub open_refused: bool,
    /// A completed, failed or rejected task.
    pub terminal: CancelTerminal,
    /// A task that is already canceled.
    pub canceled: CancelTerminal,
    /// The cancellation is stored.
    pub stored: bool,
    /// The answer shows the task before the cancellation.
    pub answers_previous_state: bool,
    /// What the task becomes after an answered cancellation: canceled, or completed all the
    /// same (answered CANCELED, or answered as it was).
    pub afterwards: CancelAfterwards,
}

/// What an open task becomes after CancelTask answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelAfterwards {
    /// CANCELED, as answered.
    Canceled,
    /// Answered CANCELED, stored COMPLETED.
    CompletedAnsweredCanceled,
    /// Answered as it was (still open), then COMPLETED.
    CompletedAnsweredAsItWas,
}

/// What CancelTask does with a task in a terminal state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelTerminal {
    /// TaskNotCancelableError (spec 1.0 §3.1.5).
    NotCancelable,
    /// Cancel it anyway (a new CANCELED status).
    Cancel,
    /// Answer with the task unchanged (an idempotent reading).
    ReturnTask,
    /// TaskNotFoundError.
    NotFound,
}

/// ListTasks filters and paging (read by the store).
#[derive(Debug, Clone)]
pub struct ListPolicy {
    pub newest_first: bool,
    pub honours_page_size: bool,
    pub honours_context_filter: bool,
    pub honours_timestamp_filter: bool,
    pub honours_status_filter: bool,
    /// Without `pageSize`, every task in one page (no default page size).
    pub default_page_unbounded: bool,
    /// A `pageSize` over 100 is served as asked, not refused or capped.
    pub ignores_page_size_max: bool,
    /// ListTasks is not offered: every call gets UnsupportedOperationError.
    pub refused: bool,
}

/// SubscribeToTask (read by the store).
#[derive(Debug, Clone)]
pub struct SubscribePolicy {
    /// An unknown id: TaskNotFoundError, or InvalidParams.
    pub unknown_invalid_params: bool,
    /// A terminal task: UnsupportedOperationError, or its snapshot and the end.
    pub terminal_snapshot: bool,
    /// Only the first subscriber gets live events.
    pub first_subscriber_only: bool,
    /// 0.3 `tasks/resubscribe` of a finished task: UnsupportedOperationError.
    pub v03_finished_refused: bool,
    /// ...: an empty stream.
    pub v03_finished_empty: bool,
    /// ...: a snapshot naming another task.
    pub v03_finished_wrong_task: bool,
}

/// The events of a stream (read by the service).
#[derive(Debug, Clone)]
pub struct StreamPolicy {
    /// SendStreamingMessage starts with a statusUpdate instead of the Task.
    pub send_starts_with_status: bool,
    /// A SendStreamingMessage continuing an existing task starts with a WORKING status.
    pub follow_up_starts_with_status: bool,
    /// SubscribeToTask starts with a statusUpdate instead of the Task.
    pub subscribe_starts_with_status: bool,
    /// A Message-only stream sends a statusUpdate after the message.
    pub message_then_status: bool,
    /// The COMPLETED status is sent before the WORKING one.
    pub terminal_before_working: bool,
    /// The last chunk of a chunked artifact is sent after the terminal status.
    pub chunk_after_terminal: bool,
    /// SendStreamingMessage stays open after a terminal status.
    pub send_open_after_terminal: bool,
    /// SendStreamingMessage leaves out the TASK_STATE_FAILED status of a task that fails.
    pub send_drops_failed_status: bool,
    /// SendStreamingMessage stays open after an interrupted status.
    pub send_open_after_interrupted: bool,
    /// SubscribeToTask stays open after a terminal status.
    pub subscribe_open_after_terminal: bool,
    /// Subscribers get the live events after the snapshot.
    pub subscribe_live_updates: bool,
}

/// Answers of the service that are not about tasks.
#[derive(Debug, Clone)]
pub struct ServicePolicy {
    pub streaming: Streaming,
    /// GetTask of an unknown id answers `null` instead of TaskNotFoundError.
    pub get_unknown_null: bool,
    /// GetTask with historyLength stores the history it answers (the rest is deleted).
    pub get_trims_store: bool,
    pub history: HistoryWindow,
    /// A blocking SendMessage shows the task's artifacts.
    pub blocking_shows_artifacts: bool,
    /// ListTasks shows artifacts when includeArtifacts is false or absent.
    pub list_shows_artifacts_by_default: bool,
    /// An unknown method: -32601, or -32600.
    pub unknown_method_invalid_request: bool,
    /// Push-config methods: PushNotificationNotSupportedError, or UnsupportedOperationError.
    pub push_answers_unsupported: bool,
    /// Push notifications are declared and served (`AgentConfig::push`; off under the
    /// fault `push-unsupported-wrong-error`, which is about an agent without push).
    pub push: bool,
    /// GetExtendedAgentCard: UnsupportedOperationError, or -32601.
    pub extended_card_method_not_found: bool,
}

/// Whether the agent streams, and how it refuses when it does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streaming {
    On,
    /// The no-streaming profile: UnsupportedOperationError.
    Off,
    /// Streaming refused with -32601 (the `streaming-unsupported-wrong-error` fault).
    OffMethodNotFound,
}

/// Which messages a `historyLength` of n keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryWindow {
    MostRecent,
    Oldest,
    /// historyLength is ignored.
    Everything,
}

/// Media types the agent accepts (the card's `defaultInputModes`).
pub const INPUT_MODES: [&str; 2] = ["text/plain", "application/json"];
/// The media types of an agent that takes JSON only (`accepts-only-data`).
pub const JSON_ONLY: [&str; 1] = ["application/json"];

/// Validation of request params.
#[derive(Debug, Clone)]
pub struct RequestPolicy {
    /// SendMessage without `message`: InvalidParams, or an internal error.
    pub missing_message_internal: bool,
    pub reject_unknown_fields: bool,
    /// Required message fields are checked.
    pub validate_message: bool,
    /// Part media types are checked against the input modes.
    pub check_media_types: bool,
    /// The media types the agent accepts (the card's `defaultInputModes`).
    pub input_modes: &'static [&'static str],
    /// Under 0.3, a follow-up of data parts only is refused.
    pub v03_refuse_data_only_follow_up: bool,
    /// `acceptedOutputModes` is ignored: the answer carries a data part anyway.
    pub ignores_accepted_output_modes: bool,
    /// REST: a non-blocking send of a held task is answered only once the task has ended.
    pub non_blocking_waits_for_completion: bool,
}

/// A2A-Version negotiation.
#[derive(Debug, Clone)]
pub struct VersionPolicy {
    /// Every request is read as 1.0, whatever it says.
    pub always_1_0: bool,
    /// No (or an empty) version means 1.0 instead of 0.3.
    pub missing_means_1_0: bool,
    pub reject_patch: bool,
    /// REST reads the version from the query parameter when there is no header.
    pub query_parameter: bool,
    /// 0.3 methods are served under 1.0.
    pub v03_methods_under_1_0: bool,
    /// 1.0 methods are served under 0.3.
    pub v10_methods_under_0_3: bool,
}

/// The JSON-RPC envelope and batches.
#[derive(Debug, Clone)]
pub struct JsonRpcPolicy {
    /// A body that is not JSON gets -32600 instead of -32700.
    pub parse_error_invalid_request: bool,
    pub check_jsonrpc_member: bool,
    /// An empty batch is answered with `[]`.
    pub empty_batch_array: bool,
    pub batches: bool,
    pub content_type: &'static str,
    /// Written before the JSON of each 0.3 SSE event's data ("" for none).
    pub sse_data_prefix_0_3: &'static str,
}

/// The HTTP+JSON binding.
#[derive(Debug, Clone)]
pub struct RestPolicy {
    pub tenants: bool,
    /// Content-Type of 1.0 success responses.
    pub content_type: &'static str,
    /// Content-Type of 0.3 success responses.
    pub content_type_0_3: &'static str,
    /// HTTP status of a successful SendMessage.
    pub send_status: u16,
    /// Errors are sent with HTTP 200.
    pub errors_with_200: bool,
    pub error_form: RestErrorForm,
    /// Content-Type of 1.0 google.rpc.Status error responses.
    pub error_content_type: &'static str,
}

/// The body of a REST error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestErrorForm {
    /// `{"error": google.rpc.Status}`.
    GoogleStatus,
    /// RFC 9457 `application/problem+json`.
    ProblemJson,
}

/// The gRPC binding.
#[derive(Debug, Clone)]
pub struct GrpcPolicy {
    /// Error statuses carry ErrorInfo.
    pub error_info: bool,
    /// A failing streaming call answers with headers and then the error as the status of
    /// an empty stream, instead of failing up front.
    pub stream_errors_in_stream: bool,
}

/// Error statuses of the REST and gRPC bindings.
#[derive(Debug, Clone)]
pub struct ErrorStatuses {
    pub table: StatusTable,
    /// HTTP status of TaskNotFoundError.
    pub task_not_found_http: u16,
    /// gRPC code of TaskNotFoundError.
    pub task_not_found_grpc: GrpcCode,
}

impl ErrorStatuses {
    fn is_task_not_found(error: &RpcError) -> bool {
        error.code == RpcError::task_not_found("").code
    }

    /// The HTTP status of `error`.
    pub fn http(&self, error: &RpcError) -> u16 {
        if Self::is_task_not_found(error) {
            return self.task_not_found_http;
        }
        error.canonical(self.table).0
    }

    /// The gRPC code of `error`.
    pub fn grpc(&self, error: &RpcError) -> GrpcCode {
        if Self::is_task_not_found(error) {
            return self.task_not_found_grpc;
        }
        error.canonical(self.table).1
    }
}

/// Where and how the card is served.
#[derive(Debug, Clone)]
pub struct CardPolicy {
    pub location: CardLocation,
    pub cache_headers: bool,
    /// Content-Type of the card (application/json; text/html under a fault).
    pub media_type: &'static str,
    /// Which signing rules the card breaks.
    pub signing: features::SigningFaults,
    /// The signature's `jku` is a plain-http URL.
    pub jku_plain_http: bool,
}

/// `--tls` (read where the listener and its certificate are made).
#[derive(Debug, Clone)]
pub struct TlsPolicy {
    /// TLS 1.3 is offered (else TLS 1.2 only).
    pub offers_1_3: bool,
    /// A legacy (TLS 1.0/1.1) ClientHello is answered as if accepted.
    pub accepts_legacy_hello: bool,
    /// HTTPS answers carry Strict-Transport-Security.
    pub hsts: bool,
    /// The card's JSON-RPC interface is a plain-http URL.
    pub http_interface: bool,
}

/// The HTTP answers of every binding.
#[derive(Debug, Clone)]
pub struct HttpPolicy {
    /// JSON answers are encoded in ISO-8859-1 and say so in their Content-Type.
    pub latin1_charset: bool,
}

/// Where the card is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardLocation {
    WellKnown,
    /// Only at the legacy path.
    LegacyOnly,
    /// At the legacy path; the well-known path serves an HTML page.
    LegacyWithHtmlAtWellKnown,
}

/// Which prefixes of the scenario table the agent honours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScenarioSet {
    /// Every scenario of `fixtures/scenarios.json`.
    All,
    /// Only the prefixes of the official TCK's table; any other gets the default.
    Official,
    /// Only the ACTS contract: prefixes in the first text part, messageIds ignored.
    Acts,
    /// No contract, like a product agent: the request's words decide (see
    /// `crate::scenario::Scenarios::product`).
    Product,
}

/// Which requests share the task store.
#[derive(Debug, Clone)]
pub struct Isolation {
    /// REST has a store of its own.
    pub rest_apart: bool,
    /// 0.3 JSON-RPC tasks/get finds only the tasks 0.3 requests made.
    pub v03_reads_own_tasks_only: bool,
}

impl Policy {
    /// Whether the agent streams at all.
    pub fn streams(&self) -> bool {
        self.service.streaming == Streaming::On
    }
}
