//! `a2a-tck survey FILE`: many agents, each run through the library's `api::run` (the same
//! setup, gate and reports as a run on one agent) under its own deadline, a few at once, and
//! clients (`[[client]]`), each run through the plays as `a2a-tck client` runs it; one
//! folder of reports per agent or client and an index (`DIR/index.json`). A stable slice of the survey
//! (`--shard I/N`) runs on any job engine, and `a2a-tck merge` joins the slices.
//!
//! The survey file (TOML, or YAML by its extension) lists the agents; see the README,
//! "Surveying many agents". An agent's folder holds `report.json`, `report.md`,
//! `report.html`, `junit.xml` and, written last, `entry.json` (its line of the index): an
//! agent whose `entry.json` matches its entry in the file (and the files it names, and the
//! kit's version) and its report's digest is done, and
//! a survey started again over the same folder does not run it again (unless `--fresh`, or
//! its report is older than `--max-age`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use a2a_reference_agent::Fault;
use a2a_tck::api::{self, Binding, Options, ProtocolVersion};
use a2a_tck::client::client_runner::ClientOptions;
use a2a_tck::reporting::format::Format;
use a2a_tck::reporting::survey_index::{
    self, Agent, Entry, Kind, Outcome, Shard, SurveyIndex, SurveySource,
};
use clap::Args;
use futures::StreamExt as _;
use serde::{Deserialize, Serialize};

/// The arguments of `a2a-tck survey`.
#[derive(Debug, Args)]
pub(crate) struct SurveyArgs {
    /// The survey file: TOML, or YAML when it ends in .yaml or .yml.
    pub(crate) file: PathBuf,
    /// The folder of the reports (one subfolder per agent) and of the index (index.json).
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,
    /// How many agents are tested at once.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) agents: u16,
    /// The most checks run at once against each agent (as `--jobs` of a run; an agent's
    /// `jobs` in the file wins).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) jobs: Option<u16>,
    /// Test only the agents of shard I of N (`0/4` .. `3/4`): those whose name's SHA-256,
    /// modulo N, is I. `auto/N` takes I from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job).
    #[arg(long, value_name = "I/N")]
    pub(crate) shard: Option<String>,
    /// The number of shards, I taken from JOB_COMPLETION_INDEX (the same as `--shard auto/N`).
    #[arg(long, value_name = "N", conflicts_with = "shard")]
    pub(crate) shard_count: Option<u32>,
    /// Run every agent again, even those whose report in DIR is complete.
    #[arg(long)]
    pub(crate) fresh: bool,
    /// Run again the agents whose report in DIR is older than this (e.g. `24h`, `90m`).
    #[arg(long, value_name = "DURATION")]
    pub(crate) max_age: Option<String>,
}

/// The arguments of `a2a-tck merge`.
#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The output folders of the shards (each with its index.json).
    #[arg(required = true, value_name = "DIR")]
    pub(crate) dirs: Vec<PathBuf>,
    /// Where the merged index and every agent's folder are written.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,
}

/// The default budget of one agent, in seconds.
const DEADLINE: f64 = 600.0;

/// How long past its deadline (and the stop's grace) an agent's run may still take to write
/// its report before it is given up without one.
const SAFETY: Duration = Duration::from_secs(30);

/// A survey file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SurveyFile {
    /// What every agent takes unless it says otherwise.
    #[serde(default)]
    defaults: Settings,
    /// The agents (`[[agent]]` in TOML, `agents:` in YAML).
    #[serde(default, alias = "agents")]
    agent: Vec<AgentSpec>,
    /// The clients (`[[client]]` in TOML, `clients:` in YAML).
    #[serde(default, alias = "clients")]
    client: Vec<ClientSpec>,
}

/// What an agent's run takes that the survey can give every agent.
#[derive(Debug, Default, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    /// The agent's budget in seconds: once it runs out no check starts, and the report is
    /// that of an interrupted run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deadline: Option<f64>,
    /// Check globs (`--select`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    select: Vec<String>,
    /// Bindings to test (`--binding`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    bindings: Vec<Binding>,
    /// Protocol versions to test (`--protocol-version`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    versions: Vec<ProtocolVersion>,
    /// `--spec-revision`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spec_revision: Option<String>,
    /// `--timeout`, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timeout: Option<f64>,
    /// `--check-timeout`, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    check_timeout: Option<f64>,
    /// `--jobs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    jobs: Option<usize>,
    /// `--assume-version`: the version an interface of a card that names none is tested as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    assume_version: Option<ProtocolVersion>,
}

