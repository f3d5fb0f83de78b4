//! The feature policies: authentication, push notifications, the card's signature, the
//! durable store and extensions each get their values here, built once from the fault set, so that the code
//! of each feature reads values and never the fault set (and this module imports no feature).

use crate::config::AgentConfig;
use crate::fault::Fault;

/// What the authenticated mode does, and which of its rules the faults break.
#[derive(Debug, Clone, Default)]
pub struct AuthPolicy {
    /// Authenticated mode is on (at least one bearer token).
    pub on: bool,
    /// Requests without a token are served (as the first principal).
    pub not_enforced: bool,
    /// Any token is served (as the first principal).
    pub any_token: bool,
    /// Refusals are internal errors (HTTP 500, JSON-RPC -32603, gRPC INTERNAL).
    pub wrong_status: bool,
    /// Refusals carry no challenge and name no scheme.
    pub no_challenge: bool,
    /// Every principal shares the first principal's tasks.
    pub shared_tasks: bool,
    /// The extended card is served without credentials.
    pub card_without_auth: bool,
    /// The extended card comes without caching headers.
    pub card_no_cache: bool,
    /// GetExtendedAgentCard answers something that is not an Agent Card.
    pub card_not_a_card: bool,
    /// The capability is declared but no card is configured: ExtendedAgentCardNotConfiguredError
    /// (a conformant alternative).
    pub card_not_configured: bool,
    /// The same, answered with UnsupportedOperationError.
    pub card_not_configured_wrong_error: bool,
    /// The card also declares an OAuth 2.0 scheme: `Some(token_url)`.
    pub card_oauth: Option<&'static str>,
    /// Refusals are HTTP 403 / gRPC PERMISSION_DENIED (a defensible alternative).
    pub forbidden: bool,
    /// JSON-RPC refusals are a JSON-RPC error with a custom code in HTTP 200 (a defensible
    /// alternative).
    pub jsonrpc_in_200: bool,
    /// A refused 0.3 extended-card request carries no WWW-Authenticate.
    pub v03_card_no_challenge: bool,
    /// The card also declares an oauth2 authorizationCode flow with a plain-http tokenUrl.
    pub card_oauth_code_http: bool,
    /// The limited principal is served (as the first principal).
    pub limited_allowed: bool,
    /// The limited principal is refused as unauthenticated (401, UNAUTHENTICATED).
    pub limited_unauthenticated: bool,
    /// The limited principal is given the full extended card (as the first principal).
    pub limited_card_served: bool,
    /// The limited principal has services of its own and an extended card tailored to it
    /// (nothing beyond the public card): a conformant alternative.
    pub limited_card_tailored: bool,
}

/// What the push faults change.
#[derive(Debug, Clone, Default)]
pub struct PushPolicy {
    pub allow_any_host: bool,
    /// A config carrying `authentication` is refused; one without is taken.
    pub refuses_authentication: bool,
    pub create_no_id: bool,
    pub get_drops_url: bool,
    pub list_drops_last: bool,
    pub page_token_broken: bool,
    pub delete_not_deleted: bool,
    pub get_unknown_internal: bool,
    pub get_unknown_placeholder: bool,
    pub delete_again_internal: bool,
    pub unknown_task_accepted: bool,
    pub inline_ignored: bool,
    pub payload_bare: bool,
    pub token_missing: bool,
    pub auth_missing: bool,
    pub out_of_order: bool,
    pub skips_terminal: bool,
    /// One call per task, at its terminal state, carrying the final Task (a conformant
    /// alternative: one update, one notification).
    pub one_at_terminal: bool,
    pub after_delete: bool,
    /// A deleted config that has had a call keeps being called (one never called does not).
    pub after_delete_once_delivered: bool,
    /// Calls to inline configs hold an artifact update back until after the next call.
    pub inline_out_of_order: bool,
    /// A config created without an id gets the task id (a2a-sdk's default; a second such
    /// config of the task replaces the first): a conformant reading.
    pub default_id_is_task: bool,
    /// On a durable store, the configs are not kept across a restart.
    pub forgotten_on_restart: bool,
}

/// Which of the signing rules the agent breaks.
#[derive(Debug, Clone, Copy, Default)]
pub struct SigningFaults {
    /// The signature is over other bytes than the canonical card.
    pub bad_signature: bool,
    /// The protected header has no `kid`.
    pub no_kid: bool,
    /// The protected header says `typ: "JWT"`.
    pub typ_jwt: bool,
    /// The JWK Set holds another key (another kid) than the signing one.
    pub unknown_key: bool,
}

/// What the `durable-*` faults make a load drop.
#[derive(Debug, Clone, Copy, Default)]
pub struct Forget {
    pub(crate) tasks: bool,
    pub(crate) history: bool,
    pub(crate) artifacts: bool,
    pub(crate) contexts: bool,
    pub(crate) fail_open: bool,
}

/// Whether the agent requires its extension, and which of the extension rules the faults
/// break.
#[derive(Debug, Clone, Default)]
pub struct ExtensionPolicy {
    /// The card declares the extension with `required: true` and requests must activate it.
    pub required: bool,
    /// Only the first value of `A2A-Extensions` is read.
    pub first_value_only: bool,
    /// Another version of the required URI is taken for it.
    pub version_downgrade: bool,
    /// 0.3 requests: `X-A2A-Extensions` is not read.
    pub v03_header_ignored: bool,
    /// An unknown URI is refused instead of ignored.
    pub unknown_rejected: bool,
    /// A request that does not activate the required extension is served anyway.
    pub required_not_enforced: bool,
    /// The response does not list the activated extensions.
    pub not_echoed: bool,
    /// The response lists them under `A2A-Extensions` only, not 0.3's `X-A2A-Extensions`.
    pub v03_not_echoed: bool,
    /// gRPC: the `a2a-extensions` metadata is not read.
    pub grpc_metadata_ignored: bool,
}

