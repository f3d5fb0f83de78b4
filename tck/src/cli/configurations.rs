//! `--configuration NAME=URL` and `--plan FILE`: the agent's other configurations, read
//! before the first request, and their runs made after the default one and merged into its
//! report (`a2a_tck::run::configurations`).

use std::path::Path;

use a2a_tck::reporting::report::{Report, Verdict};
use a2a_tck::run::configurations::{self, Configuration};
use a2a_tck::run::runner::RunOptions;
use a2a_tck::suite::check::Check;
use serde::Deserialize;

use crate::cli::{ConfigurationArgs, RunArgs};

/// One other configuration as asked for: where it is and its principals' credentials.
pub(crate) struct Wanted {
    name: String,
    target: String,
    card_url: Option<String>,
    bearer: Option<String>,
    limited_bearer: Option<String>,
    other_bearer: Option<String>,
}

/// A run plan (`--plan`): the other configurations, credentials by environment variable.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Plan {
    #[serde(default)]
    configuration: Vec<PlanEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanEntry {
    name: String,
    target: String,
    card_url: Option<String>,
    bearer_env: Option<String>,
    limited_bearer_env: Option<String>,
    other_bearer_env: Option<String>,
}

/// `NAME=VALUE`, split; `flag` names the flag in the error.
fn pair<'a>(text: &'a str, flag: &str) -> Result<(&'a str, &'a str), String> {
    text.split_once('=')
        .filter(|(name, value)| !name.is_empty() && !value.is_empty())
        .ok_or_else(|| format!("{flag} takes NAME=VALUE"))
}

/// The token in environment variable `var`.
fn from_env(var: &str, flag: &str) -> Result<String, String> {
    std::env::var(var)
        .map_err(|_| format!("{flag} {var}: the environment variable is not set (or not UTF-8)"))
}

/// The other configurations the arguments ask for (the plan's first, then the flags'), each
/// credential read; a usage error names the flag.
pub(crate) fn wanted(args: &ConfigurationArgs) -> Result<Vec<Wanted>, String> {
    let mut wanted: Vec<Wanted> = Vec::new();
    if let Some(path) = &args.plan {
        wanted.extend(read_plan(path)?);
    }
    for text in &args.configurations {
        let (name, target) = pair(text, "--configuration")?;
        wanted.push(Wanted {
            name: name.to_string(),
            target: target.to_string(),
            card_url: None,
            bearer: None,
            limited_bearer: None,
            other_bearer: None,
        });
    }
    for (i, entry) in wanted.iter().enumerate() {
        let valid = (entry.name.chars()).all(|c| c.is_ascii_alphanumeric() || "-_".contains(c));
        if !valid || entry.name == "default" {
            return Err(format!(
                "configuration name {:?}: letters, digits, - and _ only, and not `default` \
                 (the configuration of --target)",
                entry.name
            ));
        }
        if wanted[..i].iter().any(|w| w.name == entry.name) {
            return Err(format!("configuration {} is given twice", entry.name));
        }
        a2a_tck::exchange::card::card_url_for(&entry.target)
            .map_err(|e| format!("configuration {}: {e}", entry.name))?;
    }
    let mut set =
        |texts: &[String], flag: &str, env: bool, field: fn(&mut Wanted) -> &mut Option<String>| {
            for text in texts {
                let (name, value) = pair(text, flag)?;
                let entry = (wanted.iter_mut()).find(|w| w.name == name).ok_or_else(|| {
                format!("{flag} {name}=...: no configuration {name} (--configuration {name}=URL)")
            })?;
                let slot = field(entry);
                if slot.is_some() {
                    return Err(format!(
                        "{flag}: configuration {name} has its value already"
                    ));
                }
                *slot = Some(if env {
                    from_env(value, flag)?
                } else {
                    value.to_string()
                });
            }
            Ok::<(), String>(())
        };
    set(&args.card_urls, "--configuration-card-url", false, |w| {
        &mut w.card_url
    })?;
    set(&args.bearers, "--configuration-bearer", false, |w| {
        &mut w.bearer
    })?;
    set(&args.bearer_envs, "--configuration-bearer-env", true, |w| {
        &mut w.bearer
    })?;
    set(
        &args.limited_bearers,
        "--configuration-limited-bearer",
        false,
        |w| &mut w.limited_bearer,
    )?;
    set(
        &args.limited_bearer_envs,
        "--configuration-limited-bearer-env",
        true,
        |w| &mut w.limited_bearer,
    )?;
    for entry in &wanted {
        let tokens = [&entry.bearer, &entry.limited_bearer, &entry.other_bearer];
        for token in tokens.into_iter().flatten() {
            bearer_header(token)?;
        }
    }
    Ok(wanted)
}