/// One agent of a survey file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct AgentSpec {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    target: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    card_url: Option<String>,
    /// Faults of the built-in reference agent (`target = "builtin"` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    faults: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bearer_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    other_bearer_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    limited_bearer_env: Option<String>,
    /// Header name -> the environment variable holding its value.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    header_env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    drive: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    contract: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sut_behaviors: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expect: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    allow_unreviewed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min_judged: Option<String>,
    #[serde(flatten)]
    settings: Settings,
}

/// One client of a survey file: its adapter run through every play, as `a2a-tck client`
/// runs it.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct ClientSpec {
    name: String,
    /// The adapter's command (`a2a-tck client --cmd`), or `builtin` for the kit's reference
    /// client.
    cmd: String,
    /// Faults of the built-in reference client (`cmd = "builtin"` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    faults: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expect: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    allow_unreviewed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min_judged: Option<String>,
    /// The client's budget in seconds (the survey's default when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deadline: Option<f64>,
    /// Check globs of the client's checks (`client.*`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    select: Vec<String>,
    /// Bindings to play on (the survey's default when absent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    bindings: Vec<Binding>,
    /// Protocol versions to play (the survey's default when absent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    versions: Vec<ProtocolVersion>,
    /// `--scenario-timeout`, seconds: how long one run of the adapter may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scenario_timeout: Option<f64>,
}

/// What is run: an agent through `api::run`, or a client through the client runner.
enum Subject {
    /// An agent, with its options but its credentials (read when it runs).
    Agent(Box<AgentSpec>, Box<Options>),
    /// A client, with its options and the gate its report is held to.
    Client(ClientOptions, Box<a2a_tck::reporting::gate::Gate>),
}

/// An agent or a client ready to run: what runs, its folder, and the digest of its inputs
/// (its entry, the files it names, the kit's version).
struct Planned {
    name: String,
    subject: Subject,
    target: String,
    folder: String,
    sha256: String,
    deadline: Duration,
}

impl Planned {
    fn agent(&self) -> Agent<'_> {
        Agent {
            name: &self.name,
            target: &self.target,
            sha256: &self.sha256,
        }
    }

    fn kind(&self) -> Kind {
        match self.subject {
            Subject::Agent(..) => Kind::Agent,
            Subject::Client(..) => Kind::Client,
        }
    }
}

fn seconds(value: f64, what: &str) -> Result<Duration, String> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{what} must be a positive number of seconds"))
}

/// Reads the survey file and prepares every agent: every file it names read, every value
/// checked, before any agent is contacted. The error is a usage error.
fn read_survey(path: &Path, jobs: Option<u16>) -> Result<(Vec<Planned>, SurveySource), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8(bytes.clone())
        .map_err(|_| format!("{}: not UTF-8 text", path.display()))?;
    let yaml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    let file: SurveyFile = if yaml {
        serde_yaml_ng::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?
    } else {
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?
    };
    if file.agent.is_empty() && file.client.is_empty() {
        return Err(format!("{}: no agent or client listed", path.display()));
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let mut names = BTreeSet::new();
    let mut folders = BTreeMap::new();
    let mut planned = Vec::new();
    for spec in file.agent {
        let name = spec.name.clone();
        let at = |e: String| format!("{}: agent {name:?}: {e}", path.display());
        if name.trim().is_empty() {
            return Err(format!("{}: an agent has an empty name", path.display()));
        }
        if !names.insert(name.clone()) {
            return Err(at("listed twice (names are unique)".into()));
        }
        let folder = survey_index::folder_of(&name);
        if folder.chars().all(|c| c == '.') {
            return Err(at("a name of dots only names no folder".into()));
        }
        if let Some(other) = folders.insert(folder.clone(), name.clone()) {
            return Err(at(format!(
                "its folder {folder:?} is also {other:?}'s: give names that differ in more \
                 than case and punctuation"
            )));
        }
        let spec = with_defaults(spec, &file.defaults);
        let plan = plan(spec, base, jobs, folder).map_err(at)?;
        planned.push(plan);
    }
    for spec in file.client {
        let name = spec.name.clone();
        let at = |e: String| format!("{}: client {name:?}: {e}", path.display());
        if name.trim().is_empty() {
            return Err(format!("{}: a client has an empty name", path.display()));
        }
        if !names.insert(name.clone()) {
            return Err(at(
                "listed twice (names are unique among agents and clients)".into(),
            ));
        }
        let folder = survey_index::folder_of(&name);
        if folder.chars().all(|c| c == '.') {
            return Err(at("a name of dots only names no folder".into()));
        }
        if let Some(other) = folders.insert(folder.clone(), name.clone()) {
            return Err(at(format!(
                "its folder {folder:?} is also {other:?}'s: give names that differ in more \
                 than case and punctuation"
            )));
        }
        let spec = client_defaults(spec, &file.defaults);
        planned.push(plan_client(spec, base, folder).map_err(at)?);
    }
    let source = SurveySource {
        file: path.display().to_string(),
        sha256: survey_index::digest(text.as_bytes()),
    };
    Ok((planned, source))
}

