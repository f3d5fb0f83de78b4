//! The target as its cards show it, before any check runs: the cards read (and the card a 1.0
//! client reads), the interfaces the selection keeps and the connections to them, the plan of
//! checks x interfaces, the usability probe of each interface, and the scenario contract.

use std::sync::Arc;

use crate::exchange::card::{self, Cards, FetchedCard, Interface};
use crate::exchange::evidence::Recorder;
use crate::exchange::pace::Pace;
use crate::exchange::transport::Connector;
use crate::exchange::wire::{Limits, Wire};
use crate::suite::check::{Binding, Check, ProtocolVersion, Scope};
use crate::suite::contract::Contract;
use crate::suite::ctx::Ctx;
use crate::suite::probe::probe;

use super::{judges_each_card, Planned, Problem, RunError, RunOptions, Start};

/// The run's connections: the one HTTP client with the user's headers, timing every exchange
/// into the run's latency figures and its pace, and activating the extensions each card
/// requires.
pub(super) struct Wires {
    pub(super) client: crate::exchange::wire::HttpClient,
    pub(super) limits: Limits,
    pub(super) extra: Arc<Vec<(String, String)>>,
    pub(super) timings: Arc<crate::exchange::latency::Timings>,
    pub(super) pace: Arc<Pace>,
    /// Per card, the extensions it requires (a correct client activates them on every
    /// request).
    pub(super) activations: Vec<(Arc<FetchedCard>, Arc<Vec<String>>)>,
}

impl Wires {
    /// A wire that activates no extension (the card reads).
    pub(super) fn plain(&self, recorder: Recorder) -> Wire {
        self.paced(recorder, &self.pace)
    }

    /// A wire that activates no extension, seen by `pace`.
    pub(super) fn paced(&self, recorder: Recorder, pace: &Arc<Pace>) -> Wire {
        let recorder = (recorder.observed_by(self.timings.clone())).observed_by(pace.clone());
        Wire::new(self.client.clone(), self.limits, recorder).with_headers(self.extra.clone())
    }

    /// A wire for an interface of `card`.
    pub(super) fn of(&self, recorder: Recorder, card: &Arc<FetchedCard>) -> Wire {
        self.of_paced(recorder, card, &self.pace)
    }

    /// A wire for an interface of `card`, seen by `pace` (a check's batches go at its pace).
    pub(super) fn of_paced(
        &self,
        recorder: Recorder,
        card: &Arc<FetchedCard>,
        pace: &Arc<Pace>,
    ) -> Wire {
        let activate = (self.activations.iter())
            .find(|(c, _)| Arc::ptr_eq(c, card))
            .map(|(_, a)| a.clone())
            .unwrap_or_default();
        self.paced(recorder, pace).with_extensions(activate)
    }
}

/// The target as its cards show it: the cards, the interfaces they declare (and which of them
/// the selection keeps), and the connections to them.
pub(super) struct TargetSeen {
    pub(super) cards: Cards,
    /// The card read without `A2A-Version`.
    pub(super) fetched: Arc<FetchedCard>,
    pub(super) wires: Wires,
    pub(super) connector: Connector,
    pub(super) declared: Vec<card::DeclaredInterface>,
    /// The declared interfaces the selection keeps.
    pub(super) interfaces: Vec<Interface>,
}

/// Reads the card (and the card a 1.0 client reads) and selects the interfaces.
pub(super) async fn read_target(
    options: &RunOptions,
    start: &Start,
) -> Result<TargetSeen, RunError> {
    let mut wires = Wires {
        client: start.client.clone(),
        limits: options.limits,
        extra: start.extra.clone(),
        timings: start.timings.clone(),
        pace: start.pace.clone(),
        activations: Vec::new(),
    };
    let card_wire = wires.plain(Recorder::default());
    let stop = &options.stop;
    // The card, and at once the card a 1.0 client reads (`A2A-Version: 1.0`): an agent may
    // serve another one. A read of that one that fails, or gives the same card, leaves the
    // run as it is.
    let v1_0_wire = wires.plain(Recorder::default());
    let both = futures::future::join(
        card::fetch(&card_wire, &options.card_url),
        card::fetch_as(&v1_0_wire, &options.card_url, Some(ProtocolVersion::V1_0)),
    );
    let Some((plain, v1_0)) = stop.unless_stopped(both).await else {
        return Err(RunError::Interrupted);
    };
    let fetched = match plain {
        Ok(fetched) => fetched,
        Err(error) => {
            let evidence = card_wire.recorder().take();
            return Err(RunError::Card { error, evidence });
        }
    };
    let v1_0 = v1_0.ok();
    let cards = Cards::assuming(fetched, v1_0, options.assume_version);
    let fetched = cards.plain.clone();
    wires.activations = (cards.all())
        .map(|card| {
            let activate = crate::facts::service_params::required_extensions(&card.json);
            (card.clone(), Arc::new(activate))
        })
        .collect();
    // The run's connections: the HTTP client above, and the gRPC channels made from here on.
    let connector = Connector::trusting(&fetched.url, Arc::new(options.ca_certs.clone()));
    let (mut declared, mut interfaces) = cards.interfaces();
    let (bindings, versions) = (&options.filter.bindings, &options.filter.versions);
    let wanted_binding = |b: Binding| bindings.is_empty() || bindings.contains(&b);
    let wanted_version = |v: ProtocolVersion| versions.is_empty() || versions.contains(&v);
    interfaces.retain(|i| wanted_binding(i.binding) && wanted_version(i.version));
    for entry in declared.iter_mut().filter(|d| d.tested) {
        if entry.binding.is_some_and(|b| !wanted_binding(b)) {
            entry.tested = false;
            entry.reason = Some("not selected (--binding)".into());
        } else if entry.version.is_some_and(|v| !wanted_version(v)) {
            entry.tested = false;
            entry.reason = Some("not selected (--protocol-version)".into());
        }
    }
    Ok(TargetSeen {
        cards,
        fetched,
        wires,
        connector,
        declared,
        interfaces,
    })
}

