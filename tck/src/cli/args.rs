//! The command line's arguments (clap): the subcommands, the selection and the run's flags.

use std::path::PathBuf;

use a2a_reference_agent::Fault;
use clap::{Args, Parser, Subcommand};

use super::arg_values::{
    duration, spec_revision, AssumeArg, BindingArg, ContractArg, LevelArg, UndeclaredArg,
    VersionArg,
};

/// Conformance test kit for the Agent2Agent (A2A) protocol.
///
/// Reads the agent card, runs every applicable check on each declared interface, prints a
/// summary, and writes the reports asked for. Exit status: 0 when the agent is conformant
/// (or, with --expect, when the baseline's gate passes), 1 when a MUST check failed, a check
/// could not be judged or a baseline entry is stale, 2 for a usage error or an unusable agent
/// card (which still writes every report asked for, with verdict `error`).
#[derive(Debug, Parser)]
#[command(
    name = "a2a-tck",
    version,
    disable_version_flag = true,
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    /// Print the kit's version.
    #[arg(short = 'V', long = "version", alias = "kit-version", action = clap::ArgAction::Version)]
    pub(crate) kit_version: (),
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run the checks (the default).
    Run(Box<RunArgs>),
    /// Run the card checks on a card file (a card under review, before it is deployed) or
    /// on the card a URL serves, without testing the agent: the same reports and exit
    /// status as a run. For a file, the checks of the HTTP response of the card fetch (media
    /// type, caching headers, well-known path) are N/A; the checks that reach the agent's
    /// interfaces are N/A either way.
    #[command(
        mut_arg("target", |a| a.hide(true)),
        mut_arg("card_url", |a| a.hide(true)),
        mut_arg("fault", |a| a.hide(true)),
        mut_arg("tls", |a| a.hide(true)),
        mut_arg("durability", |a| a.hide(true)),
        mut_arg("restart_cmd", |a| a.hide(true)),
        mut_arg("ready_timeout", |a| a.hide(true)),
        mut_arg("contract", |a| a.hide(true)),
        mut_arg("drive", |a| a.hide(true)),
        mut_arg("sut_behaviors", |a| a.hide(true)),
        mut_arg("undeclared", |a| a.hide(true)),
        mut_arg("acts_report", |a| a.hide(true)),
        mut_arg("sdk_name", |a| a.hide(true)),
        mut_arg("sdk_version", |a| a.hide(true)),
        mut_arg("sdk_language", |a| a.hide(true)),
        mut_arg("sdk_repository", |a| a.hide(true)),
        mut_arg("webhook_url", |a| a.hide(true)),
        mut_arg("webhook_listen", |a| a.hide(true)),
        mut_arg("other_bearer", |a| a.hide(true)),
        mut_arg("other_bearer_env", |a| a.hide(true)),
        mut_arg("other_headers", |a| a.hide(true)),
        mut_arg("limited_bearer", |a| a.hide(true)),
        mut_arg("limited_bearer_env", |a| a.hide(true)),
        mut_arg("limited_headers", |a| a.hide(true)),
        mut_arg("stream_wait", |a| a.hide(true)),
        mut_arg("configurations", |a| a.hide(true)),
        mut_arg("card_urls", |a| a.hide(true)),
        mut_arg("bearers", |a| a.hide(true)),
        mut_arg("bearer_envs", |a| a.hide(true)),
        mut_arg("limited_bearers", |a| a.hide(true)),
        mut_arg("limited_bearer_envs", |a| a.hide(true)),
        mut_arg("plan", |a| a.hide(true)),
        mut_arg("bindings", |a| a.hide(true)),
        mut_arg("versions", |a| a.hide(true)),
        mut_arg("spec_revision", |a| a.hide(true))
    )]
    Card(Box<CardArgs>),
    /// Judge an A2A client instead of an agent: for every play of the kit's scenario table,
    /// on every binding x version the client declares, serve a scripted agent on loopback, run
    /// the client through its adapter (--cmd; adapters/PROTOCOL.md) and judge what it sent and
    /// what it read. Without --cmd the kit's own reference client runs. The same reports,
    /// baselines and exit status as a run on an agent.
    #[command(
        mut_arg("target", |a| a.hide(true)),
        mut_arg("card_url", |a| a.hide(true)),
        mut_arg("fault", |a| a.hide(true)),
        mut_arg("tls", |a| a.hide(true)),
        mut_arg("durability", |a| a.hide(true)),
        mut_arg("restart_cmd", |a| a.hide(true)),
        mut_arg("ready_timeout", |a| a.hide(true)),
        mut_arg("contract", |a| a.hide(true)),
        mut_arg("drive", |a| a.hide(true)),
        mut_arg("sut_behaviors", |a| a.hide(true)),
        mut_arg("undeclared", |a| a.hide(true)),
        mut_arg("acts_report", |a| a.hide(true)),
        mut_arg("sdk_name", |a| a.hide(true)),
        mut_arg("sdk_version", |a| a.hide(true)),
        mut_arg("sdk_language", |a| a.hide(true)),
        mut_arg("sdk_repository", |a| a.hide(true)),
        mut_arg("webhook_url", |a| a.hide(true)),
        mut_arg("webhook_listen", |a| a.hide(true)),
        mut_arg("headers", |a| a.hide(true)),
        mut_arg("bearer", |a| a.hide(true)),
        mut_arg("bearer_env", |a| a.hide(true)),
        mut_arg("other_bearer", |a| a.hide(true)),
        mut_arg("other_bearer_env", |a| a.hide(true)),
        mut_arg("other_headers", |a| a.hide(true)),
        mut_arg("limited_bearer", |a| a.hide(true)),
        mut_arg("limited_bearer_env", |a| a.hide(true)),
        mut_arg("limited_headers", |a| a.hide(true)),
        mut_arg("trusted_keys", |a| a.hide(true)),
        mut_arg("ca_certs", |a| a.hide(true)),
        mut_arg("timeout", |a| a.hide(true)),
        mut_arg("check_timeout", |a| a.hide(true)),
        mut_arg("stream_wait", |a| a.hide(true)),
        mut_arg("configurations", |a| a.hide(true)),
        mut_arg("card_urls", |a| a.hide(true)),
        mut_arg("bearers", |a| a.hide(true)),
        mut_arg("bearer_envs", |a| a.hide(true)),
        mut_arg("limited_bearers", |a| a.hide(true)),
        mut_arg("limited_bearer_envs", |a| a.hide(true)),
        mut_arg("plan", |a| a.hide(true)),
        mut_arg("jobs", |a| a.hide(true)),
        mut_arg("spec_revision", |a| a.hide(true))
    )]
    Client(Box<ClientArgs>),
    /// Explore an agent: send seeded random sequences of operations (new tasks, follow-ups,
    /// reads, lists, cancels, subscriptions, push configs) over the interfaces its card
    /// declares, and judge each sequence by the invariants of a task's life (the
    /// lifecycle.* checks'); a sequence that breaks one is shrunk to the shortest that still
    /// does and printed as a case to replay (--replay). Bounded by --max-requests and --time;
    /// the same seed on the same agent sends the same sequences. Not part of a run of the
    /// checks. Exit status: 0 when no invariant broke, 1 when one did, 2 for a usage error or
    /// an unusable card.
    #[command(
        mut_arg("report", |a| a.help(
            "Write the exploration's JSON report here: its seed, options, sequences and every \
             violation as a case (its invariant, the sequence's length, the shrunk operations, \
             what broke), which --replay reads"
        )),
        mut_arg("junit", |a| a.hide(true)),
        mut_arg("markdown", |a| a.hide(true)),
        mut_arg("expect", |a| a.hide(true)),
        mut_arg("allow_unreviewed", |a| a.hide(true)),
        mut_arg("min_judged", |a| a.hide(true)),
        mut_arg("html", |a| a.hide(true)),
        mut_arg("sarif", |a| a.hide(true)),
        mut_arg("level", |a| a.hide(true)),
        mut_arg("select", |a| a.hide(true)),
        mut_arg("check_timeout", |a| a.hide(true)),
        mut_arg("stream_wait", |a| a.hide(true)),
        mut_arg("jobs", |a| a.hide(true)),
        mut_arg("other_bearer", |a| a.hide(true)),
        mut_arg("other_bearer_env", |a| a.hide(true)),
        mut_arg("other_headers", |a| a.hide(true)),
        mut_arg("limited_bearer", |a| a.hide(true)),
        mut_arg("limited_bearer_env", |a| a.hide(true)),
        mut_arg("limited_headers", |a| a.hide(true)),
        mut_arg("trusted_keys", |a| a.hide(true)),
        mut_arg("durability", |a| a.hide(true)),
        mut_arg("restart_cmd", |a| a.hide(true)),
        mut_arg("ready_timeout", |a| a.hide(true)),
        mut_arg("configurations", |a| a.hide(true)),
        mut_arg("card_urls", |a| a.hide(true)),
        mut_arg("bearers", |a| a.hide(true)),
        mut_arg("bearer_envs", |a| a.hide(true)),
        mut_arg("limited_bearers", |a| a.hide(true)),
        mut_arg("limited_bearer_envs", |a| a.hide(true)),
        mut_arg("plan", |a| a.hide(true)),
        mut_arg("verbose", |a| a.hide(true)),
        mut_arg("acts_report", |a| a.hide(true)),
        mut_arg("sdk_name", |a| a.hide(true)),
        mut_arg("sdk_version", |a| a.hide(true)),
        mut_arg("sdk_language", |a| a.hide(true)),
        mut_arg("sdk_repository", |a| a.hide(true)),
        mut_arg("spec_revision", |a| a.hide(true))
    )]
    Explore(Box<ExploreArgs>),
    /// Survey many agents listed in a file (TOML, or YAML by extension): each run as a run
    /// on one agent is, under its own deadline, a few at once; one folder of reports per agent
    /// and an index (DIR/index.json). Started again over the same DIR, it runs only the agents
    /// not done. Exit status: 0 when every agent passed its gate, 1 when any did not (or could
    /// not be tested), 2 for a bad survey file or an unwritable DIR.
    Survey(Box<super::survey::SurveyArgs>),
    /// Join the output folders of a survey's shards (`--shard I/N`) into one: one index and
    /// every agent's folder. An agent found in two with different reports keeps the newest.
    Merge(super::survey::MergeArgs),
    /// Write a static results site of survey runs (their index.json files or folders): a
    /// matrix of agents x areas, each cell linking to its evidence; a page per agent with its
    /// report and its history across the runs; an SVG badge per agent.
    Site(super::site::SiteArgs),
    /// List the checks, of an agent and of a client: id, side, level, spec section, where it
    /// runs, requirement.
    List(ListArgs),
    /// Show one check, of an agent or of a client: its requirement, level, side, spec sentences,
    /// reading, official TCK and ACTS ids (a client check: its play).
    Explain {
        /// The check id (see `a2a-tck list`).
        id: String,
    },
    /// Print the JSON Schema of the report format.
    Schema,
    /// Print the requirements registry's coverage: per level, the entries covered by checks,
    /// planned and untestable, and how many server-side MUST entries are covered.
    Coverage,
    /// Write a starting baseline from a report: every result the gate judges (FAIL, ERROR,
    /// UNTESTABLE; not WARN, which never fails it), each with the reason "TODO: review".
    /// Review it, then run with --expect FILE (or --allow-unreviewed while reviewing).
    Baseline {
        /// A JSON report written with --report.
        report: PathBuf,
        /// Write it here (.toml or .yaml/.yml); default: TOML on stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Compare two JSON reports: regressions, fixes, new and removed results. Exits 1 on a
    /// regression.
    Diff {
        old: PathBuf,
        new: PathBuf,
        /// Print the comparison as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the A2A wire schemas (1.0, then 0.3) the kit validates received messages
    /// against, or write them into a directory (`--write schemas`).
    Schemas {
        /// Write `a2a-1.0.wire.schema.json` and `a2a-0.3.wire.schema.json` into DIR.
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub(crate) struct Selection {
    /// The weakest level selected: `must` selects MUST checks only, `may` all.
    #[arg(long, value_enum, default_value = "may")]
    pub(crate) level: LevelArg,
    /// Run only checks whose id matches this glob (repeatable), e.g. 'tasks.*'.
    #[arg(long = "select", value_name = "GLOB")]
    pub(crate) select: Vec<String>,
    /// Test only these bindings of the card's interfaces (comma-separated or repeated):
    /// jsonrpc, rest, grpc. Default: every binding the card declares.
    #[arg(
        long = "binding",
        value_name = "BINDING",
        value_enum,
        value_delimiter = ','
    )]
    pub(crate) bindings: Vec<BindingArg>,
    /// Test only these protocol versions of the card's interfaces (comma-separated or
    /// repeated): 0.3, 1.0. Default: every version the card declares.
    #[arg(
        long = "protocol-version",
        value_name = "VERSION",
        value_enum,
        value_delimiter = ','
    )]
    pub(crate) versions: Vec<VersionArg>,
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The agent to test: its base URL, or `builtin` for the built-in reference agent (the
    /// default, unless --card-url is given).
    #[arg(long, value_name = "URL")]
    pub(crate) target: Option<String>,
    /// Where to read the agent card (default: the target's origin + /.well-known/agent-card.json).
    /// Without --target, the agent this card describes is tested, never the built-in one.
    #[arg(long, value_name = "URL")]
    pub(crate) card_url: Option<String>,
    /// Write the JSON report here.
    #[arg(long, value_name = "PATH")]
    pub(crate) report: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "PATH")]
    pub(crate) junit: Option<PathBuf>,
    /// Write a Markdown summary here (e.g. "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "PATH")]
    pub(crate) markdown: Option<PathBuf>,
    /// A reviewed baseline of expected results (.toml or .yaml): the results it expects do
    /// not fail the run, its stale entries do; the exit status follows its gate.
    #[arg(long, value_name = "FILE")]
    pub(crate) expect: Option<PathBuf>,
    /// Accept baseline entries whose reason is still "TODO: review" (as `a2a-tck baseline`
    /// writes them) while a team reviews; without it they are errors.
    #[arg(long, requires = "expect")]
    pub(crate) allow_unreviewed: bool,
    /// Fail the run (exit 1) unless it judged at least this much: a count of results (PASS,
    /// WARN or FAIL; not N/A, ERROR or UNTESTABLE), e.g. 120, or a percentage of the results
    /// planned, e.g. 80%. A run that leaves checks out (a selection, no scenario contract) passes
    /// on what it ran, its verdict saying `partial`; this floor keeps such a run from gating.
    #[arg(long, value_name = "N|P%")]
    pub(crate) min_judged: Option<a2a_tck::reporting::floor::MinJudged>,
    /// Write a self-contained HTML report here (one file, no network needed to view it).
    #[arg(long, value_name = "PATH")]
    pub(crate) html: Option<PathBuf>,
    /// Write a SARIF 2.1.0 log here, for code-scanning views: each FAIL, WARN, ERROR and
    /// UNTESTABLE a result located in the card (with --expect, in the baseline file).
    #[arg(long, value_name = "PATH")]
    pub(crate) sarif: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) selection: Selection,
    /// Test a card that names no protocolVersion (the pre-0.3 shape: a top-level url, no
    /// supportedInterfaces) as a card of this version; only 0.3 has that shape. Without it,
    /// such a card's interfaces are named in the report, not tested.
    #[arg(long, value_name = "VERSION", value_enum)]
    pub(crate) assume_version: Option<AssumeArg>,
    /// Judge the 1.0 results by this revision of the A2A 1.0 text, where the revisions word a
    /// sentence differently (the error table, ErrorInfo in JSON-RPC errors, the REST media
    /// type): 1.0.0 or 1.0.1 strictly, each by its own keywords, with no tolerance; `latest`
    /// (the default) judges by the newest revision and tolerates (WARN) an answer an older
    /// one gave. 0.3 results are not affected.
    #[arg(long, value_name = "REVISION", value_parser = spec_revision)]
    pub(crate) spec_revision: Option<a2a_tck::facts::revision::Judging>,
    /// Deadline of one HTTP exchange, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub(crate) timeout: f64,
    /// Deadline of one check, all its exchanges included, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub(crate) check_timeout: f64,
    /// How long a stream may stay silent before the kit stops waiting for its next event, in
    /// seconds (a stream that should have closed is judged after this wait).
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    pub(crate) stream_wait: f64,
    /// The most checks run at once. The kit starts with 4 (a busy client's load, which an
    /// agent on SQLite bears) and runs more only while the agent's latency stays flat and it
    /// shows no sign of load, fewer when either changes. Default: 128 against an agent you run,
    /// 4 against the built-in one (which shares the kit's process).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) jobs: Option<u16>,
    /// The scenario contract the agent honours: `official` (the official TCK's messageId
    /// prefixes), `kit` (those and the kit's own), `acts` (the ACTS contract: the prefix
    /// starts the first text part, follow-ups are plain text), `none` (no scenario: the
    /// checks that need one are not run, and listed). Default: detected by a probe.
    #[arg(long, value_name = "CONTRACT")]
    pub(crate) contract: Option<ContractArg>,
    /// A drive file (TOML, or YAML by its extension) for an agent that plays no scenario
    /// contract: per state the kit needs (completed, input-required and the follow-up that
    /// completes it, failed, long-running, ...), which message to send, with values taken
    /// from the agent's own answer by JSON pointer. See fixtures/drive-reference.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "contract")]
    pub(crate) drive: Option<std::path::PathBuf>,
    /// An SDK's ACTS behaviour file (acts/sut-behaviors.yaml, ACTS §11): the `tck-*`
    /// prefixes its test agent plays. Implies the ACTS carrier (as --contract acts) with no
    /// probe: the kit sends only the scenarios whose ACTS counterpart the file declares, and a
    /// check that needs only undeclared ones sends nothing and is UNTESTABLE (or FAIL: see
    /// --undeclared). The report records
    /// the file, its digest and what it declares.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["drive", "contract"])]
    pub(crate) sut_behaviors: Option<std::path::PathBuf>,
    /// What a check that needs a scenario the --sut-behaviors file does not declare gets:
    /// `untestable` (the kit's rule: the kit could not bring the agent into the state) or
    /// `fail` (the ACTS runner's rule: a MUST check FAILs, a SHOULD or MAY one WARNs).
    #[arg(
        long,
        value_name = "RULE",
        value_enum,
        default_value = "untestable",
        requires = "sut_behaviors"
    )]
    pub(crate) undeclared: UndeclaredArg,
    /// Write the ACTS report (the JSON document of the ACTS runner, one per binding) of the
    /// run's 1.0 results: into DIR as acts-report-{sdk}-{transport}-{timestamp}.json, or to
    /// PATH (a name ending in .json) when one binding is tested. Each ACTS test takes its
    /// result from the kit's checks that cover it.
    #[arg(long, value_name = "DIR|PATH")]
    pub(crate) acts_report: Option<PathBuf>,
    /// The SDK named in the ACTS report (default: the card's name).
    #[arg(long, value_name = "NAME", requires = "acts_report")]
    pub(crate) sdk_name: Option<String>,
    /// The SDK's version in the ACTS report (default: the card's version).
    #[arg(long, value_name = "VERSION", requires = "acts_report")]
    pub(crate) sdk_version: Option<String>,
    /// The SDK's language in the ACTS report (default: unknown).
    #[arg(long, value_name = "LANGUAGE", requires = "acts_report")]
    pub(crate) sdk_language: Option<String>,
    /// The SDK's repository in the ACTS report (default: none).
    #[arg(long, value_name = "URL", requires = "acts_report")]
    pub(crate) sdk_repository: Option<String>,
    /// Send this header on every request, e.g. credentials: 'Authorization: Bearer <token>'
    /// (repeatable). Values never appear in reports. Not A2A-Version nor A2A-Extensions, which
    /// the kit sets itself (--protocol-version selects the protocol versions).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub(crate) headers: Vec<String>,
    /// Send `Authorization: Bearer TOKEN` on every request (redacted in every output).
    #[arg(long, value_name = "TOKEN")]
    pub(crate) bearer: Option<String>,
    /// Like --bearer, the token read from this environment variable (kept off the command
    /// line and out of shell history).
    #[arg(long, value_name = "VAR", conflicts_with = "bearer")]
    pub(crate) bearer_env: Option<String>,
    /// A second principal's bearer token, used only by the checks that one principal cannot
    /// see another's tasks (redacted).
    #[arg(long, value_name = "TOKEN")]
    pub(crate) other_bearer: Option<String>,
    /// Like --other-bearer, the token read from this environment variable.
    #[arg(long, value_name = "VAR", conflicts_with = "other_bearer")]
    pub(crate) other_bearer_env: Option<String>,
    /// A second principal's header, for agents whose credentials are not bearer tokens:
    /// 'X-API-Key: <key>' (repeatable; redacted).
    #[arg(long = "other-header", value_name = "NAME: VALUE")]
    pub(crate) other_headers: Vec<String>,
    /// A limited principal's bearer token: one the agent authenticates but permits nothing
    /// the kit tries (no SendMessage, no extended card beyond the public card), used only by
    /// the checks that such a caller gets an authorization error (redacted). Without it
    /// those checks are N/A.
    #[arg(long, value_name = "TOKEN")]
    pub(crate) limited_bearer: Option<String>,
    /// Like --limited-bearer, the token read from this environment variable.
    #[arg(long, value_name = "VAR", conflicts_with = "limited_bearer")]
    pub(crate) limited_bearer_env: Option<String>,
    /// A limited principal's header, for agents whose credentials are not bearer tokens:
    /// 'X-API-Key: <key>' (repeatable; redacted).
    #[arg(long = "limited-header", value_name = "NAME: VALUE")]
    pub(crate) limited_headers: Vec<String>,
    /// A public key trusted for the card's signatures: a file holding a JWK or a JWK Set
    /// (repeatable); used besides the key set the signature's `jku` names.
    #[arg(long = "trusted-key", value_name = "FILE")]
    pub(crate) trusted_keys: Vec<std::path::PathBuf>,
    /// Break a named rule in the built-in reference agent (repeatable; builtin target only).
    #[arg(long, value_name = "NAME")]
    pub(crate) fault: Vec<Fault>,
    /// Trust this CA certificate (PEM file) besides the system's, for an https target with a
    /// private CA (repeatable).
    #[arg(long = "ca-cert", value_name = "FILE")]
    pub(crate) ca_certs: Vec<std::path::PathBuf>,
    /// Serve the built-in reference agent over TLS (a private CA made at start, which the kit
    /// then trusts), so the tls.* checks run (builtin target only).
    #[arg(long)]
    pub(crate) tls: bool,
    /// The URL the agent must call for push notifications when it cannot reach the kit on
    /// 127.0.0.1 (it runs in a container or on another host), e.g.
    /// http://host.docker.internal:8099/hooks; the kit's receiver then listens on 0.0.0.0 at
    /// the URL's port (or at --webhook-listen). Default: an ephemeral port on 127.0.0.1.
    #[arg(long, value_name = "URL")]
    pub(crate) webhook_url: Option<String>,
    /// The address the kit's webhook receiver binds, e.g. 0.0.0.0:8099 (default: 127.0.0.1
    /// on an ephemeral port, or 0.0.0.0 on the port of --webhook-url).
    #[arg(long, value_name = "ADDR")]
    pub(crate) webhook_listen: Option<std::net::SocketAddr>,
    /// Print only the verdict line.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// List every result in the summary (N/A, PASS and not-run ones are counted otherwise),
    /// with longer messages.
    #[arg(long, short, conflicts_with = "quiet")]
    pub(crate) verbose: bool,
    // --- durability (restart the target in the middle of the run) ---
    /// A shell command that restarts the target (run with `sh -c` in the middle of the run; it
    /// must exit 0 once the old process has stopped). Runs the durability.* checks.
    #[arg(long, value_name = "CMD")]
    pub(crate) restart_cmd: Option<String>,
    /// How long the restart and the agent answering its card again may take, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub(crate) ready_timeout: f64,
    /// Run the durability.* checks against the built-in agent: it keeps its tasks in a SQLite
    /// file in a temporary directory and is restarted in-process in the middle of the run.
    #[arg(long)]
    pub(crate) durability: bool,
    #[command(flatten)]
    pub(crate) configurations: ConfigurationArgs,
}