/// The agent's settings, each it does not give taken from the survey's defaults.
fn with_defaults(mut spec: AgentSpec, defaults: &Settings) -> AgentSpec {
    let own = &mut spec.settings;
    own.deadline = own.deadline.or(defaults.deadline);
    if own.select.is_empty() {
        own.select.clone_from(&defaults.select);
    }
    if own.bindings.is_empty() {
        own.bindings.clone_from(&defaults.bindings);
    }
    if own.versions.is_empty() {
        own.versions.clone_from(&defaults.versions);
    }
    own.spec_revision = own.spec_revision.take().or(defaults.spec_revision.clone());
    own.timeout = own.timeout.or(defaults.timeout);
    own.check_timeout = own.check_timeout.or(defaults.check_timeout);
    own.jobs = own.jobs.or(defaults.jobs);
    own.assume_version = own.assume_version.or(defaults.assume_version);
    spec
}

/// One agent's options, every file it names read and every value checked.
fn plan(
    spec: AgentSpec,
    base: &Path,
    jobs: Option<u16>,
    folder: String,
) -> Result<Planned, String> {
    let builtin = spec.target.as_deref() == Some("builtin");
    let mut options = match (&spec.target, &spec.card_url) {
        (Some(_), Some(_)) if builtin => {
            return Err("the built-in agent serves its own card: drop card_url".into())
        }
        (Some(_), _) if builtin => {
            let mut config = a2a_tck::run::builtin::profile();
            for fault in &spec.faults {
                config
                    .faults
                    .insert(fault.parse::<Fault>().map_err(|e| format!("faults: {e}"))?);
            }
            Options::builtin_with(config)
        }
        (Some(target), card_url) => {
            a2a_tck::exchange::card::card_url_for(target).map_err(|e| format!("target: {e}"))?;
            let options = Options::url(target);
            match card_url {
                Some(url) => options.card_url(url),
                None => options,
            }
        }
        (None, Some(card_url)) => {
            a2a_tck::exchange::card::card_url_for(card_url)
                .map_err(|e| format!("card_url: {e}"))?;
            Options::url(card_url).card_url(card_url)
        }
        (None, None) => return Err("give its target or its card_url".into()),
    };
    if !builtin && !spec.faults.is_empty() {
        return Err(
            "faults apply to the built-in reference agent only (target = \"builtin\")".into(),
        );
    }
    let target = (spec.target.clone())
        .or(spec.card_url.clone())
        .unwrap_or_default();
    let settings = &spec.settings;
    for glob in &settings.select {
        options = options.select(glob);
    }
    for binding in &settings.bindings {
        options = options.binding(*binding);
    }
    for version in &settings.versions {
        options = options.version(*version);
    }
    if let Some(revision) = &settings.spec_revision {
        if a2a_tck::facts::revision::Judging::named(revision).is_none() {
            return Err(format!(
                "spec_revision {revision:?}: the revisions are {}",
                a2a_tck::facts::revision::Judging::names().join(", ")
            ));
        }
        options = options.spec_revision(revision);
    }
    if let Some(version) = settings.assume_version {
        options = options.assume_version(version);
    }
    if let Some(timeout) = settings.timeout {
        options = options.request_timeout(seconds(timeout, "timeout")?);
    }
    if let Some(timeout) = settings.check_timeout {
        options = options.check_timeout(seconds(timeout, "check_timeout")?);
    }
    match settings.jobs.or(jobs.map(usize::from)) {
        Some(0) => return Err("jobs must be at least 1".into()),
        Some(jobs) => options = options.jobs(jobs),
        None => {}
    }
    let deadline = seconds(settings.deadline.unwrap_or(DEADLINE), "deadline")?;
    options = options.deadline(deadline);
    if spec.drive.is_some() && spec.contract.is_some() {
        return Err("a drive file replaces the scenario contract: give drive or contract".into());
    }
    if spec.sut_behaviors.is_some() && (spec.drive.is_some() || spec.contract.is_some()) {
        return Err(
            "a sut_behaviors file implies the ACTS contract and no drive file: give \
             sut_behaviors, or drive or contract"
                .into(),
        );
    }
    if let Some(contract) = &spec.contract {
        options = options.contract(match contract.as_str() {
            "official" => api::Contract::Official,
            "kit" => api::Contract::Kit,
            "acts" => api::Contract::Acts,
            "none" => api::Contract::None,
            other => {
                return Err(format!(
                    "contract {other:?}: one of official, kit, acts, none"
                ))
            }
        });
    }
    if let Some(drive) = &spec.drive {
        let drive = api::Drive::read(&base.join(drive)).map_err(|e| format!("drive {e}"))?;
        options = options.drive(drive);
    }
    if let Some(file) = &spec.sut_behaviors {
        let behaviors = a2a_tck::facts::behaviors::SutBehaviors::read(&base.join(file))
            .map_err(|e| format!("sut_behaviors {e}"))?;
        options = options.sut_behaviors(behaviors);
    }
    let floor = (spec.min_judged.as_deref())
        .map(str::parse::<api::MinJudged>)
        .transpose()
        .map_err(|e| format!("min_judged: {e}"))?;
    if let Some(floor) = floor {
        options = options.min_judged(floor);
    }
    if spec.allow_unreviewed {
        options = options.allow_unreviewed();
    }
    if let Some(expect) = &spec.expect {
        let path = base.join(expect);
        // Checked here, as a run checks --expect before its first request.
        a2a_tck::reporting::gate::Gate::load(
            Some(&path),
            floor,
            spec.allow_unreviewed,
            &a2a_tck::suite::checks::ids(),
        )?;
        let baseline = api::Baseline::load(&path)?;
        options = options.expect(baseline, path.display().to_string());
    }
    for header in spec.header_env.keys() {
        a2a_tck::exchange::wire::user_header(header, "x")
            .map_err(|e| format!("header_env: {e}"))?;
    }
    let sha256 = inputs_digest(&spec, base)?;
    Ok(Planned {
        name: spec.name.clone(),
        target,
        folder,
        sha256,
        deadline,
        subject: Subject::Agent(Box::new(spec), Box::new(options)),
    })
}

