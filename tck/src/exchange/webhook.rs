//! The kit's webhook receiver: an HTTP server the run owns (started when a push check is
//! planned, dropped with the run) that records every call an agent makes to it. Each check
//! registers its configs under keys of its own (the last path segment of the URL), so
//! concurrent checks never see each other's notifications. Waiting is event-driven (a watch
//! channel ticks on every call) and bounded by a deadline; there is no polling sleep.
//!
//! By default the receiver binds 127.0.0.1 on an ephemeral port and tells the agent
//! `http://127.0.0.1:PORT/a2a-tck/webhook/<key>`. With `--webhook-url URL` (the agent runs
//! elsewhere: a container, another host) the agent is told `URL/<key>` and the receiver binds
//! `--webhook-listen ADDR`, or else `0.0.0.0` on the URL's port.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::Router;
use serde_json::Value;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Largest body the receiver keeps.
const MAX_BODY: usize = 1 << 20;

/// Where the receiver listens and what URL agents are given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookOptions {
    /// The URL agents must call (`--webhook-url`); `None`: the receiver's own loopback URL.
    pub url: Option<String>,
    /// The address to bind (`--webhook-listen`); `None`: 127.0.0.1:0, or 0.0.0.0 on the
    /// port of `url`.
    pub listen: Option<SocketAddr>,
}

/// One call the agent made.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// Header names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The body as JSON, when it is.
    pub json: Option<Value>,
}

impl Delivery {
    /// The value of a header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        (self.headers.iter())
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body, shortened, for evidence.
    pub fn brief(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let mut text: String = text.chars().take(400).collect();
        if self.body.len() > 400 {
            text.push('…');
        }
        text
    }
}

#[derive(Debug, Default)]
struct Inbox {
    by_key: HashMap<String, Vec<Delivery>>,
    /// The keys checks registered, in order, each with its owner (the interface whose check
    /// made it; see [`Webhook::register`]).
    owners: Vec<(String, String)>,
    /// Calls to a path that names no key of the kit (kept count only).
    stray: usize,
    total: usize,
}

#[derive(Debug)]
struct Shared {
    inbox: Mutex<Inbox>,
    tick: watch::Sender<u64>,
}

