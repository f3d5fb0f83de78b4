//! A deterministic, scripted A2A 1.0 agent for the a2a-tck conformance kit,
//! serving JSON-RPC 2.0, HTTP+JSON/REST (with SSE streams) and gRPC (h2c, on
//! the same port) over one binding-neutral [`service`]. The same URLs also serve A2A 0.3 ([`v03`]),
//! picked by the `A2A-Version` header (absent = 0.3).
//!
//! The prefix of `message.messageId` picks a scenario from
//! `fixtures/scenarios.json`. With no [`Fault`] the agent is conformant; each
//! fault makes it break exactly one rule, so negative tests can show that the
//! matching check fails (or, for the faults that say so, takes a conformant
//! alternative the kit must accept). The faults reach the code through two seams:
//! the behaviour [`policy`] (values the store, the service and the adapters read) and
//! the `shape` pass over outgoing JSON.

use std::collections::BTreeSet;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::routing::{any, get, post};
use axum::serve::ListenerExt;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

mod auth;
mod card;
mod clock;
mod error;
pub mod extensions;
pub mod fault;
mod grpc;
mod jsonrpc;
mod methods;
mod model;
mod params;
pub mod policy;
pub mod push;
mod quirks;
mod rest;
mod scenario;
pub mod service;
mod shape;
mod signing;
mod sse;
mod store;
mod store_kind;
mod stream;
mod tls;
pub mod v03;
mod v03_codec;
mod version;
mod wire;

pub use error::{FieldViolation, GrpcCode, RpcError};
pub use fault::Fault;
use policy::CardLocation;
pub use service::Version;
pub use store_kind::StoreKind;
pub use v03::{call_proto03, stream_proto03};

/// Path of the JSON-RPC endpoint.
pub const JSONRPC_PATH: &str = "/a2a/jsonrpc";

/// Path of the HTTP+JSON/REST interface (routes are relative to it).
pub const REST_PATH: &str = "/a2a/rest";

/// How the agent behaves. `Default` is fully conformant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentConfig {
    pub faults: BTreeSet<Fault>,
    /// Serve as an agent without the streaming capability (a conformant profile, not a
    /// fault): the card says `streaming: false` and streaming operations get
    /// UnsupportedOperationError.
    pub no_streaming: bool,
    /// Delay every response of every binding by this many milliseconds (0 = none), to
    /// benchmark a slow agent.
    pub delay_ms: u64,
    /// Declare and deliver push notifications (`capabilities.pushNotifications: true`); off,
    /// the push-config operations answer PushNotificationNotSupportedError.
    pub push: bool,
    /// Call webhooks on any host, not only on loopback (127.0.0.0/8, ::1, localhost).
    pub push_allow_any_host: bool,
    /// Authenticated mode: every operation needs `Authorization: Bearer <token>` with one of
    /// these tokens, each one principal with tasks of its own; the card declares the bearer
    /// scheme and an extended card (empty = open, the default).
    pub bearer_tokens: Vec<String>,
    /// In authenticated mode, tokens of a *limited* principal (`--limited-token`): they
    /// authenticate, but the principal may do nothing. Every operation it asks for, the
    /// extended card included, is refused with an authorization error (HTTP 403, gRPC
    /// PERMISSION_DENIED; spec 1.0 §3.3.2). Ignored when `bearer_tokens` is empty.
    pub limited_tokens: Vec<String>,
    /// Declare one extension with `required: true` ([`extensions::REQUIRED_EXTENSION`]) and
    /// refuse 1.0 requests that do not activate it (`--required-extension`).
    pub required_extension: bool,
    /// Serve every binding over TLS with a certificate made at start (`--tls`).
    pub tls: bool,
    /// Where tasks are kept: in memory (default) or in a SQLite file that survives a restart.
    pub store: StoreKind,
}

impl AgentConfig {
    /// A configuration with the given faults.
    pub fn with_faults(faults: impl IntoIterator<Item = Fault>) -> Self {
        AgentConfig {
            faults: faults.into_iter().collect(),
            ..AgentConfig::default()
        }
    }

    /// Adds one fault.
    pub fn with_fault(mut self, fault: Fault) -> Self {
        self.faults.insert(fault);
        self
    }

    /// Whether `fault` is active.
    pub fn has(&self, fault: Fault) -> bool {
        self.faults.contains(&fault)
    }
}