/// The client's settings, each of the survey's defaults that applies to a client (its
/// deadline, bindings and versions; not its check globs, which name agents' checks) taken
/// when it gives none.
fn client_defaults(mut spec: ClientSpec, defaults: &Settings) -> ClientSpec {
    spec.deadline = spec.deadline.or(defaults.deadline);
    if spec.bindings.is_empty() {
        spec.bindings.clone_from(&defaults.bindings);
    }
    if spec.versions.is_empty() {
        spec.versions.clone_from(&defaults.versions);
    }
    spec
}

/// One client's options and gate, every file it names read and every value checked.
fn plan_client(spec: ClientSpec, base: &Path, folder: String) -> Result<Planned, String> {
    use a2a_tck::client::adapter::Client;
    use a2a_tck::client::reference_client::ClientFault;
    let client = if spec.cmd == "builtin" {
        let faults = (spec.faults.iter())
            .map(|f| f.parse::<ClientFault>().map_err(|e| format!("faults: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Client::Reference(faults)
    } else if !spec.faults.is_empty() {
        return Err(
            "faults apply to the built-in reference client only (cmd = \"builtin\")".into(),
        );
    } else if spec.cmd.trim().is_empty() {
        return Err("cmd is empty: give the adapter's command, or builtin".into());
    } else {
        Client::Command(spec.cmd.clone())
    };
    let scenario_timeout = seconds(spec.scenario_timeout.unwrap_or(30.0), "scenario_timeout")?;
    let deadline = seconds(spec.deadline.unwrap_or(DEADLINE), "deadline")?;
    let filter = a2a_tck::suite::filter::Filter {
        select: spec.select.clone(),
        bindings: spec.bindings.clone(),
        versions: spec.versions.clone(),
        ..Default::default()
    };
    let floor = (spec.min_judged.as_deref())
        .map(str::parse::<api::MinJudged>)
        .transpose()
        .map_err(|e| format!("min_judged: {e}"))?;
    let ids: Vec<&str> = (a2a_tck::client::client_checks::all().iter())
        .map(|c| c.id)
        .collect();
    let expect = spec.expect.as_ref().map(|e| base.join(e));
    // Checked here, as `a2a-tck client` checks --expect before its first play.
    let gate = a2a_tck::reporting::gate::Gate::load(
        expect.as_deref(),
        floor,
        spec.allow_unreviewed,
        &ids,
    )?;
    let sha256 = client_digest(&spec, base)?;
    Ok(Planned {
        name: spec.name.clone(),
        target: spec.cmd.clone(),
        folder,
        sha256,
        deadline,
        subject: Subject::Client(
            ClientOptions {
                client,
                scenario_timeout,
                filter,
            },
            Box::new(gate),
        ),
    })
}

/// The digest of what a client's verdict rests on but the client itself: its entry in the
/// file (its defaults applied), its baseline's bytes and the kit's version.
fn client_digest(spec: &ClientSpec, base: &Path) -> Result<String, String> {
    #[derive(Serialize)]
    struct Inputs<'a> {
        kit_version: &'a str,
        client: &'a ClientSpec,
        files: BTreeMap<&'static str, String>,
    }
    let mut files = BTreeMap::new();
    if let Some(path) = &spec.expect {
        let path = base.join(path);
        let bytes = std::fs::read(&path).map_err(|e| format!("expect {}: {e}", path.display()))?;
        files.insert("expect", survey_index::digest(&bytes));
    }
    let inputs = Inputs {
        kit_version: env!("CARGO_PKG_VERSION"),
        client: spec,
        files,
    };
    let text = serde_json::to_string(&inputs).map_err(|e| e.to_string())?;
    Ok(survey_index::digest(text.as_bytes()))
}

/// The digest of what an agent's verdict rests on but the agent itself: its entry in the file
/// (its defaults applied), the bytes of every file the entry names (`drive`, `sut_behaviors`,
/// `expect`) and the kit's version. A resumed survey keeps an agent's entry only while this
/// is unchanged: a baseline edited, or the kit upgraded, runs it again.
fn inputs_digest(spec: &AgentSpec, base: &Path) -> Result<String, String> {
    #[derive(Serialize)]
    struct Inputs<'a> {
        kit_version: &'a str,
        agent: &'a AgentSpec,
        files: BTreeMap<&'static str, String>,
    }
    let mut files = BTreeMap::new();
    let named = [
        ("drive", &spec.drive),
        ("sut_behaviors", &spec.sut_behaviors),
        ("expect", &spec.expect),
    ];
    for (field, path) in named {
        if let Some(path) = path {
            let path = base.join(path);
            let bytes =
                std::fs::read(&path).map_err(|e| format!("{field} {}: {e}", path.display()))?;
            files.insert(field, survey_index::digest(&bytes));
        }
    }
    let inputs = Inputs {
        kit_version: env!("CARGO_PKG_VERSION"),
        agent: spec,
        files,
    };
    let text = serde_json::to_string(&inputs).map_err(|e| e.to_string())?;
    Ok(survey_index::digest(text.as_bytes()))
}

/// The agent's options with its credentials, read from the environment now.
fn with_credentials(planned: &Planned) -> Result<Options, String> {
    let read = |var: &str, field: &str| {
        std::env::var(var).map_err(|_| {
            format!("{field} {var}: the environment variable is not set (or not UTF-8)")
        })
    };
    let Subject::Agent(spec, options) = &planned.subject else {
        return Err("a client is not an agent".into());
    };
    let mut options = (**options).clone();
    if let Some(var) = &spec.bearer_env {
        options = options.bearer(read(var, "bearer_env")?.trim());
    }
    if let Some(var) = &spec.other_bearer_env {
        options = options.other_bearer(read(var, "other_bearer_env")?.trim());
    }
    if let Some(var) = &spec.limited_bearer_env {
        options = options.limited_bearer(read(var, "limited_bearer_env")?.trim());
    }
    for (header, var) in &spec.header_env {
        options = options.header(header, read(var, "header_env")?.trim());
    }
    Ok(options)
}

/// The shard asked for: `--shard I/N`, `--shard auto/N` or `--shard-count N` (I from
/// JOB_COMPLETION_INDEX).
fn shard(args: &SurveyArgs) -> Result<Option<Shard>, String> {
    let from_job = || -> Result<u32, String> {
        let text = std::env::var("JOB_COMPLETION_INDEX").map_err(|_| {
            "--shard auto/N and --shard-count take the shard from JOB_COMPLETION_INDEX, which \
             is not set"
                .to_string()
        })?;
        text.trim()
            .parse()
            .map_err(|_| format!("JOB_COMPLETION_INDEX={text:?} is not a shard number"))
    };
    let (index, count) = match (&args.shard, args.shard_count) {
        (None, None) => return Ok(None),
        (None, Some(count)) => (from_job()?, count),
        (Some(text), _) => {
            let bad = || format!("--shard {text:?}: give I/N (e.g. 0/4) or auto/N");
            let (index, count) = text.split_once('/').ok_or_else(bad)?;
            let count: u32 = count.trim().parse().map_err(|_| bad())?;
            let index = match index.trim() {
                "auto" => from_job()?,
                index => index.parse().map_err(|_| bad())?,
            };
            (index, count)
        }
    };
    if count == 0 || index >= count {
        return Err(format!(
            "shard {index}/{count}: the shard is a number from 0 to N-1, and N at least 1"
        ));
    }
    Ok(Some(Shard { index, count }))
}

/// The entry of an agent done in an earlier survey over `out`, if it may stand: it matches
/// the agent's entry in the file, its report is the one it names, and it is not too old.
fn done_before(out: &Path, planned: &Planned, max_age: Option<Duration>) -> Option<Entry> {
    let folder = out.join(&planned.folder);
    let text = std::fs::read_to_string(folder.join("entry.json")).ok()?;
    let entry: Entry = serde_json::from_str(&text).ok()?;
    if entry.agent_sha256 != planned.sha256
        || entry.name != planned.name
        || entry.kind != planned.kind()
    {
        return None;
    }
    in_its_folder(&entry).ok()?;
    let report = out.join(entry.report.as_deref()?);
    let bytes = std::fs::read(report).ok()?;
    if Some(survey_index::digest(&bytes)) != entry.report_sha256 {
        return None;
    }
    if let Some(max_age) = max_age {
        let finished = humantime::parse_rfc3339_weak(&entry.finished_at).ok()?;
        let age = SystemTime::now()
            .duration_since(finished)
            .unwrap_or_default();
        if age > max_age {
            return None;
        }
    }
    Some(entry)
}

/// The reports an agent's folder holds, by format: the index names the JSON one.
const REPORTS: [(Format, &str); 4] = [
    (Format::Junit, "junit.xml"),
    (Format::Markdown, "report.md"),
    (Format::Html, "report.html"),
    (Format::Json, "report.json"),
];

/// Runs one agent and writes its folder; its entry, or why its reports could not be written.
async fn survey_one(out: &Path, planned: &Planned) -> Result<Entry, String> {
    let folder = out.join(&planned.folder);
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    // Whatever an earlier survey left here no longer stands once this run begins.
    match std::fs::remove_file(folder.join("entry.json")) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("{}: {e}", folder.join("entry.json").display()))
        }
        _ => {}
    }
    let started = SystemTime::now();
    if let Subject::Client(options, gate) = &planned.subject {
        return survey_client(&folder, planned, options, gate, started).await;
    }
    let options = match with_credentials(planned) {
        Ok(options) => options,
        Err(e) => {
            return finish(
                &folder,
                planned,
                Entry::failed(planned.agent(), e, started, SystemTime::now()),
            )
        }
    };
    // The deadline stops the run and its report says so; this is the bound past it.
    let limit = planned.deadline + a2a_tck::facts::stop::GRACE + SAFETY;
    let report = match tokio::time::timeout(limit, api::run(&options)).await {
        Ok(Ok(report)) => report,
        Ok(Err(e)) => {
            let entry = Entry::failed(planned.agent(), e.to_string(), started, SystemTime::now());
            return finish(&folder, planned, entry);
        }
        Err(_) => {
            let error = format!(
                "no report within {} of its deadline: the run was given up",
                humantime::format_duration(limit - planned.deadline)
            );
            let entry = Entry::failed(planned.agent(), error, started, SystemTime::now());
            return finish(&folder, planned, entry);
        }
    };
    let exit_status =
        api::exit_status(&options, &report).unwrap_or(a2a_tck::reporting::gate::EXIT_KIT);
    written(&folder, planned, &report, exit_status)
}