/// The configurations of a run plan, their credentials read from the environment.
fn read_plan(path: &Path) -> Result<Vec<Wanted>, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("--plan {shown}: {e}"))?;
    let plan: Plan = toml::from_str(&text).map_err(|e| format!("--plan {shown}: {e}"))?;
    let flag = format!("--plan {shown}:");
    let read = |var: &Option<String>| var.as_deref().map(|v| from_env(v, &flag)).transpose();
    (plan.configuration.into_iter())
        .map(|entry| {
            Ok(Wanted {
                bearer: read(&entry.bearer_env)?,
                limited_bearer: read(&entry.limited_bearer_env)?,
                other_bearer: read(&entry.other_bearer_env)?,
                name: entry.name,
                target: entry.target,
                card_url: entry.card_url,
            })
        })
        .collect()
}

/// `Authorization: Bearer TOKEN`, when a header can carry it.
fn bearer_header(token: &str) -> Result<(String, String), String> {
    let value = format!("Bearer {}", token.trim());
    reqwest::header::HeaderValue::from_str(&value)
        .map_err(|_| "a bearer token holds characters a header cannot carry".to_string())?;
    Ok(("Authorization".to_string(), value))
}

impl Wanted {
    /// The options of this configuration's run: the default run's (its selection, limits,
    /// contract, CA certificates, webhook, stop), with this configuration's target, card and
    /// credentials. The `--header` values are sent here too, but for an `Authorization` of
    /// theirs when the configuration has a bearer token; the default configuration's
    /// principals (`--bearer`, `--other-*`, `--limited-*`) are not.
    fn options(&self, base: &RunOptions, args: &RunArgs) -> Result<RunOptions, String> {
        let mut options = base.clone();
        options.target = self.target.clone();
        options.card_url = match &self.card_url {
            Some(url) => url.clone(),
            None => {
                a2a_tck::exchange::card::card_url_for(&self.target).map_err(|e| e.to_string())?
            }
        };
        options.builtin = false;
        if args.jobs.is_none() {
            options.jobs = a2a_tck::run::runner::TARGET_JOBS;
        }
        let mut headers = (args.headers.iter())
            .map(|text| a2a_tck::exchange::wire::parse_user_header(text))
            .collect::<Result<Vec<_>, _>>()?;
        let header = |token: &Option<String>| token.as_deref().map(bearer_header).transpose();
        if let Some(bearer) = header(&self.bearer)? {
            headers.retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
            headers.push(bearer);
        }
        options.headers = headers;
        options.limited_headers = header(&self.limited_bearer)?.into_iter().collect();
        options.other_headers = header(&self.other_bearer)?.into_iter().collect();
        Ok(options)
    }
}

/// Runs the other configurations after the default run that made `report` (unless it could
/// not start or was stopped) and merges what they judged into it: the one report of the run.
pub(crate) async fn test_and_merge(
    catalog: &[Check],
    report: Report,
    wanted: &[Wanted],
    base: &RunOptions,
    args: &RunArgs,
) -> Report {
    if wanted.is_empty() || report.verdict == Verdict::Error || report.interrupted {
        return report;
    }
    let mut each = Vec::new();
    for entry in wanted {
        match entry.options(base, args) {
            Ok(options) => each.push(Configuration {
                name: entry.name.clone(),
                options,
            }),
            // Checked before the first request: cannot happen.
            Err(e) => eprintln!("error: configuration {}: {e}", entry.name),
        }
    }
    if !args.quiet {
        let ids = configurations::rerun_ids(&report);
        eprintln!(
            "running {} unjudged in the default configuration again in {}",
            a2a_tck::reporting::report::plural(ids.len(), "check", "checks"),
            (wanted.iter().map(|w| w.name.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let tested = configurations::test(catalog, &report, each).await;
    configurations::merge(report, tested)
}
