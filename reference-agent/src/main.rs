//! `a2a-reference-agent`: serve the reference agent until Ctrl-C.

use std::io::{ErrorKind, Write};
use std::net::{SocketAddr, ToSocketAddrs};

use a2a_reference_agent::{
    start, switched_on, AgentConfig, Fault, ACTS_AUTH, ACTS_REDUCED_CAPABILITIES,
};
use anyhow::Context;
use clap::Parser;

/// Deterministic, scripted A2A 1.0 and 0.3 reference agent (JSON-RPC, HTTP+JSON/REST with SSE streams, gRPC) for the a2a-tck kit.
#[derive(Debug, Parser)]
#[command(version, about, after_help = ENVIRONMENT)]
struct Args {
    /// Address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port to bind (0 = pick a free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Break one named conformance rule (repeatable; see --list-faults).
    #[arg(long = "fault", value_name = "NAME")]
    faults: Vec<Fault>,
    /// Serve as an agent without streaming (card `streaming: false`; streaming calls get
    /// UnsupportedOperationError): conformant, for the checks of agents that lack it.
    #[arg(long)]
    no_streaming: bool,
    /// Delay every response of every binding by this many milliseconds (0 = none), to
    /// benchmark how a client copes with a slow agent.
    #[arg(long, value_name = "N", default_value_t = 0)]
    delay_ms: u64,
    /// Spend N microseconds of CPU on every request, one request at a time (0 = none): a
    /// single-threaded agent's work, to benchmark how close a client keeps it to busy.
    #[arg(long, value_name = "N", default_value_t = 0)]
    work_us: u64,
    /// Declare one extension with `required: true` in the card and refuse 1.0 requests
    /// that do not activate it (A2A-Extensions header / gRPC metadata).
    #[arg(long)]
    required_extension: bool,
    /// Serve every binding over TLS (HTTPS, gRPC over TLS) with a private CA and a
    /// certificate for localhost/127.0.0.1 made at start; HTTP responses carry HSTS.
    #[arg(long)]
    tls: bool,
    /// With --tls: write the CA certificate (PEM) here, for clients to trust.
    #[arg(long, value_name = "PATH", requires = "tls")]
    tls_ca_out: Option<std::path::PathBuf>,
    /// Where tasks are kept: `memory` (default; a restart forgets them) or `sqlite:PATH` (a
    /// SQLite file, created if missing: tasks, history, artifacts and contexts survive a
    /// restart on the same file). With several --bearer-token, the tasks of the principal of
    /// the N-th token (N > 1) are kept in `PATH.principal-N`.
    #[arg(long, value_name = "memory|sqlite:PATH", default_value = "memory")]
    store: a2a_reference_agent::StoreKind,
    /// Authenticated mode: every operation needs `Authorization: Bearer TOKEN` (repeatable;
    /// each token is one principal, whose tasks the others cannot see). The card then declares
    /// the bearer scheme and an extended card, served to authenticated callers only.
    #[arg(long = "bearer-token", value_name = "TOKEN")]
    bearer_tokens: Vec<String>,
    /// With --bearer-token: a token of a limited principal (repeatable), one that
    /// authenticates but may do nothing; its every request, the extended card included, is
    /// refused with an authorization error (HTTP 403, gRPC PERMISSION_DENIED).
    #[arg(
        long = "limited-token",
        value_name = "TOKEN",
        requires = "bearer_tokens"
    )]
    limited_tokens: Vec<String>,
    /// Declare and deliver push notifications (card `pushNotifications: true`): the
    /// push-config operations work and every task update is POSTed to each config's webhook.
    #[arg(long)]
    push: bool,
    /// With --push: call webhooks on any host (by default only loopback webhooks,
    /// 127.0.0.0/8, ::1 and localhost, are accepted; others get InvalidParams).
    #[arg(long, requires = "push")]
    push_allow_any_host: bool,
    /// Print the available faults and exit.
    #[arg(long)]
    list_faults: bool,
}

