//! The repository's GitHub Action (`action.yml`) as far as it runs here: its inputs are
//! declared and used consistently, and its script (`scripts/action.sh run`, what the Action's
//! run step calls) writes the reports, appends the Markdown to the step summary and exits with
//! the kit's status. GitHub itself is not reachable from the test machine.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn the_action_declares_every_input_it_uses_and_runs_its_script() {
    let text = std::fs::read_to_string(root().join("action.yml")).expect("action.yml");
    let action: serde_json::Value = serde_yaml_ng::from_str(&text).expect("action.yml is YAML");
    let declared: BTreeSet<&str> = action["inputs"]
        .as_object()
        .expect("inputs")
        .keys()
        .map(String::as_str)
        .collect();
    for needed in ["version", "target", "card-url", "expect", "reports", "args"] {
        assert!(declared.contains(needed), "input {needed} is not declared");
    }
    assert_eq!(
        action["inputs"]["version"]["required"], true,
        "pin a version"
    );
    let used: BTreeSet<&str> = text
        .split("inputs.")
        .skip(1)
        .filter_map(|rest| rest.split([' ', '}', '\'']).next())
        .collect();
    for input in &used {
        assert!(
            declared.contains(input),
            "inputs.{input} is used but not declared"
        );
    }
    assert_eq!(action["runs"]["using"], "composite");
    let steps = action["runs"]["steps"].as_array().expect("steps");
    let scripts: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(scripts
        .iter()
        .any(|s| s.contains("scripts/action.sh\" install")));
    assert!(scripts
        .iter()
        .any(|s| s.contains("scripts/action.sh\" run")));
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact"))
        })
        .expect("an upload step");
    assert_eq!(
        upload["if"], "always()",
        "reports are kept when the gate fails"
    );
    assert!(root().join("scripts/action.sh").is_file());
    let workflow = root().join(".github/workflows/conformance.yml");
    let workflow = std::fs::read_to_string(workflow).expect("the workflow that uses the Action");
    assert!(
        workflow.contains("uses: ./"),
        "the workflow runs the repository's Action"
    );
}

fn action_run(dir: &Path, args: &str) -> (std::process::Output, PathBuf, PathBuf) {
    let reports = dir.join("reports");
    let summary = dir.join("step-summary.md");
    std::fs::write(&summary, "earlier step\n").expect("summary file");
    let output = Command::new("bash")
        .arg(root().join("scripts/action.sh"))
        .arg("run")
        .env("A2A_TCK_BIN", support::BIN)
        .env("A2A_TCK_TARGET", "builtin")
        .env("A2A_TCK_REPORTS", &reports)
        .env("A2A_TCK_ARGS", args)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs");
    (output, reports, summary)
}

#[test]
fn the_action_script_writes_the_reports_and_the_step_summary() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (output, reports, summary) = action_run(dir.path(), "--select 'card.*' --level must");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    for name in [
        "report.json",
        "report.junit.xml",
        "report.html",
        "report.md",
    ] {
        assert!(reports.join(name).is_file(), "{name} is written");
    }
    let summary = std::fs::read_to_string(summary).expect("summary");
    let markdown = std::fs::read_to_string(reports.join("report.md")).expect("markdown");
    assert!(
        summary.starts_with("earlier step\n"),
        "appended, not replaced"
    );
    assert!(
        summary.ends_with(&markdown),
        "the Markdown report is on the summary page"
    );
    // The kit's own status comes through: a usage error is 2, and nothing is appended.
    let dir = tempfile::tempdir().expect("temp dir");
    let (output, _, summary) = action_run(dir.path(), "--jobs 0");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(summary).expect("summary"),
        "earlier step\n"
    );
    // An args input with a quote left open is refused whole, never run with the words before
    // it only (the kit would then run without the --expect after it).
    let dir = tempfile::tempdir().expect("temp dir");
    let (output, reports, _) = action_run(dir.path(), "--select 'card.* --expect base.toml");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("does not split into words"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!reports.join("report.json").exists(), "the kit did not run");
}