/// The agent's other configurations (the same agent started otherwise), whose judged results
/// fill in what the default one left N/A or UNTESTABLE.
#[derive(Debug, Args, Default)]
pub(crate) struct ConfigurationArgs {
    /// Test the agent in another configuration too: NAME=URL, the base URL of the same agent
    /// started otherwise (e.g. reduced=http://127.0.0.1:9102 with streaming, push and the
    /// extended card off; auth=http://127.0.0.1:9103 with security enforced). The checks N/A
    /// or UNTESTABLE in the default configuration (--target) are run again there, and what it
    /// judges is taken into the one report, each result naming its configuration
    /// (repeatable).
    #[arg(long = "configuration", value_name = "NAME=URL")]
    pub(crate) configurations: Vec<String>,
    /// Where a configuration's card is read: NAME=URL (default: the well-known path of its
    /// URL's origin).
    #[arg(long = "configuration-card-url", value_name = "NAME=URL")]
    pub(crate) card_urls: Vec<String>,
    /// A configuration's bearer token: NAME=TOKEN, sent on its every request (redacted). The
    /// default configuration's credentials (--bearer, ...) are its own.
    #[arg(long = "configuration-bearer", value_name = "NAME=TOKEN")]
    pub(crate) bearers: Vec<String>,
    /// Like --configuration-bearer, the token read from an environment variable: NAME=VAR.
    #[arg(long = "configuration-bearer-env", value_name = "NAME=VAR")]
    pub(crate) bearer_envs: Vec<String>,
    /// A configuration's limited principal (authenticates, lacks permission; see
    /// --limited-bearer): NAME=TOKEN.
    #[arg(long = "configuration-limited-bearer", value_name = "NAME=TOKEN")]
    pub(crate) limited_bearers: Vec<String>,
    /// Like --configuration-limited-bearer, the token read from an environment variable:
    /// NAME=VAR.
    #[arg(long = "configuration-limited-bearer-env", value_name = "NAME=VAR")]
    pub(crate) limited_bearer_envs: Vec<String>,
    /// A run plan (TOML): the other configurations, each a [[configuration]] table with
    /// `name`, `target` and optionally `card_url`, `bearer_env`, `limited_bearer_env` and
    /// `other_bearer_env` (credentials by environment variable only). Besides --configuration.
    #[arg(long, value_name = "FILE")]
    pub(crate) plan: Option<PathBuf>,
}

