//! The command line itself: help, version, errors.

use crate::support::run;

#[test]
fn version_and_help() {
    let out = run(&["--version"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("seqfarm "));
    let out = run(&["--help"]);
    assert!(out.status.success());
}

#[test]
fn unknown_subcommand_fails() {
    let out = run(&["no-such-command"]);
    assert!(!out.status.success());
}
