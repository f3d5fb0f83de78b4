//! The HTML report: a well-formed, self-contained page that shows every result of a run with
//! its evidence, escapes what the agent sent, and stays bounded in size; and, in a real
//! headless Chromium, a script that runs without errors and whose filters change what is shown.

use a2a_tck::exchange::evidence::{
    Exchange, RecordedBody, RecordedEvent, RecordedRequest, RecordedResponse,
};
use a2a_tck::reporting::html;
use a2a_tck::reporting::report::Report;
use a2a_tck::run::runner::{self, RunOptions};
use a2a_tck::suite::check::Status;
use scraper::{ElementRef, Html, Selector};

use crate::support::browser;

async fn run_with(faults: &[&str]) -> Report {
    let faults: Vec<_> = faults.iter().map(|f| f.parse().expect("fault")).collect();
    let agent = a2a_tck::run::builtin::start(&faults)
        .await
        .expect("agent starts");
    let mut options = RunOptions::new(&agent.base_url(), &agent.card_url());
    options.builtin = faults.is_empty();
    let report = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    agent.shutdown().await;
    report
}

fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("selector")
}

fn parse(page: &str) -> Html {
    let document = Html::parse_document(page);
    assert!(
        document.errors.is_empty(),
        "HTML parse errors: {:?}",
        document.errors
    );
    document
}

fn text(element: ElementRef<'_>) -> String {
    element.text().collect()
}

/// The page loads nothing: no external script, style, font, image or frame.
fn assert_self_contained(document: &Html) {
    let loading = selector("[src], link, iframe, object, embed, [srcset], [background]");
    if let Some(element) = document.select(&loading).next() {
        panic!("the page loads something: {}", element.html());
    }
    for style in document.select(&selector("style")) {
        let css = text(style);
        assert!(
            !css.contains("url(") && !css.contains("@import"),
            "styles fetch nothing"
        );
    }
}

#[tokio::test]
async fn page_shows_every_result_of_the_builtin_run() {
    let report = run_with(&[]).await;
    let document = parse(&html::page(&report));
    assert_self_contained(&document);
    // Verdict and totals come first.
    let h1 = document.select(&selector("h1")).next().expect("a heading");
    assert!(text(h1).contains(report.verdict.as_str()), "{}", text(h1));
    assert!(document
        .select(&selector("header table.totals"))
        .next()
        .is_some());
    let shown: Vec<ElementRef> = document.select(&selector("details.result")).collect();
    assert_eq!(shown.len(), report.results.len());
    for (element, result) in shown.iter().zip(&report.results) {
        let attr = |name: &str| element.value().attr(name).unwrap_or_default().to_string();
        assert_eq!(attr("data-id"), result.id);
        assert_eq!(attr("data-status"), result.status.as_str());
        assert_eq!(attr("data-level"), result.level.as_str());
        let requirement = element
            .select(&selector("dd.requirement"))
            .next()
            .expect("requirement");
        assert_eq!(text(requirement), result.requirement);
        let spec = element.select(&selector("dd a")).next().expect("spec link");
        assert!(text(spec).contains(&result.section), "{}", text(spec));
        if let Some(reading) = &result.reading {
            let shown = element.select(&selector("dd.reading")).next();
            assert_eq!(shown.map(text).as_deref(), Some(reading.as_str()));
        }
    }
    for name in ["status", "binding", "version", "level"] {
        let css = format!("#filters select[name={name}]");
        assert!(document.select(&selector(&css)).next().is_some(), "{name}");
    }
}

#[tokio::test]
async fn failures_show_requests_responses_and_stream_events_with_times() {
    let report = run_with(&["stream-status-out-of-order"]).await;
    let streamed = report
        .results
        .iter()
        .position(|r| r.status == Status::Fail && r.evidence.iter().any(|e| !e.events.is_empty()))
        .expect("a failed stream check with events");
    let document = parse(&html::page(&report));
    let css = format!("details.result#r{streamed}");
    let element = document.select(&selector(&css)).next().expect("result");
    assert!(element.value().attr("open").is_some(), "failures are open");
    let exchange = &report.results[streamed].evidence[0];
    let request = element
        .select(&selector(".exchange h4.request"))
        .next()
        .expect("request");
    assert!(text(request).contains(&exchange.request.url));
    assert!(element
        .select(&selector(".exchange h4.response"))
        .next()
        .is_some());
    let times: Vec<String> = element
        .select(&selector("table.events td.num"))
        .map(text)
        .collect();
    assert!(!times.is_empty() && times.iter().all(|t| t.ends_with(" ms")));
}

