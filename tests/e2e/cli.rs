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

/// A negative number given to a numeric option is that option's value, refused with the
/// option's own message, not taken for an unknown flag.
#[test]
fn negative_numbers_are_refused_by_their_option() {
    for (args, option) in [
        (&["count", "--window", "-5", "x.bam"][..], "--window"),
        (
            &["depth", "--window", "100", "-Q", "-1", "-o", "p", "x.bam"],
            "--mapq",
        ),
        (
            &[
                "depth", "--window", "100", "-T", "-1,10", "-o", "p", "x.bam",
            ],
            "--thresholds",
        ),
        (
            &["index", "--memory", "-5", "-o", "p", "ref.fa"],
            "--memory",
        ),
        (&["search", "--top", "-1", "q.fa", "d.fa"], "--top"),
        (&["flagstat", "-t", "-1", "x.bam"], "--threads"),
        (&["align", "-x", "i", "-U", "r.fq", "--ma", "-2"], "--ma"),
        (
            &["align", "-x", "i", "-1", "a.fq", "-2", "b.fq", "-X", "-5"],
            "--maxins",
        ),
    ] {
        let out = run(args);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        // clap's words when it takes the number for a flag: "unexpected argument", or,
        // after an option, "a value is required".
        assert!(
            e.contains(option)
                && !e.contains("unexpected argument")
                && !e.contains("a value is required"),
            "{args:?}: {e}"
        );
    }
}
