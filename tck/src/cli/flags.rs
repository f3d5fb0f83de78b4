//! What the command reads from the flags every run shares (the agent run, `card`, `client`,
//! `explore`): the selection, the credentials and headers, the deadlines, the CA certificates
//! and the trusted keys, each a usage error naming its flag.

use std::time::Duration;

use a2a_tck::run::runner::Filter;

use crate::cli::{RunArgs, Selection};

pub fn filter(selection: &Selection) -> Filter {
    Filter {
        level: selection.level.into(),
        select: selection.select.clone(),
        bindings: selection.bindings.iter().map(|b| (*b).into()).collect(),
        versions: selection.versions.iter().map(|v| (*v).into()).collect(),
    }
}

/// The bearer credentials of the run's principal (`--bearer`/`--bearer-env`), the second
/// principal (`--other-bearer`/`--other-bearer-env`) and the limited one
/// (`--limited-bearer`/`--limited-bearer-env`), as headers.
pub fn credentials(args: &RunArgs) -> Result<Principals, String> {
    let token = |value: &Option<String>, env: &Option<String>, flag: &str| match (value, env) {
        (Some(token), _) => Ok(Some(token.clone())),
        (None, Some(var)) => std::env::var(var).map(Some).map_err(|_| {
            format!("{flag} {var}: the environment variable is not set (or not UTF-8)")
        }),
        (None, None) => Ok(None),
    };
    let header = |token: Option<String>| -> Result<Vec<(String, String)>, String> {
        let Some(token) = token else {
            return Ok(Vec::new());
        };
        let value = format!("Bearer {}", token.trim());
        reqwest::header::HeaderValue::from_str(&value)
            .map_err(|_| "a bearer token holds characters a header cannot carry".to_string())?;
        Ok(vec![("Authorization".to_string(), value)])
    };
    Ok(Principals {
        mine: header(token(&args.bearer, &args.bearer_env, "--bearer-env")?)?,
        other: header(token(
            &args.other_bearer,
            &args.other_bearer_env,
            "--other-bearer-env",
        )?)?,
        limited: header(token(
            &args.limited_bearer,
            &args.limited_bearer_env,
            "--limited-bearer-env",
        )?)?,
    })
}

/// The headers of each principal the run holds credentials of.
pub struct Principals {
    pub mine: Vec<(String, String)>,
    pub other: Vec<(String, String)>,
    pub limited: Vec<(String, String)>,
}

/// The headers of `--header`, `--other-header` or `--limited-header` (`flag`), parsed; the error names the flag
/// and never the value.
pub fn user_headers(texts: &[String], flag: &str) -> Result<Vec<(String, String)>, String> {
    texts
        .iter()
        .map(|text| {
            a2a_tck::exchange::wire::parse_user_header(text).map_err(|e| format!("{flag}: {e}"))
        })
        .collect()
}

pub fn seconds(value: f64, flag: &str) -> Result<Duration, String> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{flag} must be a positive number of seconds"))
}

/// The PEM files of `--ca-cert`, each holding at least one certificate.
pub fn ca_certs(paths: &[std::path::PathBuf]) -> Result<Vec<Vec<u8>>, String> {
    paths
        .iter()
        .map(|path| {
            let pem = std::fs::read(path).map_err(|e| e.to_string());
            pem.and_then(|pem| a2a_tck::exchange::wire::ca_certificates(&pem).map(|_| pem))
                .map_err(|e| format!("--ca-cert {}: {e}", path.display()))
        })
        .collect()
}

/// The keys of every `--trusted-key` file (a JWK or a JWK set each).
pub fn trusted_keys(paths: &[std::path::PathBuf]) -> Result<Vec<serde_json::Value>, String> {
    let mut keys = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path);
        let read = text.map_err(|e| e.to_string());
        match read.and_then(|text| a2a_tck::facts::jws::trusted_keys(&text)) {
            Ok(found) => keys.extend(found),
            Err(e) => return Err(format!("--trusted-key {}: {e}", path.display())),
        }
    }
    Ok(keys)
}
