//! Headless Chromium for the tests of pages (the HTML report, the results site): which browser,
//! whether one is required (`A2A_TCK_REQUIRE_BROWSER=1`, as CI sets), loading a page and
//! reading its DOM after its script ran, and a screenshot.

use std::path::{Path, PathBuf};
use std::time::Duration;

use scraper::Html;

/// The browser to drive: `A2A_TCK_CHROMIUM`, else `chromium` or `chromium-browser` on PATH.
pub fn browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("A2A_TCK_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// The browser, or `None` when there is none and none is required (the test is then skipped,
/// and says so); with `A2A_TCK_REQUIRE_BROWSER=1` and no browser, the test fails.
pub fn browser_or_skip() -> Option<PathBuf> {
    let found = browser();
    if found.is_none() {
        let required = std::env::var("A2A_TCK_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "A2A_TCK_REQUIRE_BROWSER=1 but no chromium found (install it or set A2A_TCK_CHROMIUM)"
        );
        println!("skipped: no chromium installed (set A2A_TCK_REQUIRE_BROWSER=1 to require it)");
    }
    found
}

fn command(browser: &Path, profile: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(browser);
    command
        .args(["--headless", "--no-sandbox", "--disable-gpu"])
        .args(["--no-first-run", "--disable-extensions", "--disable-sync"])
        .args(["--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .kill_on_drop(true);
    command
}

async fn finish(mut command: tokio::process::Command) -> std::process::Output {
    let output = tokio::time::timeout(Duration::from_secs(90), command.output())
        .await
        .expect("the browser finishes within 90 s")
        .expect("the browser runs");
    assert!(
        output.status.success(),
        "browser failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Loads `page` (with a URL fragment) in headless Chromium; returns the DOM after its script
/// ran, and what the browser logged (console messages included).
pub async fn load(browser: &Path, profile: &Path, page: &Path, fragment: &str) -> (Html, String) {
    let mut command = command(browser, profile);
    command
        .arg("--dump-dom")
        .arg(format!("file://{}{fragment}", page.display()));
    let output = finish(command).await;
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    let dom = Html::parse_document(&String::from_utf8_lossy(&output.stdout));
    (dom, log)
}

/// Writes a PNG screenshot of `page` (with a URL fragment), `width` x `height` pixels, to `png`.
pub async fn screenshot(
    browser: &Path,
    profile: &Path,
    page: &Path,
    fragment: &str,
    png: &Path,
    (width, height): (u32, u32),
) {
    let mut command = command(browser, profile);
    command
        .arg("--hide-scrollbars")
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}{fragment}", page.display()));
    finish(command).await;
    assert!(png.is_file(), "no screenshot at {}", png.display());
}

/// The console messages of a browser's log.
pub fn console(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains(":CONSOLE")).collect()
}
