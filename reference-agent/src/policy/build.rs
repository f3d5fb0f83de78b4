//! Builds the [`Policy`] from a configuration: the one place where each behaviour fault
//! (and the no-streaming profile) becomes a value.

use super::*;
use crate::config::AgentConfig;
use crate::fault::Fault;

/// `faulty` when the fault is active, else `conformant`.
fn pick<T>(faulty_active: bool, faulty: T, conformant: T) -> T {
    if faulty_active {
        faulty
    } else {
        conformant
    }
}

impl Policy {
    /// The policy of `config`.
    pub fn new(config: &AgentConfig) -> Policy {
        let has = |fault| config.faults.contains(&fault);
        let terminal = pick(
            has(Fault::CancelCompletedTaskSucceeds),
            CancelTerminal::Cancel,
            CancelTerminal::NotCancelable,
        );
        let canceled = if has(Fault::CancelCanceledReturnsTask) {
            CancelTerminal::ReturnTask
        } else if has(Fault::CancelCanceledNotFound) {
            CancelTerminal::NotFound
        } else {
            terminal
        };
        let streaming = if has(Fault::StreamingUnsupportedWrongError) {
            Streaming::OffMethodNotFound
        } else if config.no_streaming {
            Streaming::Off
        } else {
            Streaming::On
        };
        Policy {
            tasks: TaskPolicy {
                reuse_task_id: has(Fault::ReuseTaskId),
                first_message_twice: has(Fault::FirstMessageStoredTwice),
                terminal_task_restarts: has(Fault::TerminalTaskRestarts),
                failed_work_stays_working: has(Fault::FailedWorkStaysWorking),
                client_context_id: pick(
                    has(Fault::ReplaceContextId),
                    ClientContext::Replace,
                    ClientContext::Keep,
                ),
                absent_context_id: pick(
                    has(Fault::OmitContextId),
                    AbsentContext::Omit,
                    AbsentContext::Generate,
                ),
                unknown_task_starts_task: has(Fault::UnknownTaskIdCreatesTask),
                terminal_task_accepts_message: has(Fault::TerminalTaskAcceptsMessage),
                follow_up_starts_new_task: has(Fault::FollowUpStartsNewTask),
                follow_up_fresh_context_id: has(Fault::FollowUpNewContextId),
                follow_up_stored_fresh_context_id: has(Fault::FollowUpStoredWithFreshContext),
                mismatched_context_id: if has(Fault::AcceptMismatchedContextId) {
                    MismatchedContext::Accept
                } else if has(Fault::MismatchedContextInternalError) {
                    MismatchedContext::Internal
                } else {
                    MismatchedContext::InvalidParams
                },
                blocking_returns_working: has(Fault::BlockingReturnsWorking),
                get_returns_initial: has(Fault::GetStaleState),
                streamed_terminal_stored: !has(Fault::StreamStateNotStored),
                second_chunk_appends: !has(Fault::StreamChunkAppendWrong),
                last_chunk_flagged: !has(Fault::StreamChunkNoLastChunk),
                chunks_replaced_at_end: has(Fault::StreamChunkReplacedAtEnd),
            },
            cancel: CancelPolicy {
                unknown_not_cancelable: has(Fault::CancelUnknownReturnsNotCancelable),
                open_refused: has(Fault::CancelOpenTaskNotCancelable),
                terminal,
                canceled,
                stored: !has(Fault::CancelNotPersisted),
                answers_previous_state: has(Fault::CancelReturnsPreviousState),
                afterwards: if has(Fault::CancelThenCompletes) {
                    CancelAfterwards::CompletedAnsweredCanceled
                } else if has(Fault::CancelIgnored) {
                    CancelAfterwards::CompletedAnsweredAsItWas
                } else {
                    CancelAfterwards::Canceled
                },
            },
            list: ListPolicy {
                newest_first: !has(Fault::ListAscending),
                honours_page_size: !has(Fault::ListIgnoresPageSize),
                honours_context_filter: !has(Fault::ListIgnoresContextFilter),
                honours_timestamp_filter: !has(Fault::ListIgnoresTimestampFilter),
                honours_status_filter: !has(Fault::ListIgnoresStatusFilter),
                default_page_unbounded: has(Fault::ListDefaultPageSizeUnbounded),
                ignores_page_size_max: has(Fault::ListIgnoresPageSizeMax),
                refused: has(Fault::ListRefused),
            },
            subscribe: SubscribePolicy {
                unknown_invalid_params: has(Fault::SubscribeUnknownWrongError),
                terminal_snapshot: has(Fault::SubscribeTerminalAllowed),
                first_subscriber_only: has(Fault::SubscribeFirstOnly),
                v03_finished_refused: has(Fault::V03ResubscribeFinishedRefused),
                v03_finished_empty: has(Fault::V03ResubscribeFinishedEmpty),
                v03_finished_wrong_task: has(Fault::V03ResubscribeFinishedWrongTask),
            },
            streams: StreamPolicy {
                send_starts_with_status: has(Fault::StreamFirstEventStatusUpdate),
                follow_up_starts_with_status: has(Fault::StreamFollowUpStartsWithStatus),
                subscribe_starts_with_status: has(Fault::SubscribeFirstEventNotTask),
                message_then_status: has(Fault::StreamMessageThenMore),
                terminal_before_working: has(Fault::StreamStatusOutOfOrder),
                chunk_after_terminal: has(Fault::StreamChunkAfterTerminal),
                send_open_after_terminal: has(Fault::StreamOpenAfterTerminal),
                send_drops_failed_status: has(Fault::StreamFailedStatusDropped),
                send_open_after_interrupted: has(Fault::StreamOpenAfterInterrupted),
                subscribe_open_after_terminal: has(Fault::SubscribeOpenAfterTerminal),
                subscribe_live_updates: !has(Fault::SubscribeNoUpdates),
            },
            service: ServicePolicy {
                streaming,
                get_unknown_null: has(Fault::GetUnknownReturnsNull),
                get_trims_store: has(Fault::GetHistoryLengthTrimsStore),
                history: if has(Fault::IgnoreHistoryLength) {
                    HistoryWindow::Everything
                } else if has(Fault::HistoryOldestFirst) {
                    HistoryWindow::Oldest
                } else {
                    HistoryWindow::MostRecent
                },
                blocking_shows_artifacts: !has(Fault::BlockingOmitsArtifacts),
                list_shows_artifacts_by_default: has(Fault::ListIncludesArtifacts),
                unknown_method_invalid_request: has(Fault::UnknownMethodInvalidRequest),
                push_answers_unsupported: has(Fault::PushUnsupportedWrongError),
                push: config.push && !has(Fault::PushUnsupportedWrongError),
                extended_card_method_not_found: has(Fault::ExtendedCardUnsupportedWrongError),
            },
            requests: RequestPolicy {
                missing_message_internal: has(Fault::MissingMessageInternalError),
                reject_unknown_fields: has(Fault::RejectUnknownFields),
                validate_message: !has(Fault::AcceptInvalidMessage),
                check_media_types: !has(Fault::AcceptUnsupportedMediaType),
                input_modes: if has(Fault::AcceptsOnlyData) {
                    &JSON_ONLY
                } else {
                    &INPUT_MODES
                },
                v03_refuse_data_only_follow_up: has(Fault::V03DataPartRefused),
                ignores_accepted_output_modes: has(Fault::IgnoresAcceptedOutputModes),
                non_blocking_waits_for_completion: has(Fault::NonBlockingWaitsForCompletion),
            },
            versions: VersionPolicy {
                always_1_0: has(Fault::IgnoreVersionHeader),
                missing_means_1_0: has(Fault::MissingVersionAs10),
                reject_patch: has(Fault::RejectPatchVersion),
                query_parameter: !has(Fault::IgnoreVersionQuery),
                v03_methods_under_1_0: has(Fault::V03MethodUnder10),
                v10_methods_under_0_3: has(Fault::V10MethodUnder03),
            },
            jsonrpc: JsonRpcPolicy {
                parse_error_invalid_request: has(Fault::ParseErrorAsInvalidRequest),
                check_jsonrpc_member: !has(Fault::IgnoreJsonrpcVersion),
                empty_batch_array: has(Fault::EmptyBatchReturnsArray),
                batches: !has(Fault::BatchRejected),
                content_type: pick(
                    has(Fault::TextPlainContentType),
                    "text/plain",
                    "application/json",
                ),
                sse_data_prefix_0_3: pick(has(Fault::V03SseRecordSeparator), "\u{1e}", ""),
            },
            rest: RestPolicy {
                tenants: !has(Fault::RestIgnoresTenant),
                content_type: if has(Fault::RestTextContentType) {
                    "text/plain"
                } else if has(Fault::RestPlainJsonContentType) {
                    "application/json"
                } else {
                    "application/a2a+json"
                },
                // 0.3 REST: "Content-Type: application/json" (0.3 §3.2.3).
                content_type_0_3: pick(
                    has(Fault::RestTextContentType),
                    "text/plain",
                    "application/json",
                ),
                send_status: pick(has(Fault::RestSuccess201), 201, 200),
                errors_with_200: has(Fault::RestError200),
                error_form: pick(
                    has(Fault::RestErrorProblemJson),
                    RestErrorForm::ProblemJson,
                    RestErrorForm::GoogleStatus,
                ),
                error_content_type: pick(
                    has(Fault::RestErrorStatusAsProblemJson),
                    "application/problem+json",
                    "application/a2a+json",
                ),
            },
            grpc: GrpcPolicy {
                error_info: !has(Fault::GrpcNoErrorInfo),
                stream_errors_in_stream: has(Fault::GrpcStreamErrorInStream),
            },
            errors: ErrorStatuses {
                table: pick(
                    has(Fault::Errors100Table),
                    StatusTable::V1_0_0,
                    StatusTable::V1_0_1,
                ),
                task_not_found_http: pick(has(Fault::RestWrongStatus), 400, 404),
                task_not_found_grpc: pick(
                    has(Fault::GrpcWrongStatus),
                    GrpcCode::InvalidArgument,
                    GrpcCode::NotFound,
                ),
            },
            card: CardPolicy {
                location: if has(Fault::CardWellKnownServesHtml) {
                    CardLocation::LegacyWithHtmlAtWellKnown
                } else if has(Fault::CardOnlyAtLegacyPath) {
                    CardLocation::LegacyOnly
                } else {
                    CardLocation::WellKnown
                },
                cache_headers: !has(Fault::CardNoCacheHeaders),
                media_type: pick(
                    has(Fault::CardServedAsHtml),
                    "text/html",
                    "application/json",
                ),
                signing: features::SigningFaults::from_faults(has),
                jku_plain_http: has(Fault::JkuPlainHttp),
            },
            scenarios: if has(Fault::OfficialContractOnly) {
                ScenarioSet::Official
            } else if has(Fault::ActsContractOnly) {
                ScenarioSet::Acts
            } else if has(Fault::PlaysNoContract) || has(Fault::AcceptsOnlyData) {
                ScenarioSet::Product
            } else {
                ScenarioSet::All
            },
            auth: features::AuthPolicy::new(config),
            extensions: features::ExtensionPolicy::new(config),
            tls: TlsPolicy {
                offers_1_3: !has(Fault::TlsNo13),
                accepts_legacy_hello: has(Fault::TlsLegacyAccepted),
                hsts: !has(Fault::TlsNoHsts),
                http_interface: has(Fault::TlsHttpInterface),
            },
            http: HttpPolicy {
                latin1_charset: has(Fault::JsonLatin1Charset),
            },
            isolation: Isolation {
                rest_apart: has(Fault::CrossBindingIsolated),
                v03_reads_own_tasks_only: has(Fault::CrossVersionIsolated),
            },
            sse_content_type: pick(
                has(Fault::SseWrongContentType),
                "application/json",
                "text/event-stream",
            ),
            wire_rules: wire_rules::WireRules::new(&has),
        }
    }
}