/// Writes the reports of a run into its folder, then its entry.
fn written(
    folder: &Path,
    planned: &Planned,
    report: &api::Report,
    exit_status: u8,
) -> Result<Entry, String> {
    let mut json = String::new();
    for (format, name) in REPORTS {
        let text = format.render(report, None)?;
        let path = folder.join(name);
        a2a_tck::reporting::report::write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if format == Format::Json {
            json = text;
        }
    }
    let path = format!("{}/report.json", planned.folder);
    let entry = Entry::of(planned.agent(), report, exit_status, path, &json);
    finish(folder, planned, entry)
}

/// Runs one client through the plays `a2a-tck client` runs, under its deadline, its report
/// held to its gate as that command holds it; writes its folder.
async fn survey_client(
    folder: &Path,
    planned: &Planned,
    options: &ClientOptions,
    gate: &a2a_tck::reporting::gate::Gate,
    started: SystemTime,
) -> Result<Entry, String> {
    let mut session = a2a_tck::run::session::Session::new(gate.clone());
    session.begin();
    let run = a2a_tck::client::client_runner::run(options);
    let Ok(mut report) = tokio::time::timeout(planned.deadline, run).await else {
        let error = format!(
            "its deadline ({}) ran out before its plays ended: no report",
            humantime::format_duration(planned.deadline)
        );
        let mut entry = Entry::failed(planned.agent(), error, started, SystemTime::now());
        entry.outcome = Outcome::OverBudget;
        entry.exit_status = a2a_tck::reporting::gate::EXIT_INTERRUPTED;
        return finish(folder, planned, entry);
    };
    for note in session.end(&mut report) {
        eprintln!("{}: note: {note}", planned.name);
    }
    let exit_status = session.exit_status(&report);
    written(folder, planned, &report, exit_status)
}

