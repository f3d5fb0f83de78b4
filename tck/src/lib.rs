//! a2a-tck: the conformance test kit for the Agent2Agent (A2A) protocol.
//!
//! The stable surface is [`api`]: [`api::run`] (or [`api::run_blocking`]) takes
//! [`api::Options`] and returns the [`api::Report`] the `a2a-tck` command writes, and
//! [`api::markdown`], [`api::junit`], [`api::html`] and [`api::sarif`] render it as the
//! command's other reports do. The report's types are re-exported there too; the JSON they
//! serialize to is versioned by its `format_version` (`schemas/report.schema.json`).
//!
//! Every other module is public only so that the kit's own binary, tests and benchmarks can
//! reach it: they are hidden from these docs, carry no stability promise and may change in
//! any release.

#![deny(missing_docs)]

pub mod api;

/// Declares the kit's layers (a folder each, in `tck/src`, lowest first; see ARCHITECTURE.md)
/// and re-exports each layer's modules at the crate's root, so that a module is named
/// `crate::wire` wherever it lives: public for the kit's binary and tests, hidden from these
/// docs.
macro_rules! layers {
    ($($layer:ident: $($module:ident),* ;)*) => {
        $(
            #[doc(hidden)]
            pub mod $layer;
            $(
                #[doc(hidden)]
                pub use $layer::$module;
            )*
        )*
    };
}

layers! {
    facts: a2a, behaviors, destination, drive, ids, jws, model, operation, registry, revision,
        service_params, stop;
    exchange: card, evidence, history, judge, latency, pace, shapes, tls_probe, transport, webhook, wire;
    suite: card_drive, check, checks, contract, ctx, detect, filter, probe, revised;
    reporting: acts_report, baseline, compat, declarations, diff, evidence_text, floor, format, gate, html,
        output, refusals, report, sarif, secrets, site, survey_index;
    run: builtin, card_only, configurations, durability, explore, failure, runner, session;
    client: adapter, calls, card_signing, client_checks, client_runner, plays, reference_client, stage, verdicts;
}