/// The agent behind every binding: its behaviour policy, the shape pass of its outgoing
/// JSON, card and task store. Binding adapters pass it to the [`service`] functions.
pub struct App {
    policy: policy::Policy,
    shape: shape::Shaper,
    card: card::CardDocument,
    store: store::Store,
    /// The extended card, in authenticated mode.
    extended: Option<auth::ExtendedCards>,
    /// Push configs and faults, when push is on.
    push: Option<push::ops::Push>,
    /// Set to true at shutdown; every open stream ends then.
    closing: watch::Sender<bool>,
    /// Tasks one of whose subscriptions was closed by its client (read only under the
    /// fault that ends the other subscriptions then).
    closed_subscriptions: stream::ClosedSubscriptions,
}

impl App {
    /// A fresh agent whose card lists interfaces under `base_url` (`http://host:port`).
    pub fn new(base_url: &str, config: AgentConfig) -> io::Result<App> {
        let policy = policy::Policy::new(&config);
        let shape = shape::Shaper::new(&config);
        let scenarios = scenario::Scenarios::builtin()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
            .only(policy.scenarios);
        let mut store = match &config.store {
            StoreKind::Memory => store::Store::new(policy.clone(), scenarios),
            StoreKind::Sqlite(path) => {
                let forget = store::durable::Forget::of(&config);
                store::durable::Durable::open(path, forget)
                    .and_then(|durable| {
                        store::Store::open(policy.clone(), scenarios, durable, forget)
                    })
                    .map_err(io::Error::other)?
            }
        };
        let push = policy.service.push.then(|| push::ops::Push {
            configs: Arc::default(),
            policy: push::PushPolicy::new(&config),
        });
        if let (Some(push), Some(durable)) = (&push, store.durable()) {
            let forget = push.policy.forgotten_on_restart;
            push.configs
                .persist_to(durable, forget)
                .map_err(io::Error::other)?;
        }
        if let Some(push) = &push {
            let view = wire::TaskView {
                history_length: None,
                window: policy.service.history,
                artifacts: wire::Artifacts::NonEmpty,
            };
            let dispatcher = Arc::new(push::deliver::Dispatcher::new(
                Arc::clone(&push.configs),
                push.policy.clone(),
                view,
            ));
            store = store.with_hook(Arc::new(move |task, event| {
                dispatcher.on_update(task, event)
            }));
        }
        let mut public = card::card_json(base_url, &policy);
        card::extras(&mut public, base_url, &policy);
        Ok(App {
            card: card::CardDocument::new(base_url, &policy, &shape).map_err(io::Error::other)?,
            extended: auth::extended_cards(&public, &policy.auth),
            store,
            push,
            closing: watch::channel(false).0,
            closed_subscriptions: stream::ClosedSubscriptions::default(),
            policy,
            shape,
        })
    }

    /// The push configs, when push is on (a durable store saves and loads them with
    /// [`push::PushStore::snapshot`] and [`push::PushStore::restore`]).
    pub fn push_configs(&self) -> Option<&Arc<push::PushStore>> {
        self.push.as_ref().map(|push| &push.configs)
    }