/// The running receiver. Dropping it stops the server.
#[derive(Debug)]
pub struct Webhook {
    base: String,
    /// The address the receiver is bound to.
    bound: SocketAddr,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

impl Drop for Webhook {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// The path under which the receiver's own URL puts keys.
const PATH: &str = "/a2a-tck/webhook";

async fn receive(State(shared): State<Arc<Shared>>, request: Request) -> StatusCode {
    let key = request
        .uri()
        .path()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let headers: Vec<(String, String)> = (request.headers().iter())
        .map(|(n, v)| {
            let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
            (n.as_str().to_ascii_lowercase(), value)
        })
        .collect();
    let body: Bytes = match axum::body::to_bytes(request.into_body(), MAX_BODY).await {
        Ok(body) => body,
        Err(_) => return StatusCode::PAYLOAD_TOO_LARGE,
    };
    let delivery = Delivery {
        headers,
        json: serde_json::from_slice(&body).ok(),
        body: body.to_vec(),
    };
    {
        let mut inbox = shared.inbox.lock().unwrap_or_else(PoisonError::into_inner);
        inbox.total += 1;
        if key.starts_with("tck-") {
            inbox.by_key.entry(key).or_default().push(delivery);
        } else {
            inbox.stray += 1;
        }
    }
    shared.tick.send_modify(|n| *n += 1);
    StatusCode::OK
}

impl Webhook {
    /// Binds and serves the receiver.
    pub async fn start(options: &WebhookOptions) -> std::io::Result<Webhook> {
        let listen = match (&options.listen, &options.url) {
            (Some(addr), _) => *addr,
            (None, Some(url)) => {
                let parsed = reqwest::Url::parse(url).map_err(|e| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!("--webhook-url {url}: {e}"),
                    )
                })?;
                let port = parsed.port_or_known_default().unwrap_or(80);
                SocketAddr::from(([0, 0, 0, 0], port))
            }
            (None, None) => SocketAddr::from(([127, 0, 0, 1], 0)),
        };
        let listener = tokio::net::TcpListener::bind(listen).await?;
        let bound = listener.local_addr()?;
        let base = match &options.url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => format!("http://{bound}{PATH}"),
        };
        let shared = Arc::new(Shared {
            inbox: Mutex::default(),
            tick: watch::channel(0).0,
        });
        let router = Router::new()
            .fallback(receive)
            .with_state(Arc::clone(&shared));
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Ok(Webhook {
            base,
            bound,
            shared,
            server,
        })
    }

    /// The URL agents are given for `key` (a fresh id of the check: `tck-...`).
    pub fn url_for(&self, key: &str) -> String {
        format!("{}/{key}", self.base)
    }

    /// A URL for `key` on the loopback address, when the receiver answers there but agents
    /// are given a URL on another host (`--webhook-url`): a webhook on a private address
    /// whose calls the kit can see. `None` when the URL agents are given is itself on
    /// loopback (the agent is asked to call loopback for every push check), or the receiver
    /// is bound to one address that is not loopback.
    pub fn loopback_url_for(&self, key: &str) -> Option<String> {
        let host = reqwest::Url::parse(&self.base)
            .ok()?
            .host_str()?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let given_loopback = host == "localhost"
            || host.ends_with(".localhost")
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        let ip = self.bound.ip();
        if given_loopback || !(ip.is_unspecified() || ip.is_loopback()) {
            return None;
        }
        let port = self.bound.port();
        Some(match ip {
            std::net::IpAddr::V4(_) => format!("http://127.0.0.1:{port}{PATH}/{key}"),
            std::net::IpAddr::V6(_) => format!("http://[::1]:{port}{PATH}/{key}"),
        })
    }

    /// The base URL agents are given.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// Registers `key` as made by a check of `owner` (a label of the interface), so that the
    /// calls of every key of an interface can be judged together ([`Webhook::owned_by`]).
    pub fn register(&self, key: &str, owner: &str) {
        let mut inbox = self
            .shared
            .inbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        inbox.owners.push((key.to_string(), owner.to_string()));
    }

    /// Every key registered by `owner`, in registration order, with what arrived for it so far
    /// (empty for a key that had no call).
    pub fn owned_by(&self, owner: &str) -> Vec<(String, Vec<Delivery>)> {
        let inbox = self
            .shared
            .inbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        (inbox.owners.iter())
            .filter(|(_, o)| o == owner)
            .map(|(key, _)| {
                let got = inbox.by_key.get(key).cloned().unwrap_or_default();
                (key.clone(), got)
            })
            .collect()
    }

    /// What arrived for `key` so far.
    pub fn received(&self, key: &str) -> Vec<Delivery> {
        let inbox = self
            .shared
            .inbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        inbox.by_key.get(key).cloned().unwrap_or_default()
    }

    /// How many calls arrived on a path that names no key of the kit (an agent that drops
    /// or rewrites the path it was given).
    pub fn stray(&self) -> usize {
        self.shared
            .inbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .stray
    }

    /// How many calls arrived in the whole run (any key).
    pub fn total(&self) -> usize {
        self.shared
            .inbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .total
    }

    /// Waits until what arrived for `key` satisfies `done`, or `wait` has passed; returns
    /// what arrived either way.
    pub async fn wait_until(
        &self,
        key: &str,
        wait: Duration,
        done: impl Fn(&[Delivery]) -> bool,
    ) -> Vec<Delivery> {
        let deadline = Instant::now() + wait;
        let mut tick = self.shared.tick.subscribe();
        loop {
            tick.borrow_and_update();
            let got = self.received(key);
            if done(&got) {
                return got;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return got;
            }
            match tokio::time::timeout(left, tick.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) | Err(_) => return self.received(key),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_loopback_probe_only_where_agents_are_given_another_host() {
        // The default receiver is on loopback, which agents are given: no probe.
        let own = Webhook::start(&WebhookOptions::default())
            .await
            .expect("binds");
        assert_eq!(own.loopback_url_for("tck-k"), None);
        // Agents given another host, the receiver answering on loopback: a probe there.
        let other = Webhook::start(&WebhookOptions {
            url: Some("http://192.0.2.7:9/hooks".into()),
            listen: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        })
        .await
        .expect("binds");
        let port = other.bound.port();
        assert_eq!(
            other.loopback_url_for("tck-k"),
            Some(format!("http://127.0.0.1:{port}{PATH}/tck-k"))
        );
        // Agents given `localhost`: loopback already, no probe.
        let named = Webhook::start(&WebhookOptions {
            url: Some("http://LocalHost:9/hooks".into()),
            listen: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        })
        .await
        .expect("binds");
        assert_eq!(named.loopback_url_for("tck-k"), None);
    }

    #[tokio::test]
    async fn records_calls_by_key_and_wakes_waiters() {
        let hook = Webhook::start(&WebhookOptions::default())
            .await
            .expect("binds");
        let url = hook.url_for("tck-push-1");
        let client = crate::exchange::wire::client().expect("a client");
        let waiter = hook.wait_until("tck-push-1", Duration::from_secs(5), |d| !d.is_empty());
        let post = client
            .post(&url)
            .header("x-a2a-notification-token", "t")
            .body("{\"a\":1}")
            .send();
        let (got, sent) = tokio::join!(waiter, post);
        assert!(sent.is_ok());
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].header("X-A2A-Notification-Token"), Some("t"));
        assert_eq!(got[0].json, Some(serde_json::json!({"a": 1})));
        let none = hook
            .wait_until("tck-other", Duration::from_millis(20), |d| !d.is_empty())
            .await;
        assert!(none.is_empty());
        // Keys by owner: the calls of each, an empty list for a key without any.
        hook.register("tck-push-1", "jsonrpc 1.0");
        hook.register("tck-other", "jsonrpc 1.0");
        hook.register("tck-push-2", "rest 1.0");
        let owned = hook.owned_by("jsonrpc 1.0");
        let keys: Vec<(&str, usize)> = owned.iter().map(|(k, d)| (k.as_str(), d.len())).collect();
        assert_eq!(keys, [("tck-push-1", 1), ("tck-other", 0)]);
    }
}
