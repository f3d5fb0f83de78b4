//! The results site (`a2a-tck site`): survey runs read oldest first, each agent's history
//! across them ([`Tracker`]: what broke and what was fixed between its consecutive runs, built on
//! [`crate::reporting::diff`], and since which run each of its failures has lasted), and the pages made of
//! it: the matrix of agents x areas ([`matrix_page`]), one page per agent ([`agent_page`]) and a
//! badge per agent ([`badge`]). Every page is self-contained (inline style and script, nothing
//! fetched) and reads without its script; the command (`cli/site.rs`) reads and writes the files.
//!
//! Paths in the site: `index.html`; `agents/<folder>/index.html` (the agent's page);
//! `reports/<hex>/` (the files of one report: `report.json`, `report.html`, `report.md`,
//! `junit.xml`), named by the SHA-256 of its `report.json` as the index gives it, so that a
//! report found in several runs (an agent unchanged since) is stored once and every link to it
//! names the report it shows; `badges/<folder>.svg`.

use std::collections::{BTreeMap, BTreeSet};

use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::reporting::report::{CheckResult, Counts, Report};
use crate::reporting::survey_index::{Entry, Kind, Outcome};
use crate::suite::check::{Binding, Level, ProtocolVersion, Status};

const STYLE: &str = include_str!("site.css");
const SCRIPT: &str = include_str!("site.js");

/// A column of the matrix: a part of the protocol an agent's results fall in. A result counts
/// in the column of where it ran (the card, or its binding x version) and, for a check of push
/// notifications, authentication or streaming, in that column too: each cell is what its link
/// (the agent's report, filtered) shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Area {
    /// The agent card's checks (results with no binding).
    Card,
    /// The results on one binding and protocol version.
    Interface(Option<ProtocolVersion>, Binding),
    /// `push.*` checks.
    Push,
    /// `auth.*` checks.
    Auth,
    /// `streaming.*` and `subscribe.*` checks.
    Streaming,
    /// A client's results (`client.*` checks, of a `[[client]]` of the survey) on one binding
    /// and protocol version, or with none.
    Client(Option<ProtocolVersion>, Option<Binding>),
}

impl Area {
    /// The columns a result counts in.
    pub fn of(result: &CheckResult) -> Vec<Area> {
        // A client's results are a column of their own per binding x version: a client's
        // checks are not an agent's, whatever binding they ran on.
        if result.id.starts_with("client.") {
            return vec![Area::Client(result.version, result.binding)];
        }
        let mut areas = vec![match result.binding {
            None => Area::Card,
            Some(binding) => Area::Interface(result.version, binding),
        }];
        let id = result.id.as_str();
        if id.starts_with("push.") {
            areas.push(Area::Push);
        } else if id.starts_with("auth.") {
            areas.push(Area::Auth);
        } else if id.starts_with("streaming.") || id.starts_with("subscribe.") {
            areas.push(Area::Streaming);
        }
        areas
    }

    /// The column's heading.
    pub fn label(self) -> String {
        match self {
            Area::Card => "card".into(),
            Area::Interface(Some(version), binding) => format!("{binding} {version}"),
            Area::Interface(None, binding) => binding.to_string(),
            Area::Push => "push".into(),
            Area::Auth => "auth".into(),
            Area::Streaming => "streaming".into(),
            Area::Client(version, binding) => {
                let mut label = String::from("client");
                if let Some(binding) = binding {
                    label = format!("{label} {binding}");
                }
                if let Some(version) = version {
                    label = format!("{label} {version}");
                }
                label
            }
        }
    }

    /// The HTML report's filter that shows this column's results (its URL fragment).
    pub fn fragment(self) -> String {
        match self {
            Area::Card => "binding=card".into(),
            Area::Interface(Some(version), binding) => {
                format!("binding={binding}&version={version}")
            }
            Area::Interface(None, binding) => format!("binding={binding}"),
            Area::Push => "check=push.".into(),
            Area::Auth => "check=auth.".into(),
            Area::Streaming => "check=streaming.,subscribe.".into(),
            Area::Client(Some(version), Some(binding)) => {
                format!("binding={binding}&version={version}")
            }
            Area::Client(None, Some(binding)) => format!("binding={binding}"),
            Area::Client(_, None) => "check=client.".into(),
        }
    }
}