/// The plan: each selected check on each interface its scope covers (a card check on each
/// card it judges), in catalogue order.
pub(super) fn plan<'a>(selected: &[&'a Check], target: &TargetSeen) -> Vec<Planned<'a>> {
    let mut plan = Vec::new();
    for check in selected {
        match check.scope {
            Scope::Card => {
                for card in target.cards.all() {
                    if Arc::ptr_eq(card, &target.fetched) || judges_each_card(check.id) {
                        plan.push(Planned {
                            check,
                            interface: None,
                            card: card.clone(),
                        });
                    }
                }
            }
            Scope::Interface { bindings, versions } => {
                for interface in &target.interfaces {
                    if bindings.contains(&interface.binding)
                        && versions.contains(&interface.version)
                    {
                        plan.push(Planned {
                            check,
                            interface: Some(interface.clone()),
                            card: target.cards.card_of(interface),
                        });
                    }
                }
            }
            // A check of a client runs on a play of `a2a-tck client`, never on an agent.
            Scope::Play { .. } => {}
        }
    }
    plan
}

/// One probe per planned interface: an interface that does not answer fails every check the
/// same way, so it is found once, with its evidence, and named in the interface list.
pub(super) async fn probe_interfaces(
    target: &mut TargetSeen,
    plan: &[Planned<'_>],
    run_id: &str,
    options: &RunOptions,
) -> Vec<(Interface, Problem)> {
    let planned: Vec<Interface> = (target.interfaces.iter())
        .filter(|i| plan.iter().any(|p| p.interface.as_ref() == Some(*i)))
        .cloned()
        .collect();
    probe_these(target, planned, run_id, options).await
}

/// One probe per interface of `planned`, at once; the unusable ones, with their problems.
pub(super) async fn probe_these(
    target: &mut TargetSeen,
    planned: Vec<Interface>,
    run_id: &str,
    options: &RunOptions,
) -> Vec<(Interface, Problem)> {
    let mut unusable: Vec<(Interface, Problem)> = Vec::new();
    // The probes run at once: against a slow agent, one after another they would add up.
    // Stopped meanwhile, no check runs: no interface is found unusable.
    let probes = futures::future::join_all(planned.iter().map(|interface| {
        let recorder = Recorder::default();
        let card = target.cards.card_of(interface);
        let ctx = Ctx::new(
            card.clone(),
            Some(interface.clone()),
            target.wires.of(recorder.clone(), &card),
            target.connector.clone(),
            &format!("{run_id}-probe"),
        );
        async move { (probe(&ctx).await, recorder) }
    }));
    let probes = options
        .stop
        .unless_stopped(probes)
        .await
        .unwrap_or_default();
    for (interface, (outcome, recorder)) in planned.into_iter().zip(probes) {
        if let Err(crate::suite::probe::Unusable {
            error,
            needs_credentials,
        }) = outcome
        {
            let reason = error.to_string();
            if let Some(entry) = target.declared.iter_mut().find(|d| {
                d.tested
                    && d.binding == Some(interface.binding)
                    && d.version == Some(interface.version)
            }) {
                entry.problem = Some(reason.clone());
                entry.needs_credentials = needs_credentials;
            }
            unusable.push((
                interface,
                Problem {
                    error,
                    evidence: recorder.take(),
                },
            ));
        }
    }
    unusable
}

/// The scenario contract: the requested one, else what the contract probe finds on the
/// usable interfaces. Stopped meanwhile: none, so no check asks anything of the agent, and
/// no contract is reported (the run established none).
pub(super) async fn decide_contract(
    target: &TargetSeen,
    usable: &[Interface],
    run_id: &str,
    options: &RunOptions,
) -> (
    crate::suite::contract::Scenarios,
    Option<crate::suite::contract::ContractReport>,
) {
    let ctx_on = |interface: Interface| {
        let card = target.cards.card_of(&interface);
        Ctx::new(
            card.clone(),
            Some(interface),
            target.wires.of(Recorder::default(), &card),
            target.connector.clone(),
            &format!("{run_id}-contract"),
        )
    };
    if let Some(file) = &options.sut_behaviors {
        let (scenarios, report) =
            crate::suite::detect::declared(Arc::clone(file), options.undeclared);
        return (scenarios, Some(report));
    }
    let decided =
        crate::suite::detect::decide(options.contract, options.drive.clone(), usable, ctx_on);
    match options.stop.unless_stopped(decided).await {
        Some(decided) => decided,
        None => {
            let (scenarios, _) =
                crate::suite::detect::decide(Some(Contract::None), None, &[], ctx_on).await;
            (scenarios, None)
        }
    }
}
