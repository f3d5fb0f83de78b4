//! The summary the binary prints: failures first, grouped by check across interfaces, N/A and
//! PASS counted unless `--verbose`, a closing recap of the failures, colour only on a
//! terminal (never under `NO_COLOR`), one line per result, counts that name their unit, and
//! where the reports were written. Against the built-in reference agent with a named fault.

use std::process::{Command, Output};

use crate::support;
use support::{stdout, BIN};
const CHECK: &str = "send.context-id-generated-when-absent";
const FAULT: &str = "omit-context-id";

fn kit(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("the kit runs")
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("a2a-tck-summary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// A run with one failing check on every interface, and checks that are N/A or pass.
fn faulty(extra: &[&str], env: &[(&str, &str)]) -> String {
    let mut args = vec!["--fault", FAULT, "--select", "send.*"];
    args.extend(extra);
    let output = kit(&args, env);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    stdout(&output)
}

#[test]
fn failures_come_first_grouped_across_interfaces_and_are_recapped() {
    let shown = faulty(&[], &[]);
    let lines: Vec<&str> = shown.lines().collect();
    let fail_lines: Vec<usize> = (0..lines.len())
        .filter(|i| lines[*i].starts_with("FAIL") && lines[*i].contains(CHECK))
        .collect();
    // One line for the check, naming every interface it failed on.
    assert_eq!(fail_lines.len(), 1, "{shown}");
    let fail = lines[fail_lines[0]];
    assert!(fail.contains("(jsonrpc 1.0, rest 1.0, grpc 1.0)"), "{fail}");
    // Before any other status.
    let first_other = lines
        .iter()
        .position(|l| {
            ["N/A", "PASS", "WARN", "ERROR", "UNTESTABLE"]
                .iter()
                .any(|s| l.starts_with(s))
        })
        .unwrap_or(usize::MAX);
    assert!(fail_lines[0] < first_other, "{shown}");
    // N/A and PASS are counted, in named units, not listed.
    let pass = lines
        .iter()
        .find(|l| l.starts_with("PASS"))
        .expect("a PASS count");
    assert!(
        pass.contains(" results of ") && pass.contains(" checks") && pass.contains("--verbose"),
        "{pass}"
    );
    assert_eq!(lines.iter().filter(|l| l.starts_with("PASS")).count(), 1);
    // The recap after the totals: the failed check, once, with its places and what happened.
    let recap = lines
        .iter()
        .position(|l| l.starts_with("failed (1 check, "))
        .unwrap_or_else(|| panic!("no recap: {shown}"));
    let totals = lines
        .iter()
        .position(|l| l.starts_with("totals (results): "))
        .expect("totals");
    assert!(totals < recap, "{shown}");
    assert!(
        lines[recap + 1].trim_start().starts_with(CHECK) && lines[recap + 1].contains("rest 1.0"),
        "{shown}"
    );
    assert!(
        lines[recap + 2].starts_with("verdict: non-conformant"),
        "{shown}"
    );
    assert!(
        lines[recap + 2].contains("1 MUST check failed (3 results)"),
        "{}",
        lines[recap + 2]
    );
    // No line of the summary carries a message over several lines, nor ANSI styles.
    assert!(!shown.contains('\u{1b}'), "{shown}");
}

#[test]
fn verbose_lists_every_result_group() {
    let shown = faulty(&["--verbose"], &[]);
    let pass_lines = shown.lines().filter(|l| l.starts_with("PASS")).count();
    assert!(pass_lines > 1, "{shown}");
    assert!(shown
        .lines()
        .filter(|l| l.starts_with("PASS"))
        .all(|l| l.contains("[MUST]") || l.contains("[SHOULD]") || l.contains("[MAY]")));
}

#[test]
fn colour_only_when_asked_for_and_never_under_no_color() {
    let forced = faulty(&[], &[("CLICOLOR_FORCE", "1")]);
    assert!(forced.contains("\u{1b}["), "{forced}");
    let refused = faulty(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!refused.contains('\u{1b}'), "{refused}");
}

#[test]
fn the_summary_says_where_each_report_was_written() {
    let (json, md) = (temp("where.json"), temp("where.md"));
    let shown = faulty(
        &[
            "--report",
            json.to_str().expect("utf8"),
            "--markdown",
            md.to_str().expect("utf8"),
        ],
        &[],
    );
    let line = shown
        .lines()
        .find(|l| l.starts_with("reports written: "))
        .unwrap_or_else(|| panic!("no reports line: {shown}"));
    assert!(
        line.contains(&format!("JSON {}", json.display()))
            && line.contains(&format!("Markdown {}", md.display())),
        "{line}"
    );
}

#[test]
fn a_message_is_one_line_and_json_in_it_is_cut() {
    use a2a_tck::reporting::output::one_line;
    let json = format!(
        "{{\"jsonrpc\":\"2.0\",\"result\":{{\"text\":\"{}\"}}}}",
        "x".repeat(400)
    );
    let message = format!("expected a Task, got {json} instead\nsecond line");
    let line = one_line(&message, 1000);
    assert!(!line.contains('\n'), "{line}");
    assert!(line.len() < 200, "{line}");
    assert!(
        line.starts_with("expected a Task, got {\"jsonrpc\""),
        "{line}"
    );
    assert!(line.contains("… instead"), "{line}");
    // Short JSON stays whole; a long message is cut with an ellipsis.
    assert_eq!(one_line("got {\"a\":1}", 1000), "got {\"a\":1}");
    let long = "y".repeat(500);
    let cut = one_line(&long, 100);
    assert!(cut.ends_with('…') && cut.len() <= 100 + '…'.len_utf8());
}

#[test]
fn the_summary_names_the_slowest_operations_and_verbose_lists_every_one() {
    let shown = faulty(&[], &[]);
    let line = (shown.lines())
        .find(|l| l.starts_with("latency: slowest "))
        .unwrap_or_else(|| panic!("no latency line: {shown}"));
    // At most three operations named, each with its interface and p95.
    assert!(line.matches("p95 ").count() <= 3, "{line}");
    assert!(
        line.contains("SendMessage") || line.contains("message/send"),
        "{line}"
    );
    assert!(line.contains(" operations timed"), "{line}");
    let verbose = faulty(&["--verbose"], &[]);
    let at = (verbose.lines())
        .position(|l| l.starts_with("latency of the agent's successful answers"))
        .unwrap_or_else(|| panic!("no latency list: {verbose}"));
    let listed: Vec<&str> = (verbose.lines().skip(at + 1))
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(listed.len() > 3, "{verbose}");
    assert!(
        listed
            .iter()
            .all(|l| l.contains(" median ") && l.contains(" ms over ")),
        "{verbose}"
    );
}

/// An agent that refuses ListTasks everywhere: the refusal is said once, as the cause, in the
/// summary, the verdict, the Markdown and the JSON report; the results that stopped at it are
/// UNTESTABLE (no keyworded sentence obliges a 1.0 agent to offer ListTasks), not six FAILs.
#[test]
fn a_refused_operation_is_named_once_as_the_cause() {
    let (report_path, markdown_path) = (temp("refused.json"), temp("refused.md"));
    let output = kit(
        &[
            "--fault",
            "list-refused",
            "--select",
            "tasks.list.*",
            "--report",
            report_path.to_str().expect("utf8"),
            "--markdown",
            markdown_path.to_str().expect("utf8"),
        ],
        &[("NO_COLOR", "1")],
    );
    let shown = stdout(&output);
    let report = a2a_tck::reporting::report::Report::read(&report_path).expect("a report");
    assert_eq!(
        report.verdict,
        a2a_tck::reporting::report::Verdict::Inconclusive,
        "{shown}"
    );
    assert!(
        report
            .results
            .iter()
            .all(|r| r.status != a2a_tck::suite::check::Status::Fail),
        "{shown}"
    );
    let refused: Vec<_> = (report.refused_operations.iter())
        .map(|r| {
            (
                r.operation.as_str(),
                r.binding.to_string(),
                r.required_by.clone(),
            )
        })
        .collect();
    assert_eq!(
        refused,
        vec![
            ("ListTasks", "jsonrpc".to_string(), None),
            ("ListTasks", "rest".to_string(), None),
            ("ListTasks", "grpc".to_string(), None),
        ],
        "{:?}",
        report.refused_operations
    );
    assert!(
        (report.refused_operations.iter()).all(|r| r
            .results
            .contains(&"tasks.list.response-required-fields".to_string())),
        "{:?}",
        report.refused_operations
    );
    let said: Vec<&str> = shown.lines().filter(|l| l.starts_with("REFUSED")).collect();
    assert_eq!(said.len(), 1, "{shown}");
    assert!(
        said[0].contains("ListTasks (jsonrpc 1.0, rest 1.0, grpc 1.0)"),
        "{}",
        said[0]
    );
    assert!(
        report.verdict_reason.contains("ListTasks"),
        "{}",
        report.verdict_reason
    );
    let markdown = std::fs::read_to_string(&markdown_path).expect("markdown");
    assert!(markdown.contains("## Refused operations"), "{markdown}");
    assert!(
        markdown.contains("| `ListTasks` | grpc 1.0 |"),
        "{markdown}"
    );
}