/// One survey run the site was made from.
#[derive(Debug, Clone)]
pub struct RunInfo {
    /// The index's file.
    pub file: String,
    /// When the index was written (RFC 3339).
    pub finished_at: String,
    /// How many agents it holds.
    pub agents: usize,
}

/// What changed for an agent since its previous run.
#[derive(Debug, Clone, Default)]
pub struct Change {
    /// Its first run in the site: nothing to compare with.
    pub first: bool,
    /// Results (or counts) that got worse, in words.
    pub broke: Vec<String>,
    /// Results (or counts) that got better, in words.
    pub fixed: Vec<String>,
    /// Other changes: a status moved sideways, results only one run has.
    pub other: usize,
    /// No two reports to compare: the counts of the index were.
    pub by_totals: bool,
    /// What makes the two runs hard to compare (`a2a-tck diff`'s notes).
    pub notes: Vec<String>,
}

impl Change {
    /// Whether anything changed (a first run counts as a change).
    pub fn any(&self) -> bool {
        self.first || !self.broke.is_empty() || !self.fixed.is_empty() || self.other > 0
    }

    /// The change in a few words.
    pub fn words(&self) -> String {
        if self.first {
            return "new".into();
        }
        let mut parts = Vec::new();
        if !self.broke.is_empty() {
            parts.push(format!("{} broke", self.broke.len()));
        }
        if !self.fixed.is_empty() {
            parts.push(format!("{} fixed", self.fixed.len()));
        }
        if self.other > 0 {
            parts.push(format!("{} other", self.other));
        }
        if parts.is_empty() {
            "unchanged".into()
        } else {
            parts.join(", ")
        }
    }
}

/// An agent in one run.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The run (its position, oldest first).
    pub run: usize,
    /// Its entry in that run's index.
    pub entry: Entry,
    /// What changed since its previous run.
    pub change: Change,
    /// Whether its report is in the site: read, and the one its entry's digest names.
    pub stored: bool,
}

/// A result failing in an agent's latest run, and since when.
#[derive(Debug, Clone)]
pub struct Failing {
    /// The check's id.
    pub id: String,
    /// Where it ran, in words.
    pub place: String,
    /// Its level.
    pub level: Level,
    /// FAIL or ERROR.
    pub status: Status,
    /// The first run of the unbroken series of runs in which it failed.
    pub since: usize,
}

/// An agent across the runs.
#[derive(Debug, Clone)]
pub struct AgentHistory {
    /// Its name in the survey.
    pub name: String,
    /// Its folder in the site (`agents/<folder>/`).
    pub folder: String,
    /// An agent or a client, as its latest run's entry says.
    pub kind: Kind,
    /// The runs it was in, oldest first (never empty).
    pub seen: Vec<Seen>,
    /// Its latest run's results by area (empty when that run has no report).
    pub cells: BTreeMap<Area, Counts>,
    /// Its latest run's failing results, and since when.
    pub failing: Vec<Failing>,
}

type Key = (String, Option<Binding>, Option<ProtocolVersion>);

/// Builds an agent's history, one run at a time, oldest first: each run's report is compared
/// with the previous one's and dropped, so no more than two reports are held at once.
#[derive(Debug)]
pub struct Tracker {
    name: String,
    seen: Vec<Seen>,
    previous: Option<Report>,
    since: BTreeMap<Key, (usize, Level, Status)>,
    cells: BTreeMap<Area, Counts>,
}

/// How bad an outcome is.
fn outcome_rank(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Pass => 0,
        Outcome::Fail => 1,
        Outcome::OverBudget | Outcome::Error => 2,
    }
}

fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "pass",
        Outcome::Fail => "fail",
        Outcome::Error => "error",
        Outcome::OverBudget => "over-budget",
    }
}

/// The statuses a move up of whose count is a regression, by how the counts compare.
const BAD: [Status; 4] = [
    Status::Fail,
    Status::Error,
    Status::Untestable,
    Status::Warn,
];

impl Tracker {
    /// The history of the agent named `name`, empty.
    pub fn new(name: &str) -> Tracker {
        Tracker {
            name: name.to_string(),
            seen: Vec::new(),
            previous: None,
            since: BTreeMap::new(),
            cells: BTreeMap::new(),
        }
    }

