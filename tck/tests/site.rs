//! `a2a-tck site`, run as a user runs it on two surveys of built-in agents, a fault added to
//! one agent in the second: every page and badge is written, every cell of the matrix links to
//! a report that is there, the badge is well-formed SVG naming the verdict, date and digest of
//! the report it links to, the agent's page tells what broke and since when; and, in a real
//! headless Chromium, the matrix's filters (failing, changed since the last run, by name)
//! change which rows are shown, and a cell's link opens the report filtered to that cell.

use std::path::Path;
use std::process::Command;

use a2a_tck::reporting::survey_index::SurveyIndex;
use scraper::{Html, Selector};

use crate::support::{self, browser, BIN};

fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("selector")
}

fn survey_file(faulty_reference: bool, dead_port: u16) -> String {
    let reference_faults = if faulty_reference {
        r#"faults = ["omit-context-id"]"#
    } else {
        ""
    };
    format!(
        r#"
[defaults]
select = ["card.*", "send.*", "streaming.*"]
deadline = 60

[[agent]]
name = "reference"
target = "builtin"
{reference_faults}

[[agent]]
name = "steady"
target = "builtin"

[[agent]]
name = "No Description"
target = "builtin"
faults = ["card-missing-required-field"]

[[agent]]
name = "dead"
target = "http://127.0.0.1:{dead_port}"
"#
    )
}

fn kit(args: &[&str], dir: &Path) -> std::process::Output {
    let output = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the kit runs");
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        support::stderr(&output)
    );
    output
}

/// The names of the matrix's rows a DOM shows.
fn shown_rows(dom: &Html) -> Vec<String> {
    dom.select(&selector("tbody#agents tr:not([hidden]) th a"))
        .map(|a| a.text().collect())
        .collect()
}

