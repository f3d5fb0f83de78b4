//! The binary's commands over the catalogue (`list`, `explain`); part of the `a2a-tck` binary,
//! not of the library.

use a2a_tck::check::Scope;
use a2a_tck::checks;
use a2a_tck::runner::Filter;

/// `a2a-tck list`: every check the filter keeps, one line each, with where it runs.
pub fn list(filter: &Filter) -> Result<(), String> {
    let catalog = checks::all();
    let kept = filter.apply(&catalog)?;
    // --binding / --protocol-version keep the checks that run there (card checks always run).
    let runs_there = |scope: &Scope| match scope {
        Scope::Card => true,
        Scope::Play { .. } => false,
        Scope::Interface { bindings, versions } => {
            (filter.bindings.is_empty() || bindings.iter().any(|b| filter.bindings.contains(b)))
                && (filter.versions.is_empty()
                    || versions.iter().any(|v| filter.versions.contains(v)))
        }
    };
    let kept: Vec<_> = kept.into_iter().filter(|c| runs_there(&c.scope)).collect();
    for check in &kept {
        let scope = match check.scope {
            Scope::Card => "card".to_string(),
            Scope::Play { play, .. } => format!("play {play}"),
            Scope::Interface { bindings, versions } => {
                let b: Vec<&str> = bindings.iter().map(|b| b.as_str()).collect();
                let v: Vec<&str> = versions.iter().map(|v| v.as_str()).collect();
                format!("{} {}", b.join(","), v.join(","))
            }
        };
        println!(
            "{:<52} {:<6} {:>3} §{:<7} {:<22} {}",
            check.id,
            check.level.as_str(),
            check.spec.version,
            check.spec.section,
            scope,
            check.requirement
        );
    }
    println!("{} checks", kept.len());
    Ok(())
}

/// `a2a-tck explain ID`: one check in full.
pub fn explain(id: &str) -> Result<(), String> {
    let catalog = checks::all();
    let Some(check) = catalog.iter().find(|c| c.id == id) else {
        return explain_client(id);
    };
    println!("{}\n", check.id);
    println!("  requirement  {}", check.requirement);
    println!("  level        {}", check.level);
    println!(
        "  spec         A2A {} §{}",
        check.spec.version, check.spec.section
    );
    println!("  statements   {}", check.spec.statements.join(", "));
    let scope = match check.scope {
        Scope::Card => "the agent card".to_string(),
        Scope::Play { play, .. } => format!("the play {play} of a2a-tck client"),
        Scope::Interface { bindings, versions } => format!(
            "every declared interface of binding {} and version {}",
            bindings
                .iter()
                .map(|b| b.as_str())
                .collect::<Vec<_>>()
                .join("/"),
            versions
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join("/")
        ),
    };
    println!("  runs on      {scope}");
    for gate in check.requires {
        println!("  applies when {gate}");
    }
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
    for line in a2a_tck::revised::differences(check.id) {
        println!("  by revision  {line}");
    }
    if let Some(level) = pinned_levels(check) {
        println!("  level by revision  {level}");
    }
    Ok(())
}

/// The level `check` is judged at under each pinned revision, when one differs from its own.
fn pinned_levels(check: &a2a_tck::check::Check) -> Option<String> {
    let levels: Vec<(&str, a2a_tck::check::Level)> = (a2a_tck::revision::REVISIONS.iter())
        .map(|r| {
            let judging = a2a_tck::revision::Judging::Pinned(r);
            (r.tag, a2a_tck::revised::level(check, judging))
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

/// `a2a-tck explain ID` for a check of `a2a-tck client`.
fn explain_client(id: &str) -> Result<(), String> {
    use a2a_tck::client_checks;
    let Some(check) = client_checks::find(id) else {
        return Err(format!(
            "no check has the id {id:?} (see `a2a-tck list`, and `a2a-tck list --client` for \
             the checks of `a2a-tck client`)"
        ));
    };
    println!("{}  (a2a-tck client)\n", check.id);
    println!("  requirement  {}", check.requirement);
    println!("  level        {}", check.level);
    println!("  statements   {}", check.spec.statements.join(", "));
    if let Some(play) = client_checks::play_of(check).and_then(a2a_tck::plays::play) {
        println!("  play         {}: {}", play.id, play.description);
        if !play.needs.is_empty() {
            println!("  needs        {}", play.needs.join(", "));
        }
    }
    if let Some(reading) = check.reading {
        println!("  reading      {reading}");
    }
    Ok(())
}

/// `a2a-tck list --client`: the checks of `a2a-tck client`.
pub fn list_client() {
    use a2a_tck::client_checks;
    for check in client_checks::all() {
        println!(
            "{:<44} {:<6} {:<14} {}",
            check.id,
            check.level,
            client_checks::play_of(check).unwrap_or(""),
            check.requirement
        );
    }
    println!(
        "{} client checks over {} plays",
        client_checks::all().len(),
        a2a_tck::plays::table().plays.len()
    );
}
