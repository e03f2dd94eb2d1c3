//! Tests of `seqfarm align`'s phase times and `@PG CL:` command line.

use super::header::command_line;
use super::terminal::clock;

#[test]
fn clock_prints_like_bowtie2() {
    assert_eq!(clock(0), "00:00:00");
    assert_eq!(clock(3725), "01:02:05");
}

#[test]
fn command_line_leaves_out_thread_options() {
    let args = [
        "seqfarm",
        "align",
        "-p",
        "4",
        "-x",
        "ix",
        "-p8",
        "-t",
        "--pin",
        "--mm",
        "--threads=2",
        "--stats",
        "s.json",
        "--stats=t.json",
        "--numa",
        "replicate",
        "--numa=off",
        "--sort-memory",
        "1G",
        "--sort-memory=2M",
        "-U",
        "r.fq",
    ];
    let line = command_line(args.iter().map(|s| s.to_string()));
    assert_eq!(line, "seqfarm align -x ix -t -U r.fq");
}
