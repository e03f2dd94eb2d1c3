//! A depth run in parts of every shape (one part, a part per task, uneven parts) put
//! together as the Dask layer puts it together, against the command's files byte for
//! byte: the BGZF outputs, their CSI indexes and the text outputs.

use std::path::{Path, PathBuf};

use seqfarm_io::bgzf_writer::EOF_MARKER;
use seqfarm_io::output::write_at;

use super::*;

/// Runs the steps of a run in parts (see the module docs) with tasks cut at `cuts`, in
/// this process; writes the files of prefix `prefix`.
fn run_in_parts(bam: &Path, options: &DepthOptions, prefix: &Path, parts: usize, cuts: &[usize]) {
    let (task_bytes, tasks) = depth_plan(bam, options, parts).unwrap();
    let mut bounds: Vec<usize> = cuts
        .iter()
        .copied()
        .filter(|&c| c > 0 && c < tasks)
        .collect();
    bounds.insert(0, 0);
    bounds.push(tasks);
    bounds.dedup();
    let results: Vec<Vec<u8>> = bounds
        .windows(2)
        .map(|w| {
            depth_tasks(bam, options, task_bytes, w[0]..w[1], Some(1))
                .unwrap()
                .to_vec()
        })
        .collect();
    let mut collector = DepthCollector::new(bam, options).unwrap();
    for part in &results {
        collector.add(&depth_part_summary(part).unwrap()).unwrap();
    }
    let layout = collector.finish().unwrap();
    let compressed: Vec<Vec<u8>> = results
        .iter()
        .zip(&layout.plans)
        .map(|(part, plan)| depth_compress(part, plan).unwrap().to_vec())
        .collect();
    let pieces: Vec<Vec<u8>> = compressed
        .iter()
        .map(|c| depth_pieces(c).unwrap())
        .collect();
    let inner: Vec<Vec<u64>> = compressed
        .iter()
        .map(|c| depth_inner_sizes(c).unwrap())
        .collect();
    let path = |suffix: &str| PathBuf::from(format!("{}{suffix}", prefix.display()));
    let mut paths = Vec::new();
    let mut offsets = vec![Vec::new(); compressed.len()];
    for (stream, suffix) in STREAMS.iter().enumerate() {
        if !layout.written[stream] {
            paths.push(None);
            offsets.iter_mut().for_each(|o| o.push(None));
            continue;
        }
        let file = path(suffix);
        std::fs::write(&file, b"").unwrap();
        let seams: Vec<Vec<u8>> = layout.seams[stream]
            .iter()
            .map(|(block, owners)| {
                let owned: Vec<&[u8]> = owners.iter().map(|&k| &pieces[k][..]).collect();
                depth_seam(stream, *block, &layout.headers[stream], &owned).unwrap()
            })
            .collect();
        let inner_sizes: Vec<u64> = inner.iter().map(|sizes| sizes[stream]).collect();
        let seam_sizes: Vec<u64> = seams.iter().map(|s| s.len() as u64).collect();
        let placement = collector.place(stream, &inner_sizes, &seam_sizes).unwrap();
        for (seam, &at) in seams.iter().zip(&placement.seams) {
            write_at(&file, at, seam).unwrap();
        }
        write_at(&file, placement.eof, &EOF_MARKER).unwrap();
        for (o, part) in offsets.iter_mut().zip(&placement.parts) {
            o.push(Some(*part));
        }
        paths.push(Some(file));
    }
    let groups: Vec<Vec<u8>> = compressed
        .iter()
        .zip(&offsets)
        .map(|(c, o)| depth_write(c, &paths, o).unwrap())
        .collect();
    let groups: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
    for (stream, file) in paths.iter().enumerate() {
        if let Some(file) = file {
            let index = PathBuf::from(format!("{}.csi", file.display()));
            std::fs::write(&index, b"").unwrap();
            depth_index(bam, options, stream, &index, &groups).unwrap();
        }
    }
    for (suffix, text) in TEXTS.iter().zip(&layout.texts) {
        std::fs::write(path(suffix), text).unwrap();
    }
}

