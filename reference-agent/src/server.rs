//! The server: one listener serving every binding (HTTP and gRPC on the same port, TLS when
//! asked), the principals of authenticated mode, and the middleware of the extension, text
//! encoding, HSTS and delay behaviours.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::routing::{any, get, post};
use axum::serve::ListenerExt;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::app::App;
use crate::config::{AgentConfig, JSONRPC_PATH, REST_PATH};
use crate::policy::CardLocation;
use crate::store_kind::StoreKind;
use crate::{auth, card, extensions, grpc, jsonrpc, policy, quirks, rest, signing, tls};

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
        .route(card_path, get(serve_card))
        .route(signing::JWKS_PATH, get(serve_jwks));
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
    if config.work_us > 0 {
        // One request's work at a time, as a single-threaded agent does it.
        let work = Duration::from_micros(config.work_us);
        let turn = Arc::new(tokio::sync::Mutex::new(()));
        router = router.layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let turn = turn.clone();
                async move {
                    {
                        let _mine = turn.lock().await;
                        let started = std::time::Instant::now();
                        while started.elapsed() < work {
                            std::hint::spin_loop();
                        }
                    }
                    next.run(request).await
                }
            },
        ));
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
/// The card, with caching headers (and 304 for a matching `If-None-Match`).
async fn serve_card(
    axum::extract::State(app): axum::extract::State<Arc<App>>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    card::respond(&app.card, &app.policy.card, &headers)
}

/// The JWK Set of the card's signing key.
async fn serve_jwks(
    axum::extract::State(app): axum::extract::State<Arc<App>>,
) -> axum::response::Response {
    card::jwks(&app.card)
}

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