/// Writes the entry into its folder, last: the mark that its folder is complete.
fn finish(folder: &Path, planned: &Planned, mut entry: Entry) -> Result<Entry, String> {
    entry.kind = planned.kind();
    let text = serde_json::to_string_pretty(&entry).map_err(|e| e.to_string())? + "\n";
    let path = folder.join("entry.json");
    a2a_tck::reporting::report::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(entry)
}

fn line(entry: &Entry, kept: bool) -> String {
    let outcome = match entry.outcome {
        Outcome::Pass => "pass",
        Outcome::Fail => "fail",
        Outcome::Error => "error",
        Outcome::OverBudget => "over budget",
    };
    let kind = match entry.kind {
        Kind::Agent => "",
        Kind::Client => " (client)",
    };
    let mut text = format!(
        "{}{kind}: {outcome} (exit {}), {:.1} s",
        entry.name,
        entry.exit_status,
        entry.duration_ms as f64 / 1000.0
    );
    if let Some(error) = &entry.error {
        text.push_str(&format!(": {error}"));
    }
    if kept {
        text.push_str(" (kept from an earlier survey)");
    }
    text
}

/// `a2a-tck survey`.
pub(crate) fn run(args: SurveyArgs) -> ExitCode {
    let usage = |e: &str| crate::usage(e);
    let (planned, source) = match read_survey(&args.file, args.jobs) {
        Ok(read) => read,
        Err(e) => return usage(&e),
    };
    let shard = match shard(&args) {
        Ok(shard) => shard,
        Err(e) => return usage(&e),
    };
    let max_age = match args.max_age.as_deref().map(humantime::parse_duration) {
        Some(Err(e)) => return usage(&format!("--max-age: {e} (e.g. 24h, 90m)")),
        Some(Ok(age)) => Some(age),
        None => None,
    };
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        return usage(&format!("--out {}: {e}", args.out.display()));
    }
    let started_at = survey_index::time(SystemTime::now());
    let mine: Vec<Planned> = (planned.into_iter())
        .filter(|p| shard.is_none_or(|s| survey_index::shard_of(&p.name, s.count) == s.index))
        .collect();
    let mut entries = Vec::new();
    let mut todo = Vec::new();
    for planned in &mine {
        match (!args.fresh)
            .then(|| done_before(&args.out, planned, max_age))
            .flatten()
        {
            Some(entry) => {
                eprintln!("{}", line(&entry, true));
                entries.push(entry);
            }
            None => todo.push(planned),
        }
    }
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let out = args.out.clone();
    let total = todo.len();
    let (interrupted, failures) = runtime.block_on(async {
        let mut signals = super::signals::Signals::listen();
        let mut running = futures::stream::iter(todo)
            .map(|planned| {
                let out = out.clone();
                async move {
                    let started = SystemTime::now();
                    (planned, started, survey_one(&out, planned).await)
                }
            })
            .buffer_unordered(usize::from(args.agents));
        let mut failures = Vec::new();
        let mut done = 0;
        let interrupted = loop {
            tokio::select! {
                next = running.next() => match next {
                    Some((_, _, Ok(entry))) => {
                        done += 1;
                        eprintln!("[{done}/{total}] {}", line(&entry, false));
                        entries.push(entry);
                    }
                    // Its reports could not be written: an entry that says why, and no
                    // entry.json, so that a survey started again runs it again.
                    Some((planned, started, Err(e))) => {
                        done += 1;
                        let error = format!("its reports could not be written: {e}");
                        let mut entry =
                            Entry::failed(planned.agent(), error, started, SystemTime::now());
                        entry.kind = planned.kind();
                        eprintln!("[{done}/{total}] {}", line(&entry, false));
                        failures.push(format!("{}: {e}", planned.name));
                        entries.push(entry);
                    }
                    None => break None,
                },
                Some((name, code)) = signals.next() => {
                    eprintln!(
                        "{name}: the survey stops; the agents in flight run again when it is \
                         started again over {}",
                        out.display()
                    );
                    break Some(code);
                }
            }
        };
        (interrupted, failures)
    });
    // The agents still running when a signal came are dropped with the runtime.
    runtime.shutdown_background();
    let planned_names = mine.iter().map(|p| p.name.clone()).collect();
    let shard_held = shard.unwrap_or(Shard { index: 0, count: 1 });
    let index = SurveyIndex::new(
        source,
        vec![shard_held],
        planned_names,
        started_at,
        entries,
        interrupted,
    );
    let path = args.out.join("index.json");
    if let Err(e) = a2a_tck::reporting::report::write_atomic(&path, index.to_json().as_bytes()) {
        eprintln!("error: {}: {e}", path.display());
        return ExitCode::from(a2a_tck::reporting::gate::EXIT_KIT);
    }
    let counts: Vec<String> = (index.outcomes.iter())
        .map(|(outcome, n)| {
            let name = serde_json::to_value(outcome)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            format!("{n} {name}")
        })
        .collect();
    eprintln!(
        "survey: {} agent(s){}: {}; index written to {}",
        index.agents.len(),
        shard.map_or(String::new(), |s| format!(
            " in shard {}/{}",
            s.index, s.count
        )),
        if counts.is_empty() {
            "none".to_string()
        } else {
            counts.join(", ")
        },
        path.display()
    );
    for failure in &failures {
        eprintln!("error: {failure}");
    }
    if let Some(code) = interrupted {
        return ExitCode::from(code);
    }
    if !failures.is_empty() {
        return ExitCode::from(a2a_tck::reporting::gate::EXIT_KIT);
    }
    ExitCode::from(index.exit_status)
}