#[test]
fn parts_of_every_shape_write_the_commands_files() {
    let bam = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/bam/chm1.bam"
    ));
    let dir = tempfile::tempdir().unwrap();
    // Regions where the reads are, across stretch boundaries, one on another contig.
    let bed = dir.path().join("regions.bed");
    let mut text = String::new();
    for start in (0..300_000).step_by(7_000) {
        text.push_str(&format!("1\t{start}\t{}\tr{start}\n", start + 5_000));
    }
    text.push_str("2\t100\t900\tother\n");
    std::fs::write(&bed, text).unwrap();
    let options = DepthOptions {
        bed: Some(bed),
        thresholds: vec![0, 1, 10],
        per_base: true,
        task_bytes: Some(1),
        ..DepthOptions::default()
    };
    let expected = dir.path().join("cli");
    crate::cmd::depth::run(bam, &expected, &options).unwrap();
    let tasks = depth_plan(bam, &options, 1).unwrap().1;
    assert!(tasks > 50, "{tasks} tasks");
    let shapes: Vec<Vec<usize>> = vec![
        vec![],
        (1..tasks).collect(),
        vec![1, 2, 3, 5, 8, 13, 21, 34, 55, tasks - 1],
        vec![tasks / 2],
    ];
    for (i, cuts) in shapes.iter().enumerate() {
        let prefix = dir.path().join(format!("parts{i}"));
        run_in_parts(bam, &options, &prefix, 4, cuts);
        assert_same_files(&prefix, &expected, &format!("shape {i}"));
    }
}

/// Asserts that every output of `prefix` (the BGZF outputs with their indexes, the text
/// outputs) is that of `expected`, byte for byte; `run` names the run in failures.
fn assert_same_files(prefix: &Path, expected: &Path, run: &str) {
    let bgzf = STREAMS
        .iter()
        .flat_map(|s| [s.to_string(), format!("{s}.csi")]);
    for suffix in bgzf.chain(TEXTS.iter().map(|s| s.to_string())) {
        let read = |p: &Path| std::fs::read(format!("{}{suffix}", p.display())).unwrap();
        assert!(read(prefix) == read(expected), "{suffix} differs in {run}");
    }
}

#[test]
fn parts_of_a_cram_decode_their_own_stretches_and_write_the_commands_files() {
    let cram = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/cram/normal_slice_containers.cram"
    ));
    let dir = tempfile::tempdir().unwrap();
    let options = DepthOptions {
        window: Some(2_000),
        thresholds: vec![1, 5],
        per_base: true,
        task_bytes: Some(30_000),
        ..DepthOptions::default()
    };
    let expected = dir.path().join("cli");
    crate::cmd::depth::run(cram, &expected, &options).unwrap();
    let (task_bytes, tasks) = depth_plan(cram, &options, 1).unwrap();
    assert!(tasks >= 4, "{tasks} tasks");
    let cuts: Vec<usize> = (1..4).map(|k| tasks * k / 4).collect();
    let prefix = dir.path().join("parts");
    run_in_parts(cram, &options, &prefix, 4, &cuts);
    assert_same_files(&prefix, &expected, "the CRAM's parts");
    // The parts decode about the file once between them, not once each.
    let bounds: Vec<usize> = std::iter::once(0).chain(cuts).chain([tasks]).collect();
    let decoded: u64 = bounds
        .windows(2)
        .map(|w| {
            DepthJob::for_tasks(cram, &options, task_bytes, w[0]..w[1])
                .unwrap()
                .bam_bytes()
        })
        .sum();
    let once = DepthJob::new(cram, &options).unwrap().bam_bytes();
    assert!(decoded * 4 < once * 5, "{decoded} against {once}");
}