    /// Ends every open stream (the server is shutting down).
    pub fn close(&self) {
        self.closing.send_replace(true);
    }
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// A server started with [`start`]. Dropping it aborts the server task.
#[derive(Debug)]
pub struct RunningAgent {
    addr: SocketAddr,
    /// `http`, or `https` under `--tls`.
    scheme: &'static str,
    /// The PEM of the CA that signed the TLS certificate (under `--tls`).
    ca_pem: Option<String>,
    /// The CA and certificate served under `--tls`, for a restart to serve again.
    identity: Option<TlsIdentity>,
    /// The agent behind the JSON-RPC interface (and REST, unless isolated by a fault).
    app: Arc<App>,
    /// The agent behind REST.
    rest_app: Arc<App>,
    /// The other principals' agents, in authenticated mode.
    others: Vec<Arc<App>>,
    /// Where the card is served (a fault may move it off the well-known path).
    card_path: &'static str,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
    /// The tasks that release timed held tasks, one per store.
    timers: Vec<JoinHandle<()>>,
}

/// The CA and certificate an agent serves under `--tls` ([`RunningAgent::tls_identity`]),
/// to serve with again after a restart ([`start_with_identity`]).
#[derive(Debug, Clone)]
pub struct TlsIdentity(tls::Material);

/// Binds `addr` (port 0 = ephemeral) and serves the agent in a spawned task.
pub async fn start(addr: SocketAddr, config: AgentConfig) -> io::Result<RunningAgent> {
    start_with_identity(addr, config, None).await
}

/// [`start`], serving under `--tls` with `identity` (an earlier run's) instead of a new CA
/// and certificate, so a client that trusted the earlier run's CA trusts this one.
pub async fn start_with_identity(
    addr: SocketAddr,
    config: AgentConfig,
    identity: Option<TlsIdentity>,
) -> io::Result<RunningAgent> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let tls = if let (true, Some(TlsIdentity(material))) = (config.tls, identity) {
        Some(material)
    } else if config.tls {
        let host = base_url(addr, "https").replace("https://", "");
        let host = host.rsplit_once(':').map_or(host.as_str(), |(h, _)| h);
        let offered = policy::Policy::new(&config).tls;
        Some(tls::material(&offered, host.trim_matches(['[', ']']))?)
    } else {
        None
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    let app = Arc::new(App::new(&base_url(addr, scheme), config.clone())?);
    // REST may have a store of its own.
    let rest_app = if app.policy.isolation.rest_apart {
        let config = AgentConfig {
            store: StoreKind::Memory,
            ..config.clone()
        };
        Arc::new(App::new(&base_url(addr, scheme), config)?)
    } else {
        Arc::clone(&app)
    };
    let location = app.policy.card.location;
    let card_path = match location {
        CardLocation::WellKnown => card::CARD_PATH,
        CardLocation::LegacyOnly | CardLocation::LegacyWithHtmlAtWellKnown => {
            card::LEGACY_CARD_PATH
        }
    };
    let mut router = Router::new()
        .route(card_path, get(card::handle))
        .route(signing::JWKS_PATH, get(card::jwks));
    if location == CardLocation::LegacyWithHtmlAtWellKnown {
        router = router.route(
            card::CARD_PATH,
            get(|| async { axum::response::Html("<html><body>Welcome!</body></html>") }),
        );
    }
    let public = router.with_state(Arc::clone(&app));
    // The principals of authenticated mode after the first (`app`): each a store of its own,
    // under `--store sqlite:PATH` a file of its own beside PATH ([`StoreKind::for_principal`]).
    let mut others = Vec::new();
    let mut router = if config.bearer_tokens.is_empty() {
        public.merge(services(&app, &rest_app))
    } else {
        let mut all = vec![services(&app, &rest_app)];
        for principal in 1..config.bearer_tokens.len() {
            let config = AgentConfig {
                store: config.store.for_principal(principal),
                ..config.clone()
            };
            let other = Arc::new(App::new(&base_url(addr, scheme), config)?);
            all.push(services(&other, &other));
            others.push(other);
        }
        let mut guard =
            auth::Guard::new(config.bearer_tokens.clone(), all, app.policy.auth.clone());
        // The limited principal has services of its own only under the fault that gives it
        // an extended card tailored to it (nothing beyond the public card).
        let tailored = (!config.limited_tokens.is_empty() && app.policy.auth.limited_card_tailored)
            .then(|| {
                let config = AgentConfig {
                    store: config.store.for_principal(config.bearer_tokens.len()),
                    ..config.clone()
                };
                App::new(&base_url(addr, scheme), config).map(|mut limited| {
                    limited.extended = limited.extended.take().map(auth::public_view);
                    Arc::new(limited)
                })
            })
            .transpose()?;
        let limited_service = tailored.as_ref().map(|limited| services(limited, limited));
        others.extend(tailored);
        guard = guard.with_limited(config.limited_tokens.clone(), limited_service);
        let guarded = Router::new()
            .fallback(auth::guard)
            .with_state(Arc::new(guard));
        public.fallback_service(guarded)
    };
    if app.policy.extensions.required {
        let policy = app.policy.extensions.clone();
        router = router.layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                extensions::echo(policy.clone(), request, next)
            },
        ));
    }
    if app.policy.http.latin1_charset {
        router = router.layer(axum::middleware::from_fn(quirks::latin1));
    }
    if tls.is_some() && app.policy.tls.hsts {
        router = router.layer(axum::middleware::from_fn(tls::hsts));
    }
    if config.delay_ms > 0 {
        let delay = Duration::from_millis(config.delay_ms);
        router = router.layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| async move {
                tokio::time::sleep(delay).await;
                next.run(request).await
            },
        ));
    }
    let (shutdown, signal) = oneshot::channel::<()>();
    let mut apps = vec![Arc::clone(&app), Arc::clone(&rest_app)];
    apps.extend(others.iter().cloned());
    let timers = (apps.iter().enumerate())
        .filter(|(i, a)| *i != 1 || !Arc::ptr_eq(a, &app))
        .map(|(_, a)| tokio::spawn(release_timers(Arc::downgrade(a))))
        .collect();
    let listener = match &tls {
        Some(material) => Err(tls::TlsListener::new(listener, material, &app.policy.tls)?),
        None => Ok(listener),
    };
    let identity = tls.clone().map(TlsIdentity);
    let ca_pem = tls.map(|material| material.ca_pem);
    let task = tokio::spawn(async move {
        let shutdown = async move {
            let _ = signal.await;
            // Open streams would hold the graceful shutdown forever.
            apps.iter().for_each(|app| app.close());
        };
        let served = match listener {
            Err(tls_listener) => {
                axum::serve(tls_listener, router)
                    .with_graceful_shutdown(shutdown)
                    .await
            }
            Ok(listener) => {
                // No Nagle delay: HTTP/2 (gRPC) sends small frames that would otherwise
                // wait for the peer's delayed ACK.
                let listener = listener.tap_io(|tcp| {
                    let _ = tcp.set_nodelay(true);
                });
                axum::serve(listener, router)
                    .with_graceful_shutdown(shutdown)
                    .await
            }
        };
        if let Err(e) = served {
            eprintln!("a2a-reference-agent: server error: {e}");
        }
    });
    Ok(RunningAgent {
        addr,
        scheme,
        ca_pem,
        identity,
        app,
        rest_app,
        others,
        card_path,
        shutdown: Some(shutdown),
        task: Some(task),
        timers,
    })
}