    /// The agent's entry in run `run` (runs given in order), and its report when there is one.
    pub fn add(&mut self, run: usize, entry: Entry, report: Option<Report>) {
        let mut change = Change::default();
        match self.seen.last() {
            None => change.first = true,
            Some(before) => {
                match (&self.previous, &report) {
                    (Some(old), Some(new)) => {
                        let diff = crate::reporting::diff::diff(old, new);
                        let words = |c: &crate::reporting::diff::Change| {
                            format!(
                                "{} ({}): {} -> {}",
                                c.id,
                                crate::reporting::diff::place(c.binding, c.version),
                                c.old.as_str(),
                                c.new.as_str()
                            )
                        };
                        change.broke = diff.regressions.iter().map(words).collect();
                        change.fixed = diff.fixes.iter().map(words).collect();
                        change.other = diff.changed.len() + diff.new.len() + diff.removed.len();
                        change.notes = diff.differences;
                    }
                    _ => {
                        change.by_totals = true;
                        totals_change(&before.entry, &entry, &mut change);
                    }
                }
                let (old, new) = (before.entry.outcome, entry.outcome);
                let words = format!("outcome {} -> {}", outcome_word(old), outcome_word(new));
                match outcome_rank(new).cmp(&outcome_rank(old)) {
                    std::cmp::Ordering::Greater => change.broke.push(words),
                    std::cmp::Ordering::Less => change.fixed.push(words),
                    std::cmp::Ordering::Equal if old != new => change.other += 1,
                    std::cmp::Ordering::Equal => {}
                }
            }
        }
        self.cells.clear();
        let mut since = BTreeMap::new();
        if let Some(report) = &report {
            for result in &report.results {
                for area in Area::of(result) {
                    self.cells.entry(area).or_default().add(result.status);
                }
                if matches!(result.status, Status::Fail | Status::Error) {
                    let key = (result.id.clone(), result.binding, result.version);
                    let first = self.since.get(&key).map_or(run, |(first, _, _)| *first);
                    since.insert(key, (first, result.level, result.status));
                }
            }
        }
        // A run without a report judged nothing: a failure's series starts again after it.
        self.since = since;
        let stored = report.is_some() && entry.report_sha256.is_some();
        self.previous = report;
        self.seen.push(Seen {
            run,
            entry,
            change,
            stored,
        });
    }

    /// The history built, or `None` when the agent was in no run.
    pub fn finish(self) -> Option<AgentHistory> {
        if self.seen.is_empty() {
            return None;
        }
        let mut failing: Vec<Failing> = (self.since.into_iter())
            .map(|((id, binding, version), (since, level, status))| Failing {
                id,
                place: crate::reporting::diff::place(binding, version),
                level,
                status,
                since,
            })
            .collect();
        failing.sort_by(|a, b| (a.since, a.level, &a.id).cmp(&(b.since, b.level, &b.id)));
        let kind = self.seen.last().map_or(Kind::Agent, |s| s.entry.kind);
        Some(AgentHistory {
            folder: site_folder(&self.name),
            kind,
            name: self.name,
            seen: self.seen,
            cells: self.cells,
            failing,
        })
    }
}

/// The agent's folder in the site: its survey folder, never one of dots only.
pub fn site_folder(name: &str) -> String {
    let folder = crate::reporting::survey_index::folder_of(name);
    if folder.chars().all(|c| c == '.') {
        folder.replace('.', "-")
    } else {
        folder
    }
}

/// The change between two entries by their counts, for runs without two reports to compare.
fn totals_change(old: &Entry, new: &Entry, change: &mut Change) {
    for level in Level::ALL {
        let count = |e: &Entry, status| e.totals.get(&level).map_or(0, |c| c.get(status));
        for status in BAD {
            let (o, n) = (count(old, status), count(new, status));
            let words = format!("{level} {}: {o} -> {n}", status.as_str());
            match n.cmp(&o) {
                std::cmp::Ordering::Greater => change.broke.push(words),
                std::cmp::Ordering::Less => change.fixed.push(words),
                std::cmp::Ordering::Equal => {}
            }
        }
        for status in [Status::Pass, Status::NotApplicable] {
            if count(old, status) != count(new, status) {
                change.other += 1;
            }
        }
    }
}

