//! A check that needs a field the agent omitted is UNTESTABLE, never a FAIL of its own rule:
//! under `omit-context-id` the only MUST FAILs are those of the rules the omission breaks
//! (the contextId the agent owes, and the wire schemas that require it).

use crate::support;

use a2a_tck::suite::check::{Level, Status};

#[tokio::test]
async fn an_omitted_context_id_fails_only_the_rules_that_ask_for_it() {
    let agent = a2a_tck::run::builtin::start(&["omit-context-id".parse().expect("a fault")])
        .await
        .expect("the agent starts");
    let report = support::run(&agent.base_url(), &agent.card_url(), "*").await;
    agent.shutdown().await;
    let mut failed: Vec<&str> = (report.results.iter())
        .filter(|r| r.level == Level::Must && r.status == Status::Fail)
        .map(|r| r.id.as_str())
        .collect();
    failed.dedup();
    assert_eq!(
        failed,
        [
            "send.context-id-generated-when-absent",
            "data-model.wire-shape-1-0",
            "data-model.wire-shape-0-3",
        ],
        "{}",
        support::explain(
            &(report.results.iter())
                .filter(|r| r.status == Status::Fail)
                .collect::<Vec<_>>()
        )
    );
    for id in [
        "rest.query-parameters-camel-case",
        "rest.query-values-percent-decoded",
    ] {
        let results = support::results_of(&report, id);
        assert!(
            support::all_have(&results, Status::Untestable),
            "{}",
            support::explain(&results)
        );
    }
}