impl ConfigurationArgs {
    /// Whether any of these flags was given.
    pub(crate) fn given(&self) -> bool {
        !self.configurations.is_empty()
            || !self.card_urls.is_empty()
            || !self.bearers.is_empty()
            || !self.bearer_envs.is_empty()
            || !self.limited_bearers.is_empty()
            || !self.limited_bearer_envs.is_empty()
            || self.plan.is_some()
    }
}

#[derive(Debug, Args)]
pub(crate) struct ClientArgs {
    /// The adapter command that runs the client under test (adapters/PROTOCOL.md), under
    /// `sh -c`; `{card_url}` and `{scenario}` in it are replaced. Without it, the kit's
    /// reference client is judged.
    #[arg(long = "cmd", value_name = "COMMAND")]
    pub(crate) command: Option<String>,
    /// Break one rule in the reference client (repeatable; see --list-client-faults).
    #[arg(long = "client-fault", value_name = "NAME", conflicts_with = "command")]
    pub(crate) client_faults: Vec<a2a_tck::client::reference_client::ClientFault>,
    /// Print the reference client's faults and exit.
    #[arg(long)]
    pub(crate) list_client_faults: bool,
    /// How long one run of the adapter may take, in seconds; a run still going then is
    /// killed, and the checks of its play are ERROR.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub(crate) scenario_timeout: f64,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ExploreArgs {
    /// The seed of the sequences (default: a random one, printed, so that the exploration can
    /// be repeated with it).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// How many sequences to generate, at most.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) sequences: u64,
    /// How many operations each sequence has.
    #[arg(long, value_name = "N", default_value_t = 12, value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) steps: u16,
    /// Send at most this many requests, shrinking included; then stop and say so.
    #[arg(long, value_name = "N", default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_requests: u64,
    /// Take at most this long, shrinking included (e.g. 60s, 2m, or seconds); then stop and
    /// say so.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = duration)]
    pub(crate) time: std::time::Duration,
    /// Play the cases of this file again instead of generating sequences: an exploration's
    /// --report, or one case as the summary prints it (JSON). Each is judged the same way;
    /// exit status 1 when one breaks its invariant again.
    #[arg(long, value_name = "FILE")]
    pub(crate) replay: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

#[derive(Debug, Args)]
pub(crate) struct CardArgs {
    /// The card: a file (or file:// URL), or an http:// or https:// URL.
    #[arg(value_name = "FILE|URL")]
    pub(crate) source: String,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    pub(crate) selection: Selection,
    /// List only the checks of a client (those `a2a-tck client` runs); without it, `list`
    /// shows the checks of both sides, each line naming its side.
    #[arg(long)]
    pub(crate) client: bool,
}