/// The badge: well-formed XML, an `<svg>` with one link; its texts and that link.
fn read_badge(svg: &str) -> (Vec<String>, String) {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(svg);
    let (mut texts, mut href, mut root) = (Vec::new(), None, None);
    loop {
        match reader.read_event().expect("the badge is well-formed XML") {
            Event::Start(element) => {
                let name = String::from_utf8_lossy(element.name().as_ref()).into_owned();
                root.get_or_insert_with(|| name.clone());
                if name == "a" {
                    let attr = element
                        .try_get_attribute("href")
                        .expect("attributes")
                        .expect("the link's href");
                    href = Some(attr.unescape_value().expect("a value").into_owned());
                }
            }
            Event::Text(text) => {
                let text = text.decode().expect("text");
                if !text.trim().is_empty() {
                    texts.push(text.into_owned());
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(root.as_deref(), Some("svg"));
    (texts, href.expect("the badge links somewhere"))
}

#[tokio::test]
async fn two_survey_runs_make_a_site_whose_filters_and_links_work() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let dir = temp.path();
    let dead = support::free_port();
    std::fs::write(dir.join("first.toml"), survey_file(false, dead)).expect("a file");
    std::fs::write(dir.join("second.toml"), survey_file(true, dead)).expect("a file");
    kit(&["survey", "first.toml", "--out", "run1"], dir);
    kit(&["survey", "second.toml", "--out", "run2"], dir);
    // Given newest first: the site orders the runs by when they finished.
    let made = kit(&["site", "run2/index.json", "run1", "--out", "site"], dir);
    assert!(
        support::stderr(&made).contains("4 agent(s) from 2 survey run(s)"),
        "{}",
        support::stderr(&made)
    );
    assert!(
        support::stderr(&made)
            .contains("reports: 8 stored once each (32 file(s) hard-linked, 0 copied), 0 kept"),
        "{}",
        support::stderr(&made)
    );
    // Built again over itself: every report is kept, none linked or copied again.
    let again = kit(&["site", "run1", "run2", "--out", "site"], dir);
    assert!(
        support::stderr(&again)
            .contains("reports: 8 stored once each (0 file(s) hard-linked, 0 copied), 8 kept"),
        "{}",
        support::stderr(&again)
    );
    let site = dir.join("site");
    let first = SurveyIndex::read(&dir.join("run1/index.json")).expect("an index");
    let second = SurveyIndex::read(&dir.join("run2/index.json")).expect("an index");
    // Each report once, under its digest, whichever runs hold it.
    let stored = |index: &SurveyIndex, folder: &str| {
        let entry = (index.agents.iter())
            .find(|e| a2a_tck::reporting::survey_index::folder_of(&e.name) == folder)
            .expect("the agent's entry");
        let digest = entry.report_sha256.as_deref().expect("a digest");
        site.join("reports").join(&digest["sha256:".len()..])
    };

    for folder in ["reference", "steady", "no-description", "dead"] {
        let page = site.join("agents").join(folder).join("index.html");
        assert!(page.is_file(), "{} is missing", page.display());
        let links = Html::parse_document(&std::fs::read_to_string(&page).expect("a page"));
        for index in [&first, &second] {
            let reports = stored(index, folder);
            for file in ["report.html", "report.json", "report.md", "junit.xml"] {
                let path = reports.join(file);
                assert!(path.is_file(), "{} is missing", path.display());
            }
            // Hard-linked from the survey's folder, on one filesystem: no second copy.
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                let run = if std::ptr::eq(index, &first) {
                    "run1"
                } else {
                    "run2"
                };
                let entry = (index.agents.iter())
                    .find(|e| a2a_tck::reporting::survey_index::folder_of(&e.name) == folder)
                    .expect("the agent's entry");
                let source = dir
                    .join(run)
                    .join(entry.report.as_deref().expect("a report"));
                let inode = |p: &Path| std::fs::metadata(p).expect("metadata").ino();
                assert_eq!(inode(&source), inode(&reports.join("report.json")));
            }
            // The agent's history links each run's report where the site keeps it.
            let href = format!(
                "../../reports/{}/report.html",
                reports
                    .file_name()
                    .and_then(|n| n.to_str())
                    .expect("a name")
            );
            assert!(
                (links.select(&selector("#history a")))
                    .any(|a| a.value().attr("href") == Some(href.as_str())),
                "{folder}: no link to {href}"
            );
        }
        let svg =
            std::fs::read_to_string(site.join(format!("badges/{folder}.svg"))).expect("a badge");
        let (texts, href) = read_badge(&svg);
        assert_eq!(href, format!("agents/{folder}/index.html"));
        let entry = (second.agents.iter())
            .find(|e| a2a_tck::reporting::survey_index::folder_of(&e.name) == folder)
            .expect("the agent's entry");
        let digest = &entry.report_sha256.as_deref().expect("a digest")["sha256:".len()..];
        let claim = texts.last().expect("the badge's words");
        assert!(claim.contains(&digest[..8]), "{claim}");
        assert!(claim.contains(&entry.finished_at[..10]), "{claim}");
        let verdict = entry.verdict.expect("a verdict").as_str();
        assert!(claim.starts_with(verdict), "{claim}");
        // The report the badge's digest names is the one the site carries, where the agent's
        // page links it.
        let carried = std::fs::read(site.join("reports").join(digest).join("report.json"))
            .expect("the report");
        let json_href = format!("../../reports/{digest}/report.json");
        assert!(
            (links.select(&selector("dl.meta a")))
                .any(|a| a.value().attr("href") == Some(json_href.as_str())),
            "{folder}: no link to {json_href}"
        );
        assert_eq!(
            a2a_tck::reporting::survey_index::digest(&carried),
            format!("sha256:{digest}")
        );
    }

    // The matrix's rows are written by its script; all.html has them written out, and the
    // browser below checks that the script writes the same.
    let scripted = std::fs::read_to_string(site.join("index.html")).expect("the matrix");
    let scripted = Html::parse_document(&scripted);
    let page = std::fs::read_to_string(site.join("all.html")).expect("the written-out matrix");
    let matrix = Html::parse_document(&page);
    for page in [&scripted, &matrix] {
        assert!(page.errors.is_empty(), "{:?}", page.errors);
        assert!(
            page.select(&selector("[src], link")).next().is_none(),
            "the matrix loads nothing"
        );
    }
    // A parser that runs scripts reads <noscript> as text.
    let noscript: String = (scripted.select(&selector("noscript")).next())
        .expect("a note for a browser without script")
        .text()
        .collect();
    assert!(
        noscript.contains(r#"href="all.html""#),
        "the matrix links its rows written out: {noscript}"
    );
    let rows: Vec<_> = matrix.select(&selector("tbody#agents tr")).collect();
    assert_eq!(rows.len(), 4);
    let flagged = |attr: &str| -> Vec<String> {
        (rows.iter())
            .filter(|r| r.value().attr(attr).is_some())
            .map(|r| r.value().attr("data-name").unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(flagged("data-changed"), ["reference"]);
    assert_eq!(
        flagged("data-failing"),
        ["dead", "no description", "reference"]
    );
    let headings: Vec<String> = (matrix.select(&selector("thead th[scope=col]")))
        .map(|th| th.text().collect())
        .collect();
    for area in ["card", "jsonrpc 1.0", "rest 1.0", "grpc 1.0", "streaming"] {
        assert!(headings.iter().any(|h| h == area), "{area}: {headings:?}");
    }
    // Every cell links to a report the site holds, and says its status in words.
    let mut cells = 0;
    for link in matrix.select(&selector("td.c a")) {
        let href = link.value().attr("href").expect("href");
        let (file, fragment) = href.split_once('#').expect("a filter");
        assert!(site.join(file).is_file(), "{href}");
        assert!(!fragment.is_empty());
        let words: String = link.text().collect();
        assert!(
            ["PASS", "FAIL", "WARN", "N/A", "ERROR", "UNTESTABLE"]
                .iter()
                .any(|s| words.starts_with(s)),
            "{words}"
        );
        cells += 1;
    }
    assert!(cells >= 3 * 5, "{cells} cells");

    let agent = std::fs::read_to_string(site.join("agents/reference/index.html"))
        .expect("the agent's page");
    let agent = Html::parse_document(&agent);
    let history: String = (agent.select(&selector("#history tbody tr")).next())
        .expect("the latest run")
        .text()
        .collect();
    assert!(history.contains("broke"), "{history}");
    assert!(history.contains("send.context-id"), "{history}");
    let failing: String = (agent.select(&selector("#failing")).next())
        .expect("what fails")
        .text()
        .collect();
    assert!(failing.contains("run 2"), "{failing}");
    let snippet: String = (agent.select(&selector("#badge pre code")).next())
        .expect("the Markdown snippet")
        .text()
        .collect();
    assert_eq!(
        snippet,
        "[![A2A: non-conformant](badges/reference.svg)](agents/reference/index.html)"
    );

    let Some(browser) = browser::browser_or_skip() else {
        return;
    };
    let profile = dir.join("profile");
    let matrix_path = site.join("index.html");
    let rows_of = |dom: &Html| -> String {
        (dom.select(&selector("tbody#agents")).next())
            .expect("the rows")
            .html()
    };
    let (written, _) = browser::load(&browser, &profile, &matrix_path, "").await;
    assert_eq!(
        rows_of(&written),
        rows_of(&matrix),
        "the script writes all.html's rows"
    );
    for (fragment, expected) in [
        ("", vec!["dead", "No Description", "reference", "steady"]),
        ("#show=failing", vec!["dead", "No Description", "reference"]),
        ("#show=changed", vec!["reference"]),
        ("#q=desc", vec!["No Description"]),
        ("#show=failing&q=ea", vec!["dead"]),
    ] {
        let (dom, log) = browser::load(&browser, &profile, &matrix_path, fragment).await;
        let body = dom.select(&selector("body")).next().expect("body");
        let attr = |name: &str| body.value().attr(name).map(str::to_string);
        assert_eq!(attr("data-ready").as_deref(), Some("1"), "the script ran");
        assert_eq!(attr("data-errors"), None, "script errors");
        assert!(browser::console(&log).is_empty(), "{log}");
        assert_eq!(shown_rows(&dom), expected, "rows shown with {fragment:?}");
        assert_eq!(attr("data-shown"), Some(expected.len().to_string()));
    }
    // A failing cell opens the report filtered to exactly its results.
    let cell = (matrix
        .select(&selector("tr[data-name=reference] td.s-fail a"))
        .next())
    .expect("a failing cell of the reference agent");
    let (file, fragment) = (cell.value().attr("href").expect("href"))
        .split_once('#')
        .expect("a filter");
    let words: String = cell.text().collect();
    let total = words.rsplit('/').next().expect("a total").to_string();
    let (report, _) = browser::load(
        &browser,
        &profile,
        &site.join(file),
        &format!("#{fragment}"),
    )
    .await;
    let body = report.select(&selector("body")).next().expect("body");
    assert_eq!(
        body.value().attr("data-shown"),
        Some(total.as_str()),
        "{words}"
    );

    let png = dir.join("matrix.png");
    browser::screenshot(&browser, &profile, &matrix_path, "", &png, (1280, 640)).await;
    if let Some(keep) = std::env::var_os("A2A_TCK_SCREENSHOTS") {
        std::fs::create_dir_all(&keep).expect("the screenshots' folder");
        std::fs::copy(&png, Path::new(&keep).join("site-matrix.png")).expect("a copy");
        let failing_png = Path::new(&keep).join("site-matrix-failing.png");
        browser::screenshot(
            &browser,
            &profile,
            &matrix_path,
            "#show=failing",
            &failing_png,
            (1280, 640),
        )
        .await;
        let agent_png = Path::new(&keep).join("site-agent.png");
        let agent_page = site.join("agents/reference/index.html");
        browser::screenshot(
            &browser,
            &profile,
            &agent_page,
            "",
            &agent_png,
            (1100, 1200),
        )
        .await;
    }
}

/// A survey of an agent and two clients (the reference client, and one with a fault): the site
/// shows each client as a row of its own, marked as a client, whose cells are its client
/// columns (one per binding x version), linking to its report; a page and a badge per client;
/// and the matrix's filters (failing, clients, by name) show them.
#[tokio::test]
async fn clients_of_a_survey_have_rows_pages_and_badges_in_the_site() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let dir = temp.path();
    let file = r#"
[defaults]
deadline = 60
bindings = ["jsonrpc"]
versions = ["1.0"]

[[agent]]
name = "reference"
target = "builtin"
select = ["card.*"]

[[client]]
name = "Reference Client"
cmd = "builtin"
select = ["client.requests.*"]

[[client]]
name = "no-version-header"
cmd = "builtin"
faults = ["no-version-header"]
select = ["client.requests.*"]
"#;
    std::fs::write(dir.join("survey.toml"), file).expect("a file");
    kit(&["survey", "survey.toml", "--out", "run"], dir);
    let made = kit(&["site", "run", "--out", "site"], dir);
    assert!(
        support::stderr(&made).contains("3 agent(s) from 1 survey run(s)"),
        "{}",
        support::stderr(&made)
    );
    let site = dir.join("site");
    let index = SurveyIndex::read(&dir.join("run/index.json")).expect("an index");
    let page = std::fs::read_to_string(site.join("all.html")).expect("the written-out matrix");
    let matrix = Html::parse_document(&page);
    assert!(matrix.errors.is_empty(), "{:?}", matrix.errors);
    let headings: Vec<String> = (matrix.select(&selector("thead th[scope=col]")))
        .map(|th| th.text().collect())
        .collect();
    assert!(headings.iter().any(|h| h == "card"), "{headings:?}");
    assert!(
        headings.iter().any(|h| h == "client jsonrpc 1.0"),
        "{headings:?}"
    );
    let column = (headings.iter().position(|h| h == "client jsonrpc 1.0")).expect("a column");
    let clients: Vec<String> = (matrix.select(&selector("tbody#agents tr[data-client]")))
        .map(|r| r.value().attr("data-name").unwrap_or_default().to_string())
        .collect();
    assert_eq!(clients, ["no-version-header", "reference client"]);
    for (name, folder, status, verdict) in [
        (
            "no-version-header",
            "no-version-header",
            "FAIL",
            "non-conformant",
        ),
        ("reference client", "reference-client", "PASS", "conformant"),
    ] {
        let row = (matrix
            .select(&selector(&format!("tr[data-name=\"{name}\"]")))
            .next())
        .expect("the client's row");
        let kind: String = (row.select(&selector("th .kind")).next())
            .expect("marked as a client")
            .text()
            .collect();
        assert_eq!(kind, "client");
        // The row's cells: the verdict, the change, the date, then one per column.
        let cells: Vec<_> = row.select(&selector("td")).collect();
        let verdict_cell: String = cells[0].text().collect();
        assert_eq!(verdict_cell, verdict);
        let cell = cells[3 + column - 4];
        let link = (cell.select(&selector("a")).next()).expect("the cell links its results");
        let words: String = link.text().collect();
        assert!(words.starts_with(status), "{name}: {words}");
        let href = link.value().attr("href").expect("href");
        let (report, fragment) = href.split_once('#').expect("a filter");
        assert_eq!(fragment, "binding=jsonrpc&version=1.0");
        assert!(site.join(report).is_file(), "{href}");
        // Its page, which names its adapter and links its report, and its badge.
        let page = std::fs::read_to_string(site.join("agents").join(folder).join("index.html"))
            .expect("the client's page");
        let page = Html::parse_document(&page);
        let heading: String = (page.select(&selector("h1")).next())
            .expect("a heading")
            .text()
            .collect();
        assert!(heading.contains("(client)"), "{heading}");
        let meta: String = (page.select(&selector("dl.meta")).next())
            .expect("its facts")
            .text()
            .collect();
        assert!(meta.contains("adapter"), "{meta}");
        let entry = (index.agents.iter())
            .find(|e| e.name.to_lowercase() == name)
            .expect("the entry");
        let digest = &entry.report_sha256.as_deref().expect("a digest")["sha256:".len()..];
        let html_href = format!("../../reports/{digest}/report.html");
        assert!(
            (page.select(&selector("dl.meta a")))
                .any(|a| a.value().attr("href") == Some(html_href.as_str())),
            "{name}: no link to {html_href}"
        );
        let svg =
            std::fs::read_to_string(site.join(format!("badges/{folder}.svg"))).expect("a badge");
        let (texts, badge_href) = read_badge(&svg);
        assert_eq!(badge_href, format!("agents/{folder}/index.html"));
        let claim = texts.last().expect("the badge's words");
        assert!(
            claim.starts_with(verdict) && claim.contains(&digest[..8]),
            "{claim}"
        );
    }

    let Some(browser) = browser::browser_or_skip() else {
        return;
    };
    let profile = dir.join("profile");
    let matrix_path = site.join("index.html");
    let rows_of = |dom: &Html| -> String {
        (dom.select(&selector("tbody#agents")).next())
            .expect("the rows")
            .html()
    };
    let (written, _) = browser::load(&browser, &profile, &matrix_path, "").await;
    assert_eq!(
        rows_of(&written),
        rows_of(&matrix),
        "the script writes all.html's rows"
    );
    for (fragment, expected) in [
        (
            "",
            vec!["no-version-header", "reference", "Reference Client"],
        ),
        (
            "#show=clients",
            vec!["no-version-header", "Reference Client"],
        ),
        ("#show=failing", vec!["no-version-header"]),
        ("#show=clients&q=ref", vec!["Reference Client"]),
    ] {
        let (dom, log) = browser::load(&browser, &profile, &matrix_path, fragment).await;
        let body = dom.select(&selector("body")).next().expect("body");
        let attr = |name: &str| body.value().attr(name).map(str::to_string);
        assert_eq!(attr("data-ready").as_deref(), Some("1"), "the script ran");
        assert_eq!(attr("data-errors"), None, "script errors");
        assert!(browser::console(&log).is_empty(), "{log}");
        assert_eq!(shown_rows(&dom), expected, "rows shown with {fragment:?}");
    }
}