impl AgentHistory {
    /// Its latest run.
    pub fn latest(&self) -> &Seen {
        self.seen.last().expect("an agent is in at least one run")
    }

    /// Whether its latest run did not pass its gate.
    pub fn failing_now(&self) -> bool {
        self.latest().entry.outcome != Outcome::Pass
    }

    /// Whether it changed in the last run of the site (`last`): it was in it, and its results
    /// moved since its run before, or it was new. Nothing changed in a site of one run.
    pub fn changed(&self, last: usize) -> bool {
        let latest = self.latest();
        last > 0 && latest.run == last && latest.change.any()
    }

    /// Where the files of its report of `seen` are, from the site's root (`reports/<hex>/`);
    /// `None` when the site does not hold it.
    pub fn report_dir(&self, seen: &Seen) -> Option<String> {
        let digest = seen
            .entry
            .report_sha256
            .as_deref()
            .filter(|_| seen.stored)?;
        store_dir(digest)
    }
}

/// The folder of the report whose `report.json` has the digest `sha256:<hex>`, from the site's
/// root: `reports/<hex>/`; `None` for a digest that is not 64 lower-case hex digits (an
/// edited index never names a path of its choosing).
pub fn store_dir(digest: &str) -> Option<String> {
    let hex = digest.strip_prefix("sha256:")?;
    let hex_digits = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    (hex.len() == 64 && hex.chars().all(hex_digits)).then(|| format!("reports/{hex}/"))
}

/// The site: the runs, oldest first, and every agent in any of them, by name.
#[derive(Debug)]
pub struct Site {
    /// The runs, oldest first.
    pub runs: Vec<RunInfo>,
    /// The agents.
    pub agents: Vec<AgentHistory>,
    /// The site's address when published (ends with `/`), for the badges' links and the
    /// snippets that embed them; empty when not given (links relative to the site's root).
    pub base_url: String,
}

impl Site {
    fn last(&self) -> usize {
        self.runs.len().saturating_sub(1)
    }

    fn run_date(&self, run: usize) -> &str {
        self.runs.get(run).map_or("", |r| date(&r.finished_at))
    }
}

/// The date of an RFC 3339 time.
fn date(time: &str) -> &str {
    time.get(..10).unwrap_or(time)
}

/// The first 8 hex digits of a `sha256:<hex>` digest.
fn short_digest(digest: &str) -> &str {
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    hex.get(..8).unwrap_or(hex)
}

fn status_class(status: Status) -> &'static str {
    match status {
        Status::Pass => "s-pass",
        Status::Fail => "s-fail",
        Status::Warn => "s-warn",
        Status::NotApplicable => "s-na",
        Status::Untestable => "s-untestable",
        Status::Error => "s-error",
    }
}

/// The statuses from worst to best: a cell shows the first it has.
const WORST_FIRST: [Status; 6] = [
    Status::Fail,
    Status::Error,
    Status::Untestable,
    Status::Warn,
    Status::Pass,
    Status::NotApplicable,
];

fn total(counts: &Counts) -> usize {
    Status::ALL.iter().map(|s| counts.get(*s)).sum()
}

/// A cell's words: its worst status, how many results have it and of how many (`FAIL 2/14`;
/// `PASS 14` when all passed or did not apply).
fn cell_words(counts: &Counts) -> (Status, String) {
    let all = total(counts);
    let worst = (WORST_FIRST.iter().copied())
        .find(|s| counts.get(*s) > 0)
        .unwrap_or(Status::NotApplicable);
    let words = match worst {
        Status::Pass | Status::NotApplicable => format!("{} {all}", worst.as_str()),
        _ => format!("{} {}/{all}", worst.as_str(), counts.get(worst)),
    };
    (worst, words)
}

/// Every count of a cell, for its title.
fn counts_words(counts: &Counts) -> String {
    let parts: Vec<String> = (WORST_FIRST.iter())
        .filter(|s| counts.get(**s) > 0)
        .map(|s| format!("{} {}", counts.get(*s), s.as_str()))
        .collect();
    format!("{} result(s): {}", total(counts), parts.join(", "))
}

/// The agent's verdict, or its outcome when it has no report.
fn verdict_words(entry: &Entry) -> &'static str {
    match entry.verdict {
        Some(verdict) => verdict.as_str(),
        None => outcome_word(entry.outcome),
    }
}