/// Releases the timed held tasks of `app`'s store when they are due (ACTS `tck-long-running`
/// completes by itself after a delay); ends with the agent.
async fn release_timers(app: std::sync::Weak<App>) {
    loop {
        let Some(strong) = app.upgrade() else { return };
        let (next, set) = strong.store.next_timer();
        drop(strong);
        match next {
            Some(at) => {
                tokio::select! {
                    () = tokio::time::sleep_until(at) => {}
                    () = set.notified() => {}
                }
            }
            None => set.notified().await,
        }
        let Some(strong) = app.upgrade() else { return };
        strong.store.release_due();
    }
}

/// The operations of every binding (JSON-RPC, REST, gRPC) of one agent.
fn services(app: &Arc<App>, rest_app: &Arc<App>) -> Router {
    let rest = Router::new()
        .route(&format!("{REST_PATH}/{{*path}}"), any(rest::handle))
        .with_state(Arc::clone(rest_app));
    // gRPC shares the port: HTTP/2 requests to /lf.a2a.v1.A2AService/<Rpc>.
    let grpc = a2a_proto::server::router(Arc::new(grpc::GrpcBackend(Arc::clone(app)))).merge(
        a2a_proto::server::router_for(
            a2a_proto::SERVICE_0_3,
            Arc::new(grpc::GrpcBackend03(Arc::clone(app))),
        ),
    );
    Router::new()
        .route(JSONRPC_PATH, post(jsonrpc::handle))
        // Clients that join a base URL ending in `/` post here.
        .route(&format!("{JSONRPC_PATH}/"), post(jsonrpc::handle))
        .with_state(Arc::clone(app))
        .merge(rest)
        .merge(grpc)
}

/// `http://IP:PORT` (or `https`), with an unspecified bind address replaced by loopback.
fn base_url(addr: SocketAddr, scheme: &str) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("{scheme}://{}", SocketAddr::new(ip, addr.port()))
}

impl RunningAgent {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` (`https` under `--tls`).
    pub fn base_url(&self) -> String {
        base_url(self.addr, self.scheme)
    }

    /// Under `--tls`: the PEM of the private CA that signed the agent's certificate, for a
    /// client to trust.
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }

    /// Under `--tls`: the CA and certificate served, for [`start_with_identity`].
    pub fn tls_identity(&self) -> Option<TlsIdentity> {
        self.identity.clone()
    }

    /// The Agent Card URL.
    pub fn card_url(&self) -> String {
        format!("{}{}", self.base_url(), card::CARD_PATH)
    }

    /// Where the card is actually served: the well-known URL, or the legacy one when a
    /// fault moved it there.
    pub fn served_card_url(&self) -> String {
        format!("{}{}", self.base_url(), self.card_path)
    }

    /// The JSON-RPC endpoint URL.
    pub fn jsonrpc_url(&self) -> String {
        format!("{}{}", self.base_url(), JSONRPC_PATH)
    }

    /// The REST interface URL (routes are relative to it).
    pub fn rest_url(&self) -> String {
        format!("{}{}", self.base_url(), REST_PATH)
    }

    /// The agent behind the JSON-RPC interface, for adapters of other bindings
    /// that should share its tasks.
    pub fn app(&self) -> &Arc<App> {
        &self.app
    }

    /// Stops accepting connections and waits for in-flight requests to finish.
    pub async fn shutdown(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for RunningAgent {
    fn drop(&mut self) {
        self.app.close();
        self.rest_app.close();
        self.others.iter().for_each(|app| app.close());
        if let Some(task) = self.task.take() {
            task.abort();
        }
        self.timers.iter().for_each(JoinHandle::abort);
    }
}