/// The environment variables of the official SDKs' test agents, which the ACTS runner sets to
/// start an agent in its other configurations.
const ENVIRONMENT: &str = "\
Environment (as the official SDKs' test agents read them; set to any value but empty, 0 or false):
  ITK_ACTS_REDUCED_CAPABILITIES  the ACTS \"reduced\" configuration: streaming and push
                                 notifications off (overrides --push), no extended card
  ITK_ACTS_AUTH                  the ACTS \"auth\" configuration: a bearer scheme declared and
                                 enforced, with the extended card; the token itk-valid-token is
                                 the full principal, itk-insufficient-token authenticates but
                                 lacks permission (besides any --bearer-token, --limited-token)
The two cannot be set together (the extended card comes with authentication here).";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.list_faults {
        let width = Fault::all()
            .iter()
            .map(|f| f.name().len())
            .max()
            .unwrap_or(0);
        let list: String = Fault::all()
            .iter()
            .map(|fault| format!("{:width$}  {}\n", fault.name(), fault.description()))
            .collect();
        return print(&list);
    }
    let addr: SocketAddr = (args.host.as_str(), args.port)
        .to_socket_addrs()
        .with_context(|| format!("cannot resolve {}", args.host))?
        .next()
        .with_context(|| format!("{} resolves to no address", args.host))?;
    let mut config = AgentConfig {
        no_streaming: args.no_streaming,
        delay_ms: args.delay_ms,
        work_us: args.work_us,
        required_extension: args.required_extension,
        tls: args.tls,
        store: args.store,
        bearer_tokens: args.bearer_tokens,
        limited_tokens: args.limited_tokens,
        push: args.push,
        push_allow_any_host: args.push_allow_any_host,
        ..AgentConfig::with_faults(args.faults)
    };
    let environment = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    let reduced = switched_on(environment(ACTS_REDUCED_CAPABILITIES).as_deref());
    let auth = switched_on(environment(ACTS_AUTH).as_deref());
    if reduced && auth {
        anyhow::bail!(
            "{ACTS_REDUCED_CAPABILITIES} and {ACTS_AUTH} are both set: this agent declares an \
             extended card whenever it authenticates, which the reduced configuration leaves out"
        );
    }
    if reduced {
        config.acts_reduced();
    }
    if auth {
        config.acts_auth();
    }
    let config_faults = config.faults.clone();
    let principals = config.bearer_tokens.len();
    let limited = config.limited_tokens.len();
    let agent = start(addr, config)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    if let (Some(path), Some(pem)) = (&args.tls_ca_out, agent.ca_pem()) {
        std::fs::write(path, pem)
            .with_context(|| format!("cannot write the CA certificate to {}", path.display()))?;
    }
    let faults: Vec<&str> = config_faults.iter().map(|f| f.name()).collect();
    print(&format!(
        "listening on {}\nagent card: {}\njson-rpc: {} (1.0 and 0.3)\nrest: {} (0.3 under /v1)\n\
         grpc: {} (lf.a2a.v1 and a2a.v1, {})\nfaults: {}\n{}",
        agent.base_url(),
        agent.card_url(),
        agent.jsonrpc_url(),
        agent.rest_url(),
        agent.local_addr(),
        if agent.ca_pem().is_some() {
            "TLS"
        } else {
            "h2c"
        },
        if faults.is_empty() {
            "none".to_string()
        } else {
            faults.join(", ")
        },
        if principals == 0 {
            String::new()
        } else {
            format!(
                "authentication: bearer tokens, {principals} principal(s), {limited} limited token(s)\n"
            )
        },
    ))?;
    stop_signal().await?;
    agent.shutdown().await;
    Ok(())
}

/// Writes to stdout; a closed pipe (e.g. `| head`) is not an error.
fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => Err(e).context("writing to stdout"),
        _ => Ok(()),
    }
}

/// Waits for Ctrl-C (or, on Unix, SIGTERM).
async fn stop_signal() -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut terminate =
            signal(SignalKind::terminate()).context("installing SIGTERM handler")?;
        tokio::select! {
            interrupted = tokio::signal::ctrl_c() => interrupted.context("waiting for Ctrl-C"),
            _ = terminate.recv() => Ok(()),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.context("waiting for Ctrl-C")
    }
}