fn verdict_class(entry: &Entry) -> String {
    format!("v v-{}", verdict_words(entry))
}

/// A cell of `area` for `agent`, its link relative to `prefix`; `detail` adds every count as
/// the link's title (left out of the matrix, where a thousand rows make it weigh).
fn cell(agent: &AgentHistory, area: Area, prefix: &str, detail: bool) -> Markup {
    match agent.cells.get(&area) {
        None => html! { td.c.none { span aria-hidden="true" { "–" } span.sr { "not tested" } } },
        Some(counts) => {
            let (worst, words) = cell_words(counts);
            let Some(dir) = agent.report_dir(agent.latest()) else {
                return html! { td.c.(status_class(worst)) { (words) } };
            };
            let href = format!("{prefix}{dir}report.html#{}", area.fragment());
            html! {
                td.c.(status_class(worst)) {
                    a href=(href) title=[detail.then(|| counts_words(counts))] { (words) }
                }
            }
        }
    }
}

fn page(title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body { (body) }
        }
    }
    .into_string()
}

/// The columns of the matrix: every area some agent's latest report has results in.
pub fn columns(site: &Site) -> Vec<Area> {
    let set: BTreeSet<Area> = (site.agents.iter())
        .flat_map(|a| a.cells.keys().copied())
        .collect();
    set.into_iter().collect()
}

/// The matrix's row of `agent`: its name linking to its page, its verdict, what changed since
/// the run before, the date of its last run, and a cell per column.
fn matrix_row(agent: &AgentHistory, columns: &[Area], last: usize) -> Markup {
    let latest = agent.latest();
    html! {
        tr data-name=(agent.name.to_lowercase())
            data-failing[agent.failing_now()] data-changed[agent.changed(last)]
            data-client[agent.kind == Kind::Client] {
            th scope="row" {
                a href=(format!("agents/{}/index.html", agent.folder)) { (agent.name) }
                @if agent.kind == Kind::Client { " " span.kind { "client" } }
            }
            td.(verdict_class(&latest.entry)) { (verdict_words(&latest.entry)) }
            td { (change_cell(agent, last)) }
            td { (date(&latest.entry.finished_at)) }
            @for area in columns { (cell(agent, *area, "", false)) }
        }
    }
}

/// The "since last run" cell's content.
fn change_cell(agent: &AgentHistory, last: usize) -> Markup {
    let latest = agent.latest();
    html! {
        @if latest.run != last { span.muted { "not in the last run" } }
        @else if last == 0 { span.muted { "–" } }
        @else if latest.change.any() {
            a href=(format!("agents/{}/index.html#history", agent.folder)) { (latest.change.words()) }
        } @else { span.muted { "unchanged" } }
    }
}

/// The matrix's rows as compact data for its script, which writes them into the table: per
/// agent `[name, folder, report folder ("" when the site holds no report), verdict, flags
/// (1 failing, 2 changed, 4 a client), the "since last run" cell's HTML, date, cells...]`, a cell being
/// its words (`FAIL 2/30`, the status first) or "" when not tested. A tenth of the rows' HTML.
fn matrix_data(site: &Site, columns: &[Area]) -> String {
    let last = site.last();
    let rows: Vec<serde_json::Value> = (site.agents.iter())
        .map(|agent| {
            let latest = agent.latest();
            let dir = agent.report_dir(latest).unwrap_or_default();
            let flags = u8::from(agent.failing_now())
                | (u8::from(agent.changed(last)) << 1)
                | (u8::from(agent.kind == Kind::Client) << 2);
            let mut row = vec![
                serde_json::json!(agent.name),
                serde_json::json!(agent.folder),
                serde_json::json!(dir),
                serde_json::json!(verdict_words(&latest.entry)),
                serde_json::json!(flags),
                serde_json::json!(change_cell(agent, last).into_string()),
                serde_json::json!(date(&latest.entry.finished_at)),
            ];
            row.extend(columns.iter().map(|area| {
                serde_json::json!(agent
                    .cells
                    .get(area)
                    .map(|c| cell_words(c).1)
                    .unwrap_or_default())
            }));
            serde_json::Value::Array(row)
        })
        .collect();
    let data = serde_json::json!({
        "columns": columns.iter().map(|a| a.fragment()).collect::<Vec<_>>(),
        "rows": rows,
    });
    // Inside <script>: "</" would end it.
    data.to_string().replace("</", "<\\/")
}

