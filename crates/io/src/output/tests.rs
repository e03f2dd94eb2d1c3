use super::*;

#[test]
fn a_scratch_file_is_hidden_and_gone_when_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.bam");
    let mut scratch = Output::scratch(&out, "sorted.bam").unwrap();
    scratch.put(b"bytes").unwrap();
    scratch.flush().unwrap();
    let path = scratch.path().to_path_buf();
    assert_eq!(path.parent(), Some(dir.path()));
    assert!(path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with(".out.bam."));
    assert_eq!(std::fs::read(&path).unwrap(), b"bytes");
    drop(scratch);
    assert!(!path.exists() && !out.exists());
}

#[test]
fn appears_only_on_commit() {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("out.txt");
    let mut out = Output::create(&dest, Overwrite::Refuse).unwrap();
    out.put(b"partial").unwrap();
    assert!(!dest.exists());
    drop(out);
    assert!(!dest.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let mut out = Output::create(&dest, Overwrite::Refuse).unwrap();
    out.put(b"whole").unwrap();
    out.commit().unwrap();
    assert_eq!(std::fs::read(&dest).unwrap(), b"whole");
}

#[cfg(unix)]
#[test]
fn pipes_and_devices_are_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("note: mkfifo unavailable; test skipped");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let mut out = Output::create(&fifo, Overwrite::Allow).unwrap();
    out.put(b"through the pipe").unwrap();
    out.commit().unwrap();
    assert_eq!(reader.join().unwrap(), b"through the pipe");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary left"
    );
}

#[cfg(unix)]
#[test]
fn an_input_is_never_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.bam");
    std::fs::write(&input, b"input").unwrap();
    let other = dir.path().join("other.bam");
    std::fs::write(&other, b"other").unwrap();
    let symlink = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&input, &symlink).unwrap();
    let hard = dir.path().join("hard.csv");
    std::fs::hard_link(&input, &hard).unwrap();
    let dotted = dir.path().join(".").join("t.bam");
    for output in [&input, &symlink, &hard, &dotted] {
        let err = refuse_input_as_output(output, [&other, &input]).unwrap_err();
        assert!(matches!(err, Error::OutputIsInput { .. }), "{err}");
        assert!(
            err.to_string().contains("this output is the input"),
            "{err}"
        );
    }
    let fresh = dir.path().join("new.csv");
    refuse_input_as_output(&fresh, [&input]).unwrap();
    refuse_input_as_output(&other, [&input, Path::new("-")]).unwrap();
    refuse_input_as_output(Path::new("-"), [&input]).unwrap();
    assert_eq!(std::fs::read(&input).unwrap(), b"input");
}

#[cfg(unix)]
#[test]
fn two_outputs_are_never_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fresh = d.join("x.sam");
    std::fs::create_dir(d.join("sub")).unwrap();
    let dotted = d.join("sub").join("..").join("x.sam");
    let err = refuse_shared_outputs([("-S", &fresh), ("--met-file", &fresh)]).unwrap_err();
    assert!(matches!(err, Error::SharedOutput { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("x.sam: named by both -S and --met-file"),
        "{text}"
    );
    assert!(
        text.contains("give each output a file of its own"),
        "{text}"
    );
    let err = refuse_shared_outputs([("-S", &fresh), ("--un", &dotted)]).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("named by --un, the same file as"), "{text}");
    assert!(text.contains("named by -S"), "{text}");
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 1, "nothing written");
    // Existing: a hard link and a symbolic link are the file they name.
    std::fs::write(&fresh, b"old").unwrap();
    let hard = d.join("hard.sam");
    std::fs::hard_link(&fresh, &hard).unwrap();
    let link = d.join("link.sam");
    std::os::unix::fs::symlink("x.sam", &link).unwrap();
    for other in [&hard, &link, &dotted] {
        let err = refuse_shared_outputs([("-S", &fresh), ("--stats", other)]).unwrap_err();
        assert!(err.to_string().contains("--stats"), "{err}");
    }
    // A dangling link is the file it would create.
    let dangling = d.join("dangling.txt");
    std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
    let made = d.join("made.txt");
    assert!(refuse_shared_outputs([("--plot", &dangling), ("-o", &made)]).is_err());
    // Distinct files, standard output, devices and directories pass.
    let other = d.join("y.sam");
    refuse_shared_outputs([("-S", &fresh), ("--un", &other)]).unwrap();
    refuse_shared_outputs([("-S", "-"), ("--stats", "-")]).unwrap();
    refuse_shared_outputs([("-S", "/dev/null"), ("--met-file", "/dev/null")]).unwrap();
    refuse_shared_outputs([("--un", d), ("--al", d)]).unwrap();
    assert_eq!(std::fs::read(&fresh).unwrap(), b"old");
}

