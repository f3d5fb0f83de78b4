//! The agent behind every binding: its policy, outgoing-JSON pass, card, task store, push
//! and stream signals, made once from its configuration.

use std::io;
use std::sync::Arc;

use tokio::sync::watch;

use crate::config::AgentConfig;
use crate::store_kind::StoreKind;
use crate::{auth, card, parts, policy, push, scenario, shape, store, wire};

/// The agent behind every binding: its behaviour policy, the shape pass of its outgoing
/// JSON, card and task store. Binding adapters pass its parts to the [`crate::service`] functions.
pub struct App {
    pub(crate) policy: policy::Policy,
    pub(crate) shape: shape::Shaper,
    pub(crate) card: card::CardDocument,
    pub(crate) store: store::Store,
    /// The extended card, in authenticated mode.
    pub(crate) extended: Option<auth::ExtendedCards>,
    /// Push configs and faults, when push is on.
    pub(crate) push: Option<push::ops::Push>,
    /// Set to true at shutdown; every open stream ends then.
    pub(crate) closing: watch::Sender<bool>,
    /// Tasks one of whose subscriptions was closed by its client (read only under the
    /// fault that ends the other subscriptions then).
    pub(crate) closed_subscriptions: parts::ClosedSubscriptions,
}

impl App {
    /// The parts its core works with.
    pub(crate) fn core(&self) -> parts::Core<'_> {
        parts::Core {
            policy: &self.policy,
            store: &self.store,
            extended: self.extended.as_ref(),
            push: self.push.as_ref(),
            closing: &self.closing,
            closed_subscriptions: &self.closed_subscriptions,
        }
    }

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
            closed_subscriptions: parts::ClosedSubscriptions::default(),
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
