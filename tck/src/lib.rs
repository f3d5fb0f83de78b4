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

/// Declares the kit's internal modules: public for its binary and tests, hidden from the docs.
macro_rules! internal {
    ($($module:ident),* $(,)?) => {
        $(
            #[doc(hidden)]
            pub mod $module;
        )*
    };
}

internal! {
    a2a, baseline, builtin, card, card_only, check, checks, compat, contract, ctx, declarations,
    detect,
    destination, diff, drive, durability, evidence, evidence_text, failure, filter, floor, format, html,
    ids, judge, jws, latency, model, output, probe, registry, report, runner, sarif, secrets,
    service_params, shapes, stop, tls_probe, transport, webhook, wire,
}