#[test]
fn an_existing_file_is_replaced_as_the_command_rules() {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("out.txt");
    std::fs::write(&dest, b"old").unwrap();
    let refuse = ExistingOutput::RefuseUnlessForced.overwrite(false);
    let err = Output::create(&dest, refuse).err().unwrap();
    assert!(matches!(err, Error::Exists { .. }), "{err}");
    assert!(err.to_string().contains("already exists"), "{err}");
    assert!(err.to_string().contains("out.txt"), "{err}");
    assert_eq!(std::fs::read(&dest).unwrap(), b"old");
    for (rule, force) in [
        (ExistingOutput::RefuseUnlessForced, true),
        (ExistingOutput::Replace, false),
        (ExistingOutput::Replace, true),
    ] {
        assert_eq!(rule.overwrite(force), Overwrite::Allow);
        let mut out = Output::create(&dest, rule.overwrite(force)).unwrap();
        out.put(b"new").unwrap();
        assert_eq!(
            std::fs::read(&dest).unwrap(),
            b"old",
            "replaced before commit"
        );
        out.commit().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"new");
        std::fs::write(&dest, b"old").unwrap();
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_directory_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let err = Output::create(dir.path(), Overwrite::Allow).err().unwrap();
    assert!(err.to_string().contains("is a directory"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.txt");
    std::fs::write(&target, b"old").unwrap();
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink("target.txt", &link).unwrap();
    let mut out = Output::create(&link, Overwrite::Allow).unwrap();
    out.put(b"new").unwrap();
    out.commit().unwrap();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), b"new");
    // A dangling link creates the file it names; a refusing run refuses a link to an
    // existing file, as it refuses the file.
    let dangling = dir.path().join("dangling.txt");
    std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
    let mut out = Output::create(&dangling, Overwrite::Refuse).unwrap();
    out.put(b"made").unwrap();
    out.commit().unwrap();
    assert_eq!(std::fs::read(dir.path().join("made.txt")).unwrap(), b"made");
    let err = Output::create(&link, Overwrite::Refuse).err().unwrap();
    assert!(
        err.to_string().contains("link.txt: already exists"),
        "{err}"
    );
    let looped = dir.path().join("loop.txt");
    std::os::unix::fs::symlink("loop.txt", &looped).unwrap();
    let err = Output::create(&looped, Overwrite::Allow).err().unwrap();
    assert!(err.to_string().contains("loop.txt"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_replaced_file_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("out.sh");
    std::fs::write(&dest, b"old").unwrap();
    std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o640)).unwrap();
    let mut out = Output::create(&dest, Overwrite::Allow).unwrap();
    out.put(b"new").unwrap();
    out.commit().unwrap();
    let mode = std::fs::metadata(&dest).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
}

#[test]
fn pieces_are_written_one_after_the_other_whatever_their_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out");
    std::fs::write(&path, b"head").unwrap();
    // Small pieces gathered, a piece longer than a write's buffer written alone.
    let big = vec![7u8; PIECES_BUFFER + 3];
    let small: Vec<Vec<u8>> = (0..3000u32).map(|i| i.to_le_bytes().repeat(100)).collect();
    let mut pieces: Vec<&[u8]> = small.iter().map(Vec::as_slice).collect();
    pieces.insert(1500, &big);
    write_pieces_at(&path, 4, pieces.iter().copied()).unwrap();
    let written = std::fs::read(&path).unwrap();
    assert_eq!(&written[..4], b"head");
    assert_eq!(written[4..], pieces.concat());
}