#[test]
fn the_baseline_file_has_one_name_throughout() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let names: BTreeSet<&str> = readme
        .split(|c: char| c.is_whitespace() || "`\"'(),:".contains(c))
        .filter(|w| w.ends_with("baseline.toml") || w.ends_with("baseline.yaml"))
        .collect();
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        ["a2a-tck-baseline.toml"],
        "one baseline file name in the README"
    );
}

// --- The install step: what it checks is what the Action caches ---

/// The paths the Action's cache restores and saves (`~` as written), read from action.yml:
/// the restore and the save step name the same paths under the same key, and the key names
/// the runner's OS and architecture and the version input.
fn cached_paths() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("action.yml")).expect("action.yml");
    let action: serde_json::Value = serde_yaml_ng::from_str(&text).expect("action.yml is YAML");
    let steps = action["runs"]["steps"].as_array().expect("steps");
    let cache_steps: Vec<&serde_json::Value> = steps
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/cache"))
        })
        .collect();
    let uses: Vec<&str> = cache_steps
        .iter()
        .filter_map(|s| s["uses"].as_str())
        .collect();
    assert_eq!(
        uses,
        ["actions/cache/restore@v4", "actions/cache/save@v4"],
        "restored before the install, saved right after it"
    );
    let paths: Vec<Vec<String>> = cache_steps
        .iter()
        .map(|s| {
            s["with"]["path"]
                .as_str()
                .expect("a cache path")
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect();
    assert_eq!(paths[0], paths[1], "the save keeps what the restore brings");
    let key = cache_steps[0]["with"]["key"].as_str().expect("a key");
    for part in ["runner.os", "runner.arch", "inputs.version"] {
        assert!(key.contains(part), "the cache key names {part}: {key}");
    }
    assert!(
        cache_steps[1]["with"]["key"]
            .as_str()
            .is_some_and(|k| k.contains("steps.restore.outputs.cache-primary-key")),
        "the save uses the restore's key"
    );
    paths[0].clone()
}

/// A stand-in toolchain: `cargo` records each call in `cargo.log` and installs a script that
/// prints the kit's version into the `--root` it is given, as `cargo install --root` would.
struct Toolchain {
    dir: tempfile::TempDir,
}

impl Toolchain {
    fn new() -> Toolchain {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("bin")).expect("bin");
        let cargo = format!(
            r#"#!/usr/bin/env bash
echo "$*" >> '{log}'
root=""; prev=""
for arg in "$@"; do [ "$prev" = --root ] && root="$arg"; prev="$arg"; done
mkdir -p "$root/bin"
printf '#!/bin/sh\necho "a2a-tck {version}"\n' > "$root/bin/a2a-tck"
chmod +x "$root/bin/a2a-tck"
"#,
            log = dir.path().join("cargo.log").display(),
            version = env!("CARGO_PKG_VERSION"),
        );
        executable(&dir.path().join("bin/cargo"), &cargo);
        Toolchain { dir }
    }

    /// How many times `cargo` ran.
    fn builds(&self) -> usize {
        std::fs::read_to_string(self.dir.path().join("cargo.log"))
            .map(|log| log.lines().count())
            .unwrap_or(0)
    }

    /// Runs `action.sh <step>` with `home` as HOME, this toolchain first on PATH, and `env`
    /// as the Action's install inputs (the others unset).
    fn step(&self, step: &str, home: &Path, env: &[(&str, &str)]) -> std::process::Output {
        let path = format!(
            "{}:{}",
            self.dir.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new("bash");
        command
            .arg(root().join("scripts/action.sh"))
            .arg(step)
            .env("HOME", home)
            .env("PATH", path)
            .env("GITHUB_PATH", home.join("github-path"))
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .env("PIP_NO_CACHE_DIR", "1");
        for name in [
            "A2A_TCK_HOME",
            "A2A_TCK_BIN",
            "A2A_TCK_REPOSITORY",
            "A2A_TCK_BINARY_URL",
            "A2A_TCK_WHEEL",
            "A2A_TCK_INDEX_URL",
            "A2A_TCK_SHA256",
        ] {
            command.env_remove(name);
        }
        command.envs(env.iter().copied());
        command.output().expect("bash runs")
    }
}

fn executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn said(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The installed kit under `home` prints the version the kit is built at.
fn assert_installed(home: &Path) {
    let bin = home.join(".a2a-tck/bin/a2a-tck");
    let output = Command::new(&bin)
        .arg("-V")
        .output()
        .expect("the installed kit runs");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("a2a-tck {}", env!("CARGO_PKG_VERSION")),
        "{}",
        bin.display()
    );
    let github_path = std::fs::read_to_string(home.join("github-path")).expect("GITHUB_PATH");
    assert!(
        github_path
            .lines()
            .any(|l| Path::new(l) == home.join(".a2a-tck/bin")),
        "the install puts its bin/ on the next steps' PATH: {github_path}"
    );
}

/// What the Action's cache does between two jobs: the listed paths of one HOME, and nothing
/// else, appear in the next.
fn restore_cache(paths: &[String], from: &Path, to: &Path) {
    for path in paths {
        let relative = path.strip_prefix("~/").expect("a cache path under ~");
        let source = from.join(relative);
        assert!(
            source.exists(),
            "the install leaves nothing at the cached path {path}: the cache would keep nothing"
        );
        let target = to.join(relative);
        std::fs::create_dir_all(target.parent().expect("a parent")).expect("mkdir");
        let status = Command::new("cp")
            .arg("-a")
            .arg(&source)
            .arg(&target)
            .status()
            .expect("cp runs");
        assert!(status.success());
    }
}

const TAG: &str = concat!("v", env!("CARGO_PKG_VERSION"));

#[test]
fn the_second_install_is_the_cached_one() {
    let paths = cached_paths();
    let toolchain = Toolchain::new();
    let inputs = [
        ("A2A_TCK_VERSION", TAG),
        ("A2A_TCK_REPOSITORY", "https://github.com/a2a-tck/a2a-tck"),
    ];
    let first = tempfile::tempdir().expect("first job's HOME");
    let output = toolchain.step("install", first.path(), &inputs);
    assert!(output.status.success(), "{}", said(&output));
    assert_eq!(toolchain.builds(), 1, "the first job builds");
    assert!(
        said(&output).contains("cargo install --git"),
        "{}",
        said(&output)
    );
    assert!(
        said(&output).contains(" s\n"),
        "the time it took: {}",
        said(&output)
    );
    assert_installed(first.path());

    let second = tempfile::tempdir().expect("second job's HOME");
    restore_cache(&paths, first.path(), second.path());
    let output = toolchain.step("install", second.path(), &inputs);
    assert!(output.status.success(), "{}", said(&output));
    assert_eq!(
        toolchain.builds(),
        1,
        "the second job builds nothing: {}",
        said(&output)
    );
    assert!(said(&output).contains("cached"), "{}", said(&output));
    assert_installed(second.path());

    // Another source of the same version is another cache key and another install.
    let key = |env: &[(&str, &str)]| {
        let output = toolchain.step("key", second.path(), env);
        assert!(output.status.success(), "{}", said(&output));
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    };
    let built = key(&inputs);
    assert!(built.starts_with("source=") && built.len() == "source=".len() + 16);
    assert_eq!(built, key(&inputs), "one source, one key");
    let prebuilt = key(&[
        ("A2A_TCK_VERSION", TAG),
        ("A2A_TCK_BINARY_URL", "file:///a.tar.gz"),
    ]);
    assert_ne!(built, prebuilt);
    let output = toolchain.step(
        "install",
        second.path(),
        &[
            ("A2A_TCK_VERSION", TAG),
            ("A2A_TCK_REPOSITORY", "https://example.org/a-fork"),
        ],
    );
    assert!(output.status.success(), "{}", said(&output));
    assert_eq!(
        toolchain.builds(),
        2,
        "a stamp of another source is not this one"
    );

    // A stamp without its binary is no install.
    let third = tempfile::tempdir().expect("third job's HOME");
    restore_cache(&paths, first.path(), third.path());
    std::fs::remove_file(third.path().join(".a2a-tck/bin/a2a-tck")).expect("rm");
    let output = toolchain.step("install", third.path(), &inputs);
    assert!(output.status.success(), "{}", said(&output));
    assert_eq!(toolchain.builds(), 3);
    assert_installed(third.path());
}

/// A file server on a loopback port of its own: GET /p answers the file `dir/p` (a path
/// ending in `/`, its index.html), else 404. Stopped when dropped.
struct FileServer {
    port: u16,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FileServer {
    fn new(dir: &Path) -> FileServer {
        use std::io::{BufRead, BufReader, Write};
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("its address").port();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (dir, stopped) = (dir.to_path_buf(), stop.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut request = String::new();
                let _ = reader.read_line(&mut request);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let path = request.split(' ').nth(1).unwrap_or("/");
                let mut file = dir.join(path.trim_start_matches('/'));
                if path.ends_with('/') {
                    file = file.join("index.html");
                }
                let _ = match std::fs::read(&file) {
                    Ok(body) if !path.contains("..") => stream
                        .write_all(
                            format!(
                                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                                if file.extension().is_some_and(|e| e == "html") {
                                    "text/html"
                                } else {
                                    "application/octet-stream"
                                },
                                body.len()
                            )
                            .as_bytes(),
                        )
                        .and_then(|()| stream.write_all(&body)),
                    _ => stream.write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    ),
                };
            }
        });
        FileServer {
            port,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn sha256_hex(path: &Path) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(std::fs::read(path).expect("read"));
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A stand-in kit (a script printing the kit's version) packed by scripts/package.sh, as a
/// release asset, into `dir`; its path.
fn release_asset(dir: &Path, target: &str) -> PathBuf {
    let binary = dir.join("built-a2a-tck");
    executable(
        &binary,
        &format!(
            "#!/bin/sh\necho \"a2a-tck {}\"\n",
            env!("CARGO_PKG_VERSION")
        ),
    );
    let output = Command::new("bash")
        .arg(root().join("scripts/package.sh"))
        .arg(&binary)
        .arg(target)
        .arg(dir.join("dist"))
        .output()
        .expect("bash runs");
    assert!(output.status.success(), "{}", said(&output));
    let asset = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    let sums = std::fs::read_to_string(format!("{}.sha256", asset.display())).expect("its .sha256");
    assert!(sums.starts_with(&sha256_hex(&asset)), "{sums}");
    asset
}

/// `cargo binstall a2a-tck` finds the asset scripts/package.sh makes: tck/Cargo.toml's
/// templates, filled in as cargo-binstall does, name its file and the binary inside it.
#[test]
fn the_binstall_metadata_names_the_release_asset() {
    let target = "x86_64-unknown-linux-gnu";
    let dir = tempfile::tempdir().expect("temp dir");
    let asset = release_asset(dir.path(), target);
    let manifest: toml::Value = toml::from_str(
        &std::fs::read_to_string(root().join("tck/Cargo.toml")).expect("tck/Cargo.toml"),
    )
    .expect("TOML");
    let workspace: toml::Value =
        toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml"))
            .expect("TOML");
    let repo = workspace["workspace"]["package"]["repository"]
        .as_str()
        .expect("a repository");
    assert_eq!(
        manifest["package"]["repository"]["workspace"].as_bool(),
        Some(true),
        "{{ repo }} is the package's repository"
    );
    let binstall = &manifest["package"]["metadata"]["binstall"];
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));
    let fill = |template: &str| {
        template
            .replace("{ repo }", repo)
            .replace("{ name }", "a2a-tck")
            .replace("{ version }", env!("CARGO_PKG_VERSION"))
            .replace("{ target }", target)
            .replace("{ archive-suffix }", ".tar.gz")
            .replace("{ bin }", "a2a-tck")
            .replace("{ binary-ext }", "")
    };
    let url = fill(binstall["pkg-url"].as_str().expect("pkg-url"));
    assert_eq!(
        url,
        format!(
            "{repo}/releases/download/{TAG}/{}",
            asset.file_name().expect("a name").to_string_lossy()
        )
    );
    let bin_dir = fill(binstall["bin-dir"].as_str().expect("bin-dir"));
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(&asset)
        .output()
        .expect("tar runs");
    let listing = String::from_utf8_lossy(&listing.stdout);
    assert!(
        listing.lines().any(|l| l == bin_dir),
        "{bin_dir} in {listing}"
    );
    // The README names the same asset for the Action's binary-url.
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let documented = "a2a-tck-<tag>-<target>.tar.gz";
    assert!(
        readme.contains(documented),
        "the README documents {documented}"
    );
}

#[test]
fn a_prebuilt_binary_is_installed_without_a_build_and_only_with_its_digest() {
    let paths = cached_paths();
    let toolchain = Toolchain::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let asset = release_asset(dir.path(), "x86_64-unknown-linux-gnu");
    let digest = sha256_hex(&asset);
    let server = FileServer::new(asset.parent().expect("dist"));
    let url = server.url(&asset.file_name().expect("a name").to_string_lossy());

    let home = tempfile::tempdir().expect("HOME");
    let inputs = [
        ("A2A_TCK_VERSION", TAG),
        ("A2A_TCK_BINARY_URL", url.as_str()),
        ("A2A_TCK_SHA256", digest.as_str()),
    ];
    let output = toolchain.step("install", home.path(), &inputs);
    assert!(output.status.success(), "{}", said(&output));
    assert!(
        said(&output).contains("sha256 verified"),
        "{}",
        said(&output)
    );
    assert!(
        said(&output).contains("prebuilt binary from"),
        "{}",
        said(&output)
    );
    assert_eq!(toolchain.builds(), 0, "nothing is built");
    assert_installed(home.path());
    // Cached as the built one is.
    let next = tempfile::tempdir().expect("next HOME");
    restore_cache(&paths, home.path(), next.path());
    drop(server);
    let output = toolchain.step("install", next.path(), &inputs);
    assert!(
        output.status.success(),
        "nothing downloaded: {}",
        said(&output)
    );
    assert!(said(&output).contains("cached"), "{}", said(&output));

    // A wrong digest: refused, nothing installed, no build instead.
    let server = FileServer::new(asset.parent().expect("dist"));
    let url = server.url(&asset.file_name().expect("a name").to_string_lossy());
    let wrong = "0".repeat(64);
    let home = tempfile::tempdir().expect("HOME");
    let output = toolchain.step(
        "install",
        home.path(),
        &[
            ("A2A_TCK_VERSION", TAG),
            ("A2A_TCK_BINARY_URL", url.as_str()),
            ("A2A_TCK_SHA256", wrong.as_str()),
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", said(&output));
    assert!(said(&output).contains("refused"), "{}", said(&output));
    assert!(!home.path().join(".a2a-tck/bin/a2a-tck").exists());
    assert!(!home.path().join(".a2a-tck/stamp").exists());
    assert_eq!(toolchain.builds(), 0);

    // The bare binary from a file:// URL; a version the binary does not print is refused.
    let bare = dir.path().join("built-a2a-tck");
    let file_url = format!("file://{}", bare.display());
    let home = tempfile::tempdir().expect("HOME");
    let output = toolchain.step(
        "install",
        home.path(),
        &[("A2A_TCK_VERSION", TAG), ("A2A_TCK_BINARY_URL", &file_url)],
    );
    assert!(output.status.success(), "{}", said(&output));
    assert_installed(home.path());
    let home = tempfile::tempdir().expect("HOME");
    let output = toolchain.step(
        "install",
        home.path(),
        &[
            ("A2A_TCK_VERSION", "v99.0.0"),
            ("A2A_TCK_BINARY_URL", &file_url),
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", said(&output));
    assert!(!home.path().join(".a2a-tck/bin/a2a-tck").exists());
    assert_eq!(toolchain.builds(), 0);
}

/// A wheel as maturin lays one out for a binary (`<name>.data/scripts/a2a-tck`), holding a
/// stand-in kit; made with Python's zipfile, in `dir`. Its path.
fn stand_in_wheel(dir: &Path) -> PathBuf {
    let version = env!("CARGO_PKG_VERSION");
    let wheel = dir.join(format!("a2a_tck-{version}-py3-none-any.whl"));
    let script = r#"
import base64, hashlib, sys, zipfile
wheel, version = sys.argv[1], sys.argv[2]
files = {
    f"a2a_tck-{version}.data/scripts/a2a-tck": f'#!/bin/sh\necho "a2a-tck {version}"\n',
    f"a2a_tck-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: a2a-tck\nVersion: {version}\n",
    f"a2a_tck-{version}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-any\n",
}
record = f"a2a_tck-{version}.dist-info/RECORD"
with zipfile.ZipFile(wheel, "w") as z:
    lines = []
    for name, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        info = zipfile.ZipInfo(name)
        info.external_attr = 0o100755 << 16  # a regular, executable file, as maturin marks it
        z.writestr(info, data)
        lines.append(f"{name},sha256={digest},{len(data)}")
    lines.append(f"{record},,")
    z.writestr(record, "\n".join(lines) + "\n")
"#;
    let output = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&wheel)
        .arg(version)
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", said(&output));
    wheel
}

#[test]
fn a_wheel_is_pip_installed_into_a_venv_without_a_build() {
    let toolchain = Toolchain::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let wheel = stand_in_wheel(dir.path());
    let digest = sha256_hex(&wheel);
    let wheel_path = wheel.display().to_string();

    // The wheel file itself (a path here; a URL is fetched with curl first).
    let home = tempfile::tempdir().expect("HOME");
    let output = toolchain.step(
        "install",
        home.path(),
        &[
            ("A2A_TCK_VERSION", TAG),
            ("A2A_TCK_WHEEL", &wheel_path),
            ("A2A_TCK_SHA256", &digest),
        ],
    );
    assert!(output.status.success(), "{}", said(&output));
    assert!(said(&output).contains("wheel from"), "{}", said(&output));
    assert!(home.path().join(".a2a-tck/venv/bin/a2a-tck").is_file());
    assert_installed(home.path());
    let home = tempfile::tempdir().expect("HOME");
    let wrong = "f".repeat(64);
    let output = toolchain.step(
        "install",
        home.path(),
        &[
            ("A2A_TCK_VERSION", TAG),
            ("A2A_TCK_WHEEL", &wheel_path),
            ("A2A_TCK_SHA256", &wrong),
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", said(&output));
    assert!(!home.path().join(".a2a-tck/bin/a2a-tck").exists());

    // A package index (PEP 503) on a loopback port: pip install a2a-tck==VERSION from it,
    // the digest checked by pip.
    let index = dir.path().join("simple/a2a-tck");
    std::fs::create_dir_all(&index).expect("index");
    let name = wheel.file_name().expect("a name").to_string_lossy();
    std::fs::write(
        index.join("index.html"),
        format!("<html><body><a href=\"../../{name}\">{name}</a></body></html>\n"),
    )
    .expect("index.html");
    let server = FileServer::new(dir.path());
    let index_url = server.url("simple/");
    let home = tempfile::tempdir().expect("HOME");
    let output = toolchain.step(
        "install",
        home.path(),
        &[
            ("A2A_TCK_VERSION", TAG),
            ("A2A_TCK_INDEX_URL", &index_url),
            ("A2A_TCK_SHA256", &digest),
        ],
    );
    assert!(output.status.success(), "{}", said(&output));
    assert_installed(home.path());
    let home = tempfile::tempdir().expect("HOME");
    let output = toolchain.step(
        "install",
        home.path(),
        &[
            ("A2A_TCK_VERSION", TAG),
            ("A2A_TCK_INDEX_URL", &index_url),
            ("A2A_TCK_SHA256", &wrong),
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", said(&output));
    assert!(!home.path().join(".a2a-tck/bin/a2a-tck").exists());
    assert_eq!(toolchain.builds(), 0, "nothing is built");
}