/// `a2a-tck merge`.
pub(crate) fn merge(args: MergeArgs) -> ExitCode {
    let usage = |e: &str| crate::usage(e);
    let mut indexes = Vec::new();
    for dir in &args.dirs {
        match SurveyIndex::read(&dir.join("index.json")) {
            Ok(index) if !index.complete => {
                return usage(&format!(
                    "{}: the survey there was stopped before its end (exit status {}): start \
                     it again over that folder to finish it, then merge",
                    dir.display(),
                    index.exit_status
                ))
            }
            Ok(index) => indexes.push(index),
            Err(e) => return usage(&e),
        }
    }
    let merged = match survey_index::merge(&indexes) {
        Ok(merged) => merged,
        Err(e) => return usage(&e),
    };
    // An index is a file anyone may have edited: nothing is read or written outside the
    // folders it names, each of them an agent's own, under the shard's folder and --out.
    for entry in &merged.index.agents {
        if let Err(e) = in_its_folder(entry) {
            return usage(&format!("{}: {e}", entry.name));
        }
    }
    for note in &merged.notes {
        eprintln!("note: {note}");
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        return usage(&format!("--out {}: {e}", args.out.display()));
    }
    let out = std::fs::canonicalize(&args.out).unwrap_or_else(|_| args.out.clone());
    for entry in &merged.index.agents {
        let Some(report) = &entry.report else {
            continue;
        };
        let from = &args.dirs[merged.from[&entry.name]];
        let Some(folder) = Path::new(report).parent() else {
            continue;
        };
        let source = from.join(folder);
        if let Err(e) = copy_checked(&source, &out.join(folder), entry, &from.join(report)) {
            return usage(&format!("{}: {e}", entry.name));
        }
    }
    let path = args.out.join("index.json");
    if let Err(e) =
        a2a_tck::reporting::report::write_atomic(&path, merged.index.to_json().as_bytes())
    {
        return usage(&format!("{}: {e}", path.display()));
    }
    eprintln!(
        "merge: {} agent(s) from {} index(es); index written to {}",
        merged.index.agents.len(),
        indexes.len(),
        path.display()
    );
    ExitCode::from(merged.index.exit_status)
}

