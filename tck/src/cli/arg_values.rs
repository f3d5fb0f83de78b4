//! The values of the command's flags (`--level`, `--protocol-version`, `--assume-version`,
//! `--contract`, `--undeclared`, `--binding`, `--spec-revision`, the durations) and the
//! library's type each becomes.

use a2a_tck::suite::check::{Binding, Level, ProtocolVersion};
use a2a_tck::suite::contract::Contract;
use clap::ValueEnum;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum LevelArg {
    /// MUST checks only.
    Must,
    /// MUST and SHOULD checks.
    Should,
    /// Every check.
    May,
}

impl From<LevelArg> for Level {
    fn from(level: LevelArg) -> Level {
        match level {
            LevelArg::Must => Level::Must,
            LevelArg::Should => Level::Should,
            LevelArg::May => Level::May,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum VersionArg {
    #[value(name = "0.3")]
    V0_3,
    #[value(name = "1.0")]
    V1_0,
}

impl From<VersionArg> for ProtocolVersion {
    fn from(version: VersionArg) -> ProtocolVersion {
        match version {
            VersionArg::V0_3 => ProtocolVersion::V0_3,
            VersionArg::V1_0 => ProtocolVersion::V1_0,
        }
    }
}

/// A `--spec-revision` value: a released revision of 1.0 (`1.0.0`, `1.0.1`) or `latest`.
pub(crate) fn spec_revision(value: &str) -> Result<a2a_tck::facts::revision::Judging, String> {
    a2a_tck::facts::revision::Judging::named(value).ok_or_else(|| {
        format!(
            "unknown revision {value:?}; the revisions are: {}",
            a2a_tck::facts::revision::Judging::names().join(", ")
        )
    })
}

/// The version a card that names none may be read as (`--assume-version`).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum AssumeArg {
    #[value(name = "0.3")]
    V0_3,
}

impl From<AssumeArg> for ProtocolVersion {
    fn from(version: AssumeArg) -> ProtocolVersion {
        match version {
            AssumeArg::V0_3 => ProtocolVersion::V0_3,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum ContractArg {
    Official,
    Kit,
    Acts,
    None,
}

impl From<ContractArg> for Contract {
    fn from(value: ContractArg) -> Self {
        match value {
            ContractArg::Official => Contract::Official,
            ContractArg::Kit => Contract::Kit,
            ContractArg::Acts => Contract::Acts,
            ContractArg::None => Contract::None,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum UndeclaredArg {
    /// UNTESTABLE: the kit could not bring the agent into the state the check needs.
    Untestable,
    /// FAIL (WARN for a SHOULD or MAY check), as the ACTS runner fails such a test.
    Fail,
}

impl From<UndeclaredArg> for a2a_tck::facts::behaviors::Undeclared {
    fn from(value: UndeclaredArg) -> Self {
        match value {
            UndeclaredArg::Untestable => a2a_tck::facts::behaviors::Undeclared::Untestable,
            UndeclaredArg::Fail => a2a_tck::facts::behaviors::Undeclared::Fail,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum BindingArg {
    Jsonrpc,
    Rest,
    Grpc,
}

impl From<BindingArg> for Binding {
    fn from(binding: BindingArg) -> Binding {
        match binding {
            BindingArg::Jsonrpc => Binding::Jsonrpc,
            BindingArg::Rest => Binding::Rest,
            BindingArg::Grpc => Binding::Grpc,
        }
    }
}

/// A duration: a number of seconds, or a number with units (`60s`, `2m`, `1m 30s`).
pub(crate) fn duration(text: &str) -> Result<std::time::Duration, String> {
    let parsed = match text.trim().parse::<f64>() {
        Ok(seconds) => std::time::Duration::try_from_secs_f64(seconds).map_err(|e| e.to_string()),
        Err(_) => humantime::parse_duration(text).map_err(|e| e.to_string()),
    }?;
    if parsed.is_zero() {
        return Err("a duration above zero".into());
    }
    Ok(parsed)
}