impl ExtensionPolicy {
    pub fn new(config: &AgentConfig) -> ExtensionPolicy {
        let has = |fault| config.has(fault);
        ExtensionPolicy {
            required: config.required_extension,
            first_value_only: has(Fault::ExtensionsFirstValueOnly),
            version_downgrade: has(Fault::ExtensionVersionDowngrade),
            v03_header_ignored: has(Fault::V03ExtensionsHeaderIgnored),
            unknown_rejected: has(Fault::ExtensionUnknownRejected),
            required_not_enforced: has(Fault::ExtensionRequiredNotEnforced),
            not_echoed: has(Fault::ExtensionNotEchoed),
            v03_not_echoed: has(Fault::V03ExtensionNotEchoed),
            grpc_metadata_ignored: has(Fault::GrpcMetadataExtensionsIgnored),
        }
    }
}

impl AuthPolicy {
    pub fn new(config: &AgentConfig) -> AuthPolicy {
        let has = |fault| config.faults.contains(&fault);
        AuthPolicy {
            on: !config.bearer_tokens.is_empty(),
            not_enforced: has(Fault::AuthNotEnforced),
            any_token: has(Fault::AuthWrongTokenAccepted),
            wrong_status: has(Fault::AuthWrongStatus),
            no_challenge: has(Fault::AuthNoChallenge),
            shared_tasks: has(Fault::AuthPrincipalsShareTasks),
            card_without_auth: has(Fault::ExtendedCardWithoutAuth),
            card_no_cache: has(Fault::ExtendedCardNoCacheHeaders),
            card_not_a_card: has(Fault::ExtendedCardNotACard),
            card_not_configured: has(Fault::ExtendedCardNotConfigured),
            card_not_configured_wrong_error: has(Fault::ExtendedCardNotConfiguredWrongError),
            card_oauth: if has(Fault::AuthCardOauthUrlNotUrl) {
                Some("the token endpoint")
            } else if has(Fault::AuthCardOauthScheme) {
                Some("https://auth.example.com/oauth2/token")
            } else {
                None
            },
            forbidden: has(Fault::AuthRefusesForbidden),
            jsonrpc_in_200: has(Fault::AuthJsonRpcErrorIn200),
            v03_card_no_challenge: has(Fault::V03ExtendedCardNoChallenge),
            card_oauth_code_http: has(Fault::OauthAuthCodePlainHttp),
            limited_allowed: has(Fault::LimitedPrincipalAllowed),
            limited_unauthenticated: has(Fault::LimitedPrincipal401),
            limited_card_served: has(Fault::LimitedExtendedCardServed),
            limited_card_tailored: has(Fault::LimitedExtendedCardTailored),
        }
    }
}

impl PushPolicy {
    pub fn new(config: &AgentConfig) -> PushPolicy {
        let has = |fault| config.has(fault);
        PushPolicy {
            allow_any_host: config.push_allow_any_host || has(Fault::PushAcceptsPrivateHost),
            refuses_authentication: has(Fault::PushRefusesAuthentication),
            create_no_id: has(Fault::PushConfigCreateNoId),
            get_drops_url: has(Fault::PushConfigGetDropsUrl),
            list_drops_last: has(Fault::PushConfigListDropsLast),
            page_token_broken: has(Fault::PushConfigListPageTokenBroken),
            delete_not_deleted: has(Fault::PushConfigDeleteNotDeleted),
            get_unknown_internal: has(Fault::PushConfigGetUnknownWrongError),
            get_unknown_placeholder: has(Fault::PushConfigGetUnknownReturnsConfig),
            delete_again_internal: has(Fault::PushConfigDeleteAgainFails),
            unknown_task_accepted: has(Fault::PushConfigUnknownTaskAccepted),
            inline_ignored: has(Fault::PushInlineConfigIgnored),
            payload_bare: has(Fault::PushPayloadWrongShape),
            token_missing: has(Fault::PushTokenMissing),
            auth_missing: has(Fault::PushAuthCredentialsMissing),
            out_of_order: has(Fault::PushOutOfOrder),
            skips_terminal: has(Fault::PushSkipsTerminal),
            one_at_terminal: has(Fault::PushOneNotificationAtTerminal),
            after_delete: has(Fault::PushAfterDelete),
            after_delete_once_delivered: has(Fault::PushAfterDeleteOnceDelivered),
            inline_out_of_order: has(Fault::PushInlineOutOfOrder),
            default_id_is_task: has(Fault::PushDefaultIdIsTaskId),
            forgotten_on_restart: has(Fault::DurableForgetsPushConfigs),
        }
    }
}

impl SigningFaults {
    pub fn from_faults(has: impl Fn(Fault) -> bool) -> Self {
        SigningFaults {
            bad_signature: has(Fault::CardSignatureBad),
            no_kid: has(Fault::CardSignatureNoKid),
            typ_jwt: has(Fault::CardSignatureTypJwt),
            unknown_key: has(Fault::CardSignatureUnknownKey),
        }
    }
}

impl Forget {
    pub fn of(config: &AgentConfig) -> Forget {
        Forget {
            tasks: config.has(Fault::DurableLosesTasks),
            history: config.has(Fault::DurableForgetsHistory),
            artifacts: config.has(Fault::DurableForgetsArtifacts),
            contexts: config.has(Fault::DurableForgetsContexts),
            fail_open: config.has(Fault::DurableFailsOpenTasks),
        }
    }

    /// Whether the agent refuses a contextId it does not know (the fault's behaviour).
    pub fn strict_contexts(self) -> bool {
        self.contexts
    }
}