/// The matrix page (`index.html`): one row per agent, one column per area, each cell linking to
/// the agent's report filtered to it; filters by state (all, failing, changed since the last
/// run) and by name. Its rows are written by its script from compact data (a smaller page, one
/// layout of the table); `all.html` is the same table written out, for a browser without
/// script, which the page links.
pub fn matrix_page(site: &Site) -> String {
    matrix(site, true)
}

/// The matrix with its rows written out (`all.html`): the same table and filters, readable
/// without script.
pub fn matrix_static_page(site: &Site) -> String {
    matrix(site, false)
}

fn matrix(site: &Site, scripted: bool) -> String {
    let columns = columns(site);
    let last = site.last();
    let failing = site.agents.iter().filter(|a| a.failing_now()).count();
    let changed = site.agents.iter().filter(|a| a.changed(last)).count();
    let total = site.agents.len();
    let clients = (site.agents.iter())
        .filter(|a| a.kind == Kind::Client)
        .count();
    let radio = |value: &str, words: String, checked: bool| {
        html! {
            label { input type="radio" name="show" value=(value) checked[checked]; " " (words) }
        }
    };
    let body = html! {
        header {
            h1 { "A2A conformance survey" }
            p {
                (total - clients) " agent(s)"
                @if clients > 0 { " and " (clients) " client(s)" }
                "; " (failing) " did not pass their gate; "
                @if last > 0 { (changed) " changed since the run before (" (site.run_date(last - 1)) ")." }
                @else { "one run, so nothing to compare with." }
            }
            details #runs {
                summary { (site.runs.len()) " survey run(s), oldest first" }
                ol {
                    @for run in &site.runs {
                        li { (run.finished_at) ": " code { (run.file) } ", " (run.agents) " agent(s)" }
                    }
                }
            }
        }
        @if scripted {
            noscript { p { "The table below is written by the page's script: "
                a href="all.html" { "the same table without script" } "." } }
        }
        form #filters role="search" {
            fieldset {
                legend { "Show" }
                (radio("all", format!("all ({total})"), true))
                (radio("failing", format!("failing ({failing})"), false))
                (radio("changed", format!("changed since last run ({changed})"), false))
                @if clients > 0 { (radio("clients", format!("clients ({clients})"), false)) }
            }
            label { "Agent name contains " input type="search" name="q" autocomplete="off"; }
            output #shown-count aria-live="polite" { (total) " of " (total) " agents shown" }
        }
        p.hint {
            "Each cell gives the worst status of the agent's results in that area and how many have it "
            "(FAIL 2/14: 2 of 14 results failed), and links to those results in the agent's report. "
            "A result counts in the column of its binding and version, and in push, auth or streaming too when its check is one of those."
            @if clients > 0 {
                " A client's results (a client of the survey, run through its adapter as a2a-tck client runs it) "
                "count in the client column of their binding and version."
            }
        }
        div.scroll {
            table #matrix {
                caption.sr { "Agents by area: the worst status of each agent's results in each area" }
                thead {
                    tr {
                        th scope="col" { "agent" }
                        th scope="col" { "verdict" }
                        th scope="col" { "since last run" }
                        th scope="col" { "last run" }
                        @for area in &columns { th scope="col" { (area.label()) } }
                    }
                }
                tbody #agents {
                    @if !scripted {
                        @for agent in &site.agents { (matrix_row(agent, &columns, last)) }
                    }
                }
            }
        }
        footer { "Written by a2a-tck " (env!("CARGO_PKG_VERSION")) ". Every cell links to its evidence." }
        @if scripted {
            script #matrix-data type="application/json" { (PreEscaped(matrix_data(site, &columns))) }
        }
        script { (PreEscaped(SCRIPT)) }
    };
    page("A2A conformance survey", body)
}

/// What a badge links to: the agent's page, which shows the verdict, date and digest the
/// badge claims beside the report they come from.
fn badge_target(site: &Site, agent: &AgentHistory) -> String {
    format!("{}agents/{}/index.html", site.base_url, agent.folder)
}

