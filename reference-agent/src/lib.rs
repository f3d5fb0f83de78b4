//! A deterministic, scripted A2A 1.0 agent over JSON-RPC 2.0 for the a2a-tck
//! conformance kit.
//!
//! The prefix of `message.messageId` picks a scenario from
//! `fixtures/scenarios.json`. With no [`Fault`] the agent is conformant; each
//! fault makes it break exactly one rule, so negative tests can show that the
//! matching check fails.

use std::collections::BTreeSet;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

mod card;
mod clock;
mod error;
pub mod fault;
mod jsonrpc;
mod model;
mod params;
mod scenario;
mod store;
mod wire;

pub use fault::Fault;

/// Path of the JSON-RPC endpoint.
pub const JSONRPC_PATH: &str = "/a2a/jsonrpc";

/// How the agent behaves. `Default` is fully conformant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentConfig {
    pub faults: BTreeSet<Fault>,
}

impl AgentConfig {
    /// A configuration with the given faults.
    pub fn with_faults(faults: impl IntoIterator<Item = Fault>) -> Self {
        AgentConfig {
            faults: faults.into_iter().collect(),
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

/// Shared state of the HTTP handlers.
struct App {
    config: AgentConfig,
    card: card::CardDocument,
    store: store::Store,
}

/// A server started with [`start`]. Dropping it aborts the server task.
#[derive(Debug)]
pub struct RunningAgent {
    addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// Binds `addr` (port 0 = ephemeral) and serves the agent in a spawned task.
pub async fn start(addr: SocketAddr, config: AgentConfig) -> io::Result<RunningAgent> {
    let scenarios = scenario::Scenarios::builtin()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let app = Arc::new(App {
        card: card::CardDocument::new(&base_url(addr), &config),
        store: store::Store::new(config.clone(), scenarios),
        config,
    });
    let moved = app.config.has(Fault::CardOnlyAtLegacyPath)
        || app.config.has(Fault::CardWellKnownServesHtml);
    let card_path = if moved {
        card::LEGACY_CARD_PATH
    } else {
        card::CARD_PATH
    };
    let mut router = Router::new().route(card_path, get(card::handle));
    if app.config.has(Fault::CardWellKnownServesHtml) {
        router = router.route(
            card::CARD_PATH,
            get(|| async { axum::response::Html("<html><body>Welcome!</body></html>") }),
        );
    }
    let router = router
        .route(JSONRPC_PATH, post(jsonrpc::handle))
        .with_state(app);
    let (shutdown, signal) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let served = axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = signal.await;
            })
            .await;
        if let Err(e) = served {
            eprintln!("a2a-reference-agent: server error: {e}");
        }
    });
    Ok(RunningAgent {
        addr,
        shutdown: Some(shutdown),
        task: Some(task),
    })
}

/// `http://IP:PORT`, with an unspecified bind address replaced by loopback.
fn base_url(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}", SocketAddr::new(ip, addr.port()))
}

impl RunningAgent {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        base_url(self.addr)
    }

    /// The Agent Card URL.
    pub fn card_url(&self) -> String {
        format!("{}{}", self.base_url(), card::CARD_PATH)
    }

    /// The JSON-RPC endpoint URL.
    pub fn jsonrpc_url(&self) -> String {
        format!("{}{}", self.base_url(), JSONRPC_PATH)
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
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}