/// Whether the entry's report is where a survey writes it, `FOLDER/report.json` in the agent's
/// folder: no absolute path, no `..`, no other agent's folder.
fn in_its_folder(entry: &Entry) -> Result<(), String> {
    let Some(report) = &entry.report else {
        return Ok(());
    };
    let folder = survey_index::folder_of(&entry.name);
    let expected = format!("{folder}/report.json");
    if folder.chars().all(|c| c == '.') || *report != expected {
        return Err(format!(
            "its index names the report {report:?}; a survey writes it at {expected:?}, in the \
             agent's folder, and merge copies no report from elsewhere"
        ));
    }
    Ok(())
}

/// Copies an agent's folder `source` into `target` (nothing when they are one folder), once its
/// JSON report (`report`) is checked to be the one the entry names.
fn copy_checked(source: &Path, target: &Path, entry: &Entry, report: &Path) -> Result<(), String> {
    let bytes = std::fs::read(report).map_err(|e| format!("{}: {e}", report.display()))?;
    if Some(survey_index::digest(&bytes)) != entry.report_sha256 {
        return Err(format!(
            "{} is not the report its index names (its digest differs)",
            report.display()
        ));
    }
    let source = std::fs::canonicalize(source).map_err(|e| format!("{}: {e}", source.display()))?;
    if std::fs::canonicalize(target).is_ok_and(|t| t == source) {
        return Ok(());
    }
    std::fs::create_dir_all(target).map_err(|e| format!("{}: {e}", target.display()))?;
    for file in std::fs::read_dir(&source).map_err(|e| format!("{}: {e}", source.display()))? {
        let file = file.map_err(|e| e.to_string())?.path();
        if file.is_file() {
            let to = target.join(file.file_name().unwrap_or_default());
            std::fs::copy(&file, &to).map_err(|e| format!("{}: {e}", to.display()))?;
        }
    }
    Ok(())
}
