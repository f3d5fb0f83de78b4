//! What a run starts from, for the work that is not a run of checks (exploration,
//! `crate::run::explore`): the cards read and the interfaces selected as a run selects them, every
//! selected interface probed, the scenario contract decided, and a context on any usable
//! interface, keeping its sights of tasks in a history the caller gives.

use std::sync::Arc;

use crate::exchange::card::{FetchedCard, Interface};
use crate::exchange::evidence::Recorder;
use crate::exchange::history::History;
use crate::suite::contract::Scenarios;
use crate::suite::ctx::Ctx;

use super::target::{decide_contract, probe_these, read_target, TargetSeen};
use super::{run_id, RunError, RunOptions, Start};

/// The target, probed, with its contract decided.
pub(crate) struct Prepared {
    target: TargetSeen,
    /// The selected interfaces that answered the probe, in the card's order.
    pub(crate) usable: Arc<Vec<Interface>>,
    /// The selected interfaces that did not, each with why.
    pub(crate) unusable: Vec<(Interface, String)>,
    pub(crate) scenarios: Scenarios,
    /// The id that makes this run's message and task ids its own.
    pub(crate) run_id: String,
    /// The kit's webhook receiver, started when a usable interface's card declares push
    /// notifications.
    webhook: Option<Arc<Result<crate::exchange::webhook::Webhook, String>>>,
}

/// Reads the cards, probes every selected interface and decides the contract, as a run does
/// before its first check; stopped meanwhile: [`RunError::Interrupted`].
pub(crate) async fn prepare(options: &RunOptions) -> Result<Prepared, RunError> {
    let start = Start::new(options)?;
    let mut target = read_target(options, &start).await?;
    let run_id = run_id();
    let selected = target.interfaces.clone();
    let unusable = probe_these(&mut target, selected, &run_id, options).await;
    if options.stop.is_stopped() {
        return Err(RunError::Interrupted);
    }
    let usable: Vec<Interface> = (target.interfaces.iter())
        .filter(|i| !unusable.iter().any(|(u, _)| u == *i))
        .cloned()
        .collect();
    let (scenarios, _) = decide_contract(&target, &usable, &run_id, options).await;
    if options.stop.is_stopped() {
        return Err(RunError::Interrupted);
    }
    let push = (usable.iter())
        .any(|i| target.cards.card_of(i).json["capabilities"]["pushNotifications"] == true);
    let webhook = if push {
        let started = crate::exchange::webhook::Webhook::start(&options.webhook).await;
        Some(Arc::new(started.map_err(|e| e.to_string())))
    } else {
        None
    };
    Ok(Prepared {
        target,
        usable: Arc::new(usable),
        unusable: (unusable.into_iter())
            .map(|(i, problem)| (i, problem.error.to_string()))
            .collect(),
        scenarios,
        run_id,
        webhook,
    })
}

impl Prepared {
    /// The card that declares `interface`.
    pub(crate) fn card_of(&self, interface: &Interface) -> Arc<FetchedCard> {
        self.target.cards.card_of(interface)
    }

    /// A context on `interface` in the namespace `ns`, recording its exchanges into
    /// `recorder` and its sights of tasks into `history`.
    pub(crate) fn ctx(
        &self,
        interface: &Interface,
        recorder: Recorder,
        history: Arc<History>,
        ns: &str,
    ) -> Ctx {
        let card = self.card_of(interface);
        let wire = (self.target.wires)
            .of(recorder, &card)
            .with_history(history);
        Ctx::new(
            card,
            Some(interface.clone()),
            wire,
            self.target.connector.clone(),
            ns,
        )
        .with_interfaces(self.usable.clone())
        .with_scenarios(self.scenarios.fresh())
        .with_webhook(self.webhook.clone())
    }
}
