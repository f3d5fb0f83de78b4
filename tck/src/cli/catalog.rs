//! The binary's commands over the catalogue (`list`, `explain`); part of the `a2a-tck` binary,
//! not of the library. One catalogue, two sides: the checks of an agent (`a2a_tck::suite::checks`) and
//! those of a client (`a2a_tck::client::client_checks`, judged by `a2a-tck client`), both checks of the
//! one model, listed and explained by the same code.

use a2a_tck::run::runner::Filter;
use a2a_tck::suite::check::{Check, Scope};
use a2a_tck::{client::client_checks, suite::checks};

/// Which side a check judges.
fn side<Run>(check: &Check<Run>) -> &'static str {
    if check.scope.is_play() {
        "client"
    } else {
        "agent"
    }
}

/// Whether a check runs where `--binding` / `--protocol-version` point (card checks always
/// run; a client's plays run on every binding the client declares).
fn runs_there<Run>(filter: &Filter, check: &Check<Run>) -> bool {
    let version = |versions: &[a2a_tck::suite::check::ProtocolVersion]| {
        filter.versions.is_empty() || versions.iter().any(|v| filter.versions.contains(v))
    };
    match check.scope {
        Scope::Card => true,
        Scope::Interface { bindings, versions } => {
            (filter.bindings.is_empty() || bindings.iter().any(|b| filter.bindings.contains(b)))
                && version(versions)
        }
        Scope::Play { versions, .. } => version(versions),
    }
}

fn versions(versions: &[a2a_tck::suite::check::ProtocolVersion], sep: &str) -> String {
    let v: Vec<&str> = versions.iter().map(|v| v.as_str()).collect();
    v.join(sep)
}

/// One line of `list`.
fn line<Run>(check: &Check<Run>) -> String {
    let scope = match check.scope {
        Scope::Card => "card".to_string(),
        Scope::Interface {
            bindings,
            versions: v,
        } => {
            let b: Vec<&str> = bindings.iter().map(|b| b.as_str()).collect();
            format!("{} {}", b.join(","), versions(v, ","))
        }
        Scope::Play { play, versions: v } => format!("play {play} {}", versions(v, ",")),
    };
    format!(
        "{:<52} {:<6} {:<6} {:>3} §{:<7} {:<22} {}",
        check.id,
        side(check),
        check.level.as_str(),
        check.spec.version,
        check.spec.section,
        scope,
        check.requirement
    )
}

/// `a2a-tck list`: every check the filter keeps, of an agent and of a client (`client_only`:
/// the client's alone), one line each, with its side and where it runs.
pub fn list(filter: &Filter, client_only: bool) -> Result<(), String> {
    let catalog = checks::all();
    let client = filter.apply(client_checks::all());
    let (agent, client) = if client_only {
        (Vec::new(), client?)
    } else {
        match (filter.apply(&catalog), client) {
            (Err(e), Err(_)) => return Err(e),
            (agent, client) => (agent.unwrap_or_default(), client.unwrap_or_default()),
        }
    };
    let agent: Vec<String> = (agent.into_iter())
        .filter(|c| runs_there(filter, c))
        .map(line)
        .collect();
    let client: Vec<String> = (client.into_iter())
        .filter(|c| runs_there(filter, c))
        .map(line)
        .collect();
    for line in agent.iter().chain(&client) {
        println!("{line}");
    }
    if client_only {
        println!(
            "{} client checks over {} plays",
            client.len(),
            a2a_tck::client::plays::table().plays.len()
        );
    } else {
        println!(
            "{} checks: {} of an agent, {} of a client (a2a-tck client)",
            agent.len() + client.len(),
            agent.len(),
            client.len()
        );
    }
    Ok(())
}

/// `a2a-tck explain ID`: one check in full, of either side.
pub fn explain(id: &str) -> Result<(), String> {
    let catalog = checks::all();
    if let Some(check) = catalog.iter().find(|c| c.id == id) {
        explain_check(check);
        for gate in check.requires {
            println!("  applies when {gate}");
        }
        if let Some(level) = pinned_levels(check) {
            println!("  level by revision  {level}");
        }
        return Ok(());
    }
    if let Some(check) = client_checks::find(id) {
        explain_check(check);
        if let Some(play) = client_checks::play_of(check).and_then(a2a_tck::client::plays::play) {
            println!("  play         {}", play.description);
            if !play.needs.is_empty() {
                println!("  needs        {}", play.needs.join(", "));
            }
        }
        return Ok(());
    }
    Err(format!("no check has the id {id:?} (see `a2a-tck list`)"))
}

/// What every check shows, whichever side it judges.
fn explain_check<Run>(check: &Check<Run>) {
    println!("{}\n", check.id);
    println!("  requirement  {}", check.requirement);
    println!("  level        {}", check.level);
    println!(
        "  side         {}",
        match side(check) {
            "client" => "a client (a2a-tck client)",
            _ => "an agent",
        }
    );
    println!(
        "  spec         A2A {} §{}",
        check.spec.version, check.spec.section
    );
    println!("  statements   {}", check.spec.statements.join(", "));
    let scope = match check.scope {
        Scope::Card => "the agent card".to_string(),
        Scope::Interface {
            bindings,
            versions: v,
        } => format!(
            "every declared interface of binding {} and version {}",
            bindings
                .iter()
                .map(|b| b.as_str())
                .collect::<Vec<_>>()
                .join("/"),
            versions(v, "/")
        ),
        Scope::Play { play, versions: v } => format!(
            "the play {play}, on every binding the client declares, at version {}",
            versions(v, "/")
        ),
    };
    println!("  runs on      {scope}");
    if !check.maps_to.is_empty() {
        println!("  official TCK {}", check.maps_to.join(", "));
    }
    if !check.acts.is_empty() {
        println!("  ACTS         {}", check.acts.join(", "));
    }
    if let Some(reading) = check.reading {
        println!("  reading      {reading}");
    }
    // Where the revisions of 1.0 word its sentence differently (`--spec-revision`).
    for line in a2a_tck::suite::revised::differences(check.id) {
        println!("  by revision  {line}");
    }
}

/// The level `check` is judged at under each pinned revision, when one differs from its own.
fn pinned_levels(check: &a2a_tck::suite::check::Check) -> Option<String> {
    let levels: Vec<(&str, a2a_tck::suite::check::Level)> = (a2a_tck::facts::revision::REVISIONS
        .iter())
    .map(|r| {
        let judging = a2a_tck::facts::revision::Judging::Pinned(r);
        (r.tag, a2a_tck::suite::revised::level(check, judging))
    })
    .collect();
    levels.iter().any(|(_, l)| *l != check.level).then(|| {
        let each: Vec<String> = levels
            .iter()
            .map(|(tag, level)| format!("--spec-revision {tag}: {level}"))
            .collect();
        format!("{}; latest (default): {}", each.join(", "), check.level)
    })
}