/// The agent's page (`agents/<folder>/index.html`): its latest verdict with the badge and how
/// to embed it, its areas, its failures and since when, and its history across the runs.
pub fn agent_page(site: &Site, agent: &AgentHistory) -> String {
    let latest = agent.latest();
    let entry = &latest.entry;
    let last = site.last();
    let badge_url = format!("{}badges/{}.svg", site.base_url, agent.folder);
    let alt = format!("A2A: {}", verdict_words(entry));
    let markdown = format!("[![{alt}]({badge_url})]({})", badge_target(site, agent));
    let html_snippet = html! {
        a href=(badge_target(site, agent)) { img src=(badge_url) alt=(alt); }
    }
    .into_string();
    let columns: Vec<Area> = agent.cells.keys().copied().collect();
    let body = html! {
        nav { a href="../../index.html" { "← all agents" } }
        header {
            h1 {
                (agent.name) @if agent.kind == Kind::Client { " (client)" }
                ": " span.(verdict_class(entry)) { (verdict_words(entry)) }
            }
            p { img src=(format!("../../badges/{}.svg", agent.folder)) alt=(alt); }
            dl.meta {
                @if agent.kind == Kind::Client { dt { "adapter" } dd { code { (entry.target) } } }
                @else { dt { "target" } dd { code { (entry.target) } } }
                dt { "outcome" } dd { (outcome_word(entry.outcome)) " (exit status " (entry.exit_status) ")" }
                @if let Some(reason) = &entry.verdict_reason { dt { "why" } dd { (reason) } }
                @if let Some(error) = &entry.error { dt { "error" } dd { (error) } }
                @if let Some(c) = entry.compatibility { dt { "compatibility" } dd { (format!("{c:.1}")) " %" } }
                dt { "run" } dd { (entry.started_at) " to " (entry.finished_at) }
                dt { "kit" } dd { "a2a-tck " (entry.kit_version) @if let Some(r) = &entry.spec_revision { ", spec revision " (r) } }
                @if let (Some(digest), Some(dir)) = (&entry.report_sha256, agent.report_dir(latest)) {
                    dt { "report" } dd {
                        a href=(format!("../../{dir}report.html")) { "report.html" } ", "
                        a href=(format!("../../{dir}report.json")) { "report.json" } " (" code { (digest) } "), "
                        a href=(format!("../../{dir}report.md")) { "report.md" } ", "
                        a href=(format!("../../{dir}junit.xml")) { "junit.xml" }
                    }
                }
                @if latest.run != last { dt { "note" } dd { "not in the last survey run (" (site.run_date(last)) ")" } }
            }
        }
        @if !columns.is_empty() {
            section #areas {
                h2 { "By area" }
                table {
                    thead { tr { @for area in &columns { th scope="col" { (area.label()) } } } }
                    tbody { tr { @for area in &columns { (cell(agent, *area, "../../", true)) } } }
                }
            }
        }
        @if !agent.failing.is_empty() {
            section #failing {
                h2 { "Failing now, and since when (" (agent.failing.len()) ")" }
                table {
                    thead { tr { th scope="col" { "status" } th scope="col" { "check" } th scope="col" { "where" } th scope="col" { "level" } th scope="col" { "failing since" } } }
                    tbody {
                        @for f in &agent.failing {
                            tr {
                                td.(status_class(f.status)) { (f.status.as_str()) }
                                td { code { (f.id) } } td { (f.place) } td { (f.level.as_str()) }
                                td { "run " (f.since + 1) " (" (site.run_date(f.since)) ")"
                                    @if f.since == latest.run { ", this run" } }
                            }
                        }
                    }
                }
            }
        }
        section #history {
            h2 { "History (" (agent.seen.len()) " run(s))" }
            table {
                thead { tr {
                    th scope="col" { "run" } th scope="col" { "finished" } th scope="col" { "verdict" }
                    th scope="col" { "MUST FAIL" } th scope="col" { "report" } th scope="col" { "what changed since its run before" }
                } }
                tbody {
                    @for seen in agent.seen.iter().rev() {
                        @let e = &seen.entry;
                        tr {
                            th scope="row" { (seen.run + 1) }
                            td { (e.finished_at) }
                            td.(verdict_class(e)) { (verdict_words(e)) }
                            td.num { (e.totals.get(&Level::Must).map_or(0, |c| c.fail)) }
                            td {
                                @if let (Some(digest), Some(dir)) = (&e.report_sha256, agent.report_dir(seen)) {
                                    a href=(format!("../../{dir}report.html")) { "report" } " "
                                    code { (short_digest(digest)) }
                                } @else if let Some(digest) = &e.report_sha256 {
                                    "not in the site " code { (short_digest(digest)) }
                                } @else { "none" }
                            }
                            td {
                                @if seen.change.first { "first run" }
                                @else if !seen.change.any() { "nothing" }
                                @else {
                                    (seen.change.words())
                                    @if seen.change.by_totals { " (by the counts: no two reports to compare)" }
                                    @if !seen.change.broke.is_empty() {
                                        div { "broke:" ul { @for b in &seen.change.broke { li { (b) } } } }
                                    }
                                    @if !seen.change.fixed.is_empty() {
                                        div { "fixed:" ul { @for f in &seen.change.fixed { li { (f) } } } }
                                    }
                                }
                                @for note in &seen.change.notes { p.muted { "note: " (note) } }
                            }
                        }
                    }
                }
            }
        }
        section #badge {
            h2 { "Badge" }
            p {
                "The badge shows the verdict, the date and the first 8 hex digits of the report's SHA-256, "
                "and links here: a badge whose words differ from this page is stale or altered."
                @if site.base_url.is_empty() { " The site was written without --base-url: the links below are relative to its root." }
            }
            h3 { "Markdown" }
            pre { code { (markdown) } }
            h3 { "HTML" }
            pre { code { (html_snippet) } }
        }
        footer { "Written by a2a-tck " (env!("CARGO_PKG_VERSION")) "." }
    };
    page(&format!("{}: {}", agent.name, verdict_words(entry)), body)
}