fn exchange(body: &str, events: usize) -> Exchange {
    let recorded = |text: &str| RecordedBody {
        bytes: text.len(),
        json: None,
        text: Some(text.to_string()),
        truncated: false,
    };
    Exchange {
        request: RecordedRequest {
            method: "POST".into(),
            url: "http://127.0.0.1:1/rpc".into(),
            headers: vec![("content-type".into(), "application/json".into())],
            body: Some(recorded("{}")),
        },
        response: Some(RecordedResponse {
            status: 200,
            headers: vec![("x-agent".into(), "</pre><script>alert(1)</script>".into())],
            body: recorded(body),
        }),
        error: None,
        elapsed_ms: 3,
        events: (0..events)
            .map(|i| RecordedEvent {
                at_ms: i as u64,
                event: Some("message".into()),
                data: recorded(body),
            })
            .collect(),
        dropped: None,
    }
}

#[tokio::test]
async fn evidence_is_escaped_and_the_page_is_bounded() {
    let mut report = run_with(&["omit-context-id"]).await;
    let hostile = format!(
        "</script><script>alert(1)</script>{}",
        "x".repeat(60 * 1024)
    );
    let template = report
        .results
        .iter()
        .find(|r| r.status == Status::Fail)
        .expect("a failure")
        .clone();
    for index in 0..400 {
        let mut result = template.clone();
        result.id = format!("{}-{index}", template.id);
        result.evidence = vec![exchange(&hostile, 20); 4];
        report.results.push(result);
    }
    let page = html::page(&report);
    assert!(
        page.len() < 5 * 1024 * 1024,
        "the page is bounded: {} bytes",
        page.len()
    );
    assert!(!page.contains("<script>alert"), "agent text is escaped");
    let document = parse(&page);
    assert_eq!(document.select(&selector("script")).count(), 1);
    assert!(document.select(&selector("#cut-notice")).next().is_some());
    assert_eq!(
        document.select(&selector("details.result")).count(),
        report.results.len(),
        "every result is listed even when its evidence is not"
    );
}

fn visible(dom: &Html) -> usize {
    dom.select(&selector("details.result:not([hidden])"))
        .count()
}

#[tokio::test]
async fn in_a_browser_the_script_runs_cleanly_and_filters_work() {
    let Some(browser) = browser::browser_or_skip() else {
        return;
    };
    let report = run_with(&["omit-context-id"]).await;
    let failed = report
        .results
        .iter()
        .filter(|r| r.status == Status::Fail)
        .count();
    assert!(failed > 0 && failed < report.results.len());
    let dir = std::env::temp_dir().join(format!("a2a-tck-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let page = dir.join("report.html");
    std::fs::write(&page, html::page(&report)).expect("page written");

    let card = (report.results.iter())
        .filter(|r| r.id.starts_with("card.") || r.id.starts_with("push."))
        .count();
    assert!(card > 0 && card < report.results.len());
    for (fragment, expected) in [
        ("", report.results.len()),
        ("#status=FAIL", failed),
        ("#check=card.,push.", card),
    ] {
        let (dom, log) = browser::load(&browser, &dir.join("profile"), &page, fragment).await;
        let body = dom.select(&selector("body")).next().expect("body");
        let attr = |name: &str| body.value().attr(name).map(str::to_string);
        assert_eq!(attr("data-ready").as_deref(), Some("1"), "the script ran");
        assert_eq!(attr("data-errors"), None, "script errors");
        let console = browser::console(&log);
        assert!(console.is_empty(), "console messages: {console:?}");
        assert_eq!(visible(&dom), expected, "results shown with {fragment:?}");
        assert_eq!(attr("data-shown"), Some(expected.to_string()));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