/// The badge's colour: white text on it keeps a contrast above 4.5:1.
fn badge_colour(entry: &Entry) -> &'static str {
    match (entry.verdict, entry.outcome) {
        (Some(crate::reporting::report::Verdict::Conformant), _) => "#1a7f37",
        (Some(crate::reporting::report::Verdict::NonConformant), _) => "#cf222e",
        (
            Some(
                crate::reporting::report::Verdict::Inconclusive
                | crate::reporting::report::Verdict::Interrupted,
            ),
            _,
        ) => "#8a5c00",
        _ => "#8250df",
    }
}

/// The width, in pixels, of `text` in 11 px Verdana, roughly (6.5 px a character).
fn text_width(text: &str) -> usize {
    text.chars().count() * 13 / 2
}

/// The agent's badge (`badges/<folder>.svg`): `A2A | <verdict> · <date> · <digest>`, linking
/// to the agent's page in the site.
pub fn badge(site: &Site, agent: &AgentHistory) -> String {
    let entry = &agent.latest().entry;
    let digest = entry
        .report_sha256
        .as_deref()
        .map_or("no report", short_digest);
    let right = format!(
        "{} · {} · {digest}",
        verdict_words(entry),
        date(&entry.finished_at)
    );
    let left = "A2A";
    let (lw, rw) = (text_width(left) + 12, text_width(&right) + 12);
    let width = lw + rw;
    let label = format!("A2A conformance of {}: {right}", agent.name);
    let svg = html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(width) height="20" role="img" aria-label=(label) {
            title { (label) }
            a href=(badge_target(site, agent)) target="_top" {
                rect width=(lw) height="20" fill="#444" {}
                rect x=(lw) width=(rw) height="20" fill=(badge_colour(entry)) {}
                g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle" {
                    text x=(lw / 2) y="14" { (left) }
                    text x=(lw + rw / 2) y="14" { (right) }
                }
            }
        }
    };
    svg.into_string() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_names_its_worst_status_and_how_many() {
        let mut counts = Counts::default();
        for status in [Status::Pass, Status::Pass, Status::Warn, Status::Fail] {
            counts.add(status);
        }
        assert_eq!(cell_words(&counts), (Status::Fail, "FAIL 1/4".to_string()));
        let mut passed = Counts::default();
        passed.add(Status::Pass);
        passed.add(Status::NotApplicable);
        assert_eq!(cell_words(&passed), (Status::Pass, "PASS 2".to_string()));
    }
}
