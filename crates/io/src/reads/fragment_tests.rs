use std::path::PathBuf;

use super::*;
use crate::reads::tests::{gzip, write};
use crate::reads::{ChunkLimits, InputChunk, InputChunker, InputFormat, ReadSources, TrimTo};

#[path = "fragment_bam_tests.rs"]
mod bam;
#[path = "fragment_decode_tests.rs"]
mod decode;

/// A read as "name bases quals" (quals as Phred digits joined by `,`, `-` for none).
fn show(r: &ReadRef<'_>) -> String {
    let q = r.qualities.map_or("-".to_string(), |q| {
        q.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
    });
    format!(
        "{} {} {q}",
        String::from_utf8_lossy(r.name),
        String::from_utf8_lossy(r.bases)
    )
}

/// Every fragment of `sources`, one string per fragment (mates joined by ` | `).
fn fragments(
    sources: &ReadSources,
    max_records: usize,
    max_bytes: usize,
    options: &ParseOptions,
) -> Result<Vec<String>> {
    let mut chunker = InputChunker::new(
        sources,
        ChunkLimits {
            max_records,
            max_bytes,
        },
    )?;
    let mut chunk = InputChunk::default();
    let mut batch = FragmentBatch::new();
    let mut out = Vec::new();
    while chunker.fill(&mut chunk)? {
        batch.parse(&chunk, options)?;
        assert_eq!(batch.len(), chunk.fragments);
        assert!(batch.len() <= max_records);
        for i in 0..batch.len() {
            out.push(match batch.fragment(i) {
                Fragment::Single(r) => show(&r),
                Fragment::Pair([a, b]) => format!("{} | {}", show(&a), show(&b)),
            });
        }
    }
    Ok(out)
}

fn all(sources: &ReadSources) -> Result<Vec<String>> {
    fragments(sources, 1000, 1 << 20, &ParseOptions::default())
}

/// The same fragments whatever the chunk limits (boundaries between mates included).
fn all_limits(sources: &ReadSources) -> Result<Vec<String>> {
    let expected = all(sources)?;
    for (records, bytes) in [(1, 1 << 20), (2, 1), (3, 7), (1000, 1)] {
        let got = fragments(sources, records, bytes, &ParseOptions::default())?;
        assert_eq!(got, expected, "limits {records} records, {bytes} bytes");
    }
    Ok(expected)
}

/// The first chunk of `sources`, parsed with the default options.
fn first_batch(sources: &ReadSources) -> FragmentBatch {
    let mut chunker = InputChunker::new(sources, ChunkLimits::default()).unwrap();
    let (mut chunk, mut batch) = (InputChunk::default(), FragmentBatch::new());
    assert!(chunker.fill(&mut chunk).unwrap());
    batch.parse(&chunk, &ParseOptions::default()).unwrap();
    batch
}

fn paths(v: &[&PathBuf]) -> Vec<PathBuf> {
    v.iter().map(|p| (*p).clone()).collect()
}

const R1: &[u8] = b"@p1/1 c1\nACGT\n+\nIIII\n@p2/1\nGGCC\n+\n!!!!\n\n@p3/1\nA\n+\nI";
const R2: &[u8] = b"@p1/2 c2\nTTTT\n+\nIIII\n@p2/2\nCC\n+\n!!\n@p3/2\nNN\n+\nII\n";

#[test]
fn two_file_pairs_plain_and_gzip() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(&dir, "r_1.fq", R1);
    let b = write(&dir, "r_2.fq.gz", &gzip(R2));
    let sources = ReadSources {
        mate1: paths(&[&a]),
        mate2: paths(&[&b]),
        ..ReadSources::default()
    };
    let got = all_limits(&sources).unwrap();
    assert_eq!(
        got,
        vec![
            "p1 ACGT 40,40,40,40 | p1 TTTT 40,40,40,40",
            "p2 GGCC 0,0,0,0 | p2 CC 0,0",
            "p3 A 40 | p3 NN 40,40",
        ]
    );
}

#[test]
fn read_fields_for_sam_and_mate_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(&dir, "r_1.fq", R1);
    let b = write(&dir, "r_2.fq", R2);
    let sources = ReadSources {
        mate1: paths(&[&a]),
        mate2: paths(&[&b]),
        unpaired: paths(&[&a]),
        ..ReadSources::default()
    };
    let mut chunker = InputChunker::new(&sources, ChunkLimits::default()).unwrap();
    let mut chunk = InputChunk::default();
    let mut batch = FragmentBatch::new();
    let options = ParseOptions {
        trim5: 1,
        ..ParseOptions::default()
    };
    assert!(chunker.fill(&mut chunk).unwrap());
    batch.parse(&chunk, &options).unwrap();
    let Fragment::Pair([m1, m2]) = batch.fragment(0) else {
        panic!("a pair")
    };
    assert_eq!(m1.name, b"p1");
    assert_eq!(m1.full_name, b"p1/1 c1");
    assert_eq!(m1.comment, b"c1");
    assert_eq!(m1.bases, b"CGT");
    assert_eq!(m1.original, b"@p1/1 c1\nACGT\n+\nIIII");
    assert_eq!(m2.full_name, b"p1/2 c2");
    assert_eq!(batch.reads(), 6);
    // Unpaired reads keep their suffix.
    assert!(chunker.fill(&mut chunk).unwrap());
    batch.parse(&chunk, &options).unwrap();
    let Fragment::Single(r) = batch.fragment(0) else {
        panic!("unpaired")
    };
    assert_eq!((r.name, r.comment), (&b"p1/1"[..], &b"c1"[..]));
    assert_eq!(chunk.first_fragment, 3);
    assert!(!chunker.fill(&mut chunk).unwrap());
}

#[test]
fn sources_in_bowtie2_order_with_skip_and_upto() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(&dir, "r_1.fq", R1);
    let b = write(&dir, "r_2.fq", R2);
    let inter = write(&dir, "i.fa", b">i1/1\nAC\n>i1/2\nGT\n");
    let single = write(&dir, "u.fa", b">u1\nAAAA\n>u2\nCCCC\n");
    let mut sources = ReadSources {
        interleaved: paths(&[&inter]),
        mate1: paths(&[&a]),
        mate2: paths(&[&b]),
        unpaired: paths(&[&single]),
        ..ReadSources::default()
    };
    let names = |v: Vec<String>| -> Vec<String> {
        v.iter()
            .map(|f| f.split(' ').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(all_limits(&sources).unwrap()),
        ["i1", "p1", "p2", "p3", "u1", "u2"]
    );
    sources.skip = 2;
    sources.upto = Some(3);
    assert_eq!(names(all_limits(&sources).unwrap()), ["p2", "p3", "u1"]);
    sources.skip = 10;
    assert!(all(&sources).unwrap().is_empty());
}

#[test]
fn mates_out_of_step_name_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(&dir, "reads_1.fq", R1);
    let short = write(&dir, "reads_2.fq", &R2[..R2.len() - 14]);
    let sources = |x: &PathBuf, y: &PathBuf| ReadSources {
        mate1: paths(&[x]),
        mate2: paths(&[y]),
        ..ReadSources::default()
    };
    for records in [1, 2, 3, 1000] {
        let options = ParseOptions::default();
        let e = fragments(&sources(&a, &short), records, 1 << 20, &options)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("reads_1.fq: record 3: `@p3/1` has no mate: ")
                && e.contains("reads_2.fq ends after record 2"),
            "{e}"
        );
        let e = fragments(&sources(&short, &a), records, 1 << 20, &options)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("reads_1.fq: record 3: `@p3/1` has no mate")
                && e.contains("reads_2.fq ends after record 2"),
            "{e}"
        );
    }
    let renamed = String::from_utf8(R2.to_vec())
        .unwrap()
        .replace("p2/2", "q2/2");
    let b = write(&dir, "other_2.fq", renamed.as_bytes());
    let e = all(&sources(&a, &b)).unwrap_err().to_string();
    assert!(
        e.contains("reads_1.fq: record 2: mate names differ: `p2/1` here and `q2/2` in ")
            && e.contains("other_2.fq record 2"),
        "{e}"
    );
    let options = ParseOptions {
        check_mate_names: false,
        ..ParseOptions::default()
    };
    assert_eq!(
        fragments(&sources(&a, &b), 10, 10, &options).unwrap().len(),
        3
    );
}

#[test]
fn interleaved_needs_an_even_number_of_records() {
    let dir = tempfile::tempdir().unwrap();
    let odd = write(&dir, "odd.fq", &R1[..R1.len()]);
    let sources = ReadSources {
        interleaved: paths(&[&odd]),
        ..ReadSources::default()
    };
    let e = all(&sources).unwrap_err().to_string();
    assert!(
        e.contains("odd.fq: record 3: `@p3/1` is the last record of an interleaved file"),
        "{e}"
    );
    // p1/1 and p2/1 as mates: names differ.
    let two = write(&dir, "two.fq", &R1[..R1.len() - 13]);
    let sources = ReadSources {
        interleaved: paths(&[&two]),
        ..ReadSources::default()
    };
    let e = all(&sources).unwrap_err().to_string();
    assert!(
        e.contains("two.fq: record 1: mate names differ: `p1/1` here and `p2/1` in record 2"),
        "{e}"
    );
}

#[test]
fn tab5_and_tab6_mix_unpaired_and_paired_lines() {
    let dir = tempfile::tempdir().unwrap();
    let t5 = write(&dir, "r.tab5", b"u\tACGT\tIIII\np\tAC\tII\tGG\t!!\r\n\n");
    let t6 = write(&dir, "r.tab6", b"p/1\tAC\tII\tp/2\tGG\t!!\nu x\tA\tI\n");
    let five = ReadSources {
        interleaved: paths(&[&t5]),
        format: InputFormat::Tab5,
        ..ReadSources::default()
    };
    assert_eq!(
        all_limits(&five).unwrap(),
        ["u ACGT 40,40,40,40", "p AC 40,40 | p GG 0,0"]
    );
    let six = ReadSources {
        unpaired: paths(&[&t6]),
        format: InputFormat::Tab6,
        ..ReadSources::default()
    };
    assert_eq!(
        all_limits(&six).unwrap(),
        ["p AC 40,40 | p GG 0,0", "u A 40"]
    );
    // A pair's line is written back once, as mate 1's record (`--un-conc`, `--al-conc`).
    let batch = first_batch(&six);
    let Fragment::Pair([m1, m2]) = batch.fragment(0) else {
        panic!("a pair")
    };
    assert_eq!(m1.original, b"p/1\tAC\tII\tp/2\tGG\t!!");
    assert_eq!(m2.original, b"");
    let wrong = ReadSources {
        interleaved: paths(&[&t6]),
        format: InputFormat::Tab5,
        ..ReadSources::default()
    };
    let e = all(&wrong).unwrap_err().to_string();
    assert!(
        e.contains("r.tab6: record 1: expected 3 tab-separated fields"),
        "{e}"
    );
}

#[test]
fn raw_reads_are_named_by_their_number() {
    let dir = tempfile::tempdir().unwrap();
    let raw = write(&dir, "r.raw", b"ACGT\n\nGGA\r\nTT");
    let mut sources = ReadSources {
        unpaired: paths(&[&raw]),
        format: InputFormat::Raw,
        ..ReadSources::default()
    };
    assert_eq!(
        all_limits(&sources).unwrap(),
        ["0 ACGT -", "1 GGA -", "2 TT -"]
    );
    sources.skip = 1;
    assert_eq!(all(&sources).unwrap(), ["1 GGA -", "2 TT -"]);
}

#[test]
fn qseq_names_and_filter() {
    let dir = tempfile::tempdir().unwrap();
    let lines =
        b"M1\t7\t3\t11\t100\t200\t0\t1\tAC.T\tIIII\t1\nM1\t7\t3\t11\t101\t201\t0\t1\tGG\tII\t0\n";
    let q = write(&dir, "r_qseq.txt", lines);
    let sources = ReadSources {
        unpaired: paths(&[&q]),
        format: InputFormat::Qseq,
        ..ReadSources::default()
    };
    assert_eq!(
        all_limits(&sources).unwrap(),
        [
            "M1_7_3_11_100_200_0/1 ACNT 40,40,40,40",
            "M1_7_3_11_101_201_0/1 GG 40,40"
        ]
    );
    let mut chunker = InputChunker::new(&sources, ChunkLimits::default()).unwrap();
    let mut chunk = InputChunk::default();
    let mut batch = FragmentBatch::new();
    chunker.fill(&mut chunk).unwrap();
    batch.parse(&chunk, &ParseOptions::default()).unwrap();
    assert!(!batch.read(0).filtered && batch.read(1).filtered);
    let bad = write(
        &dir,
        "bad_qseq.txt",
        b"M\t1\t1\t1\t1\t1\t0\t1\tA\tI\t2\nM\t1\n",
    );
    let sources = ReadSources {
        unpaired: paths(&[&bad]),
        format: InputFormat::Qseq,
        ..ReadSources::default()
    };
    assert!(all(&sources)
        .unwrap_err()
        .to_string()
        .contains("record 1: QSEQ filter flag"));
}

#[test]
fn kmers_from_fasta() {
    let dir = tempfile::tempdir().unwrap();
    let fa = write(
        &dir,
        "g.fa",
        b">chr1 desc\nACGTA\nCr\n>chr2\nGG-T\n>empty\n",
    );
    let sources = ReadSources {
        unpaired: paths(&[&fa]),
        format: InputFormat::KmerFasta { k: 3, interval: 2 },
        ..ReadSources::default()
    };
    assert_eq!(
        all_limits(&sources).unwrap(),
        [
            "chr1_0 ACG -",
            "chr1_2 GTA -",
            "chr1_4 ACN -",
            "chr2_0 GGT -"
        ]
    );
    let paired = ReadSources {
        mate1: paths(&[&fa]),
        mate2: paths(&[&fa]),
        format: InputFormat::KmerFasta { k: 3, interval: 2 },
        ..ReadSources::default()
    };
    assert!(InputChunker::new(&paired, ChunkLimits::default()).is_err());
}

#[test]
fn kmers_of_a_sequence_on_one_line_match_it_wrapped() {
    // Longer than the parts a line is read in: k-mers cross the parts' boundaries.
    let seq: Vec<u8> = (0..150_000u32)
        .map(|i| b"ACGTN"[(i * 7 % 11 % 5) as usize])
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut one = b">c\n".to_vec();
    one.extend_from_slice(&seq);
    let mut wrapped = b">c\n".to_vec();
    for line in seq.chunks(61) {
        wrapped.extend_from_slice(line);
        wrapped.extend_from_slice(b"\r\n");
    }
    let kmers = |name: &str, text: &[u8]| {
        let sources = ReadSources {
            unpaired: paths(&[&write(&dir, name, text)]),
            format: InputFormat::KmerFasta { k: 9, interval: 7 },
            ..ReadSources::default()
        };
        all_limits(&sources).unwrap()
    };
    let got = kmers("one.fa", &one);
    assert_eq!(got.len(), (150_000 - 9) / 7 + 1);
    assert_eq!(got, kmers("wrapped.fa", &wrapped));
}

#[test]
fn command_line_reads() {
    let sources = ReadSources {
        mate1: ReadSources::split_list("ACGT:IIII,GG"),
        mate2: ReadSources::split_list("TT,CC:!!"),
        unpaired: ReadSources::split_list("AAA"),
        format: InputFormat::CommandLine,
        ..ReadSources::default()
    };
    assert_eq!(
        all_limits(&sources).unwrap(),
        [
            "0 ACGT 40,40,40,40 | 0 TT -",
            "1 GG - | 1 CC 0,0",
            "0 AAA -"
        ]
    );
    let uneven = ReadSources {
        mate1: ReadSources::split_list("A,C"),
        mate2: ReadSources::split_list("A"),
        format: InputFormat::CommandLine,
        ..ReadSources::default()
    };
    let e = all(&uneven).unwrap_err().to_string();
    assert!(
        e.contains("2 reads were given with -1 but 1 with -2"),
        "{e}"
    );
}

#[test]
fn trimming_keeps_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let fq = write(&dir, "r.fq", b"@a\nACGTACGT\n+\n01234567\n@b\nAC\n+\nII\n");
    let sources = ReadSources {
        unpaired: paths(&[&fq]),
        ..ReadSources::default()
    };
    let run = |options: ParseOptions| fragments(&sources, 1, 1, &options).unwrap();
    let q = |s: &str| s.to_string();
    assert_eq!(
        run(ParseOptions {
            trim5: 2,
            trim3: 1,
            ..ParseOptions::default()
        }),
        [q("a GTACG 17,18,19,20,21"), q("b  ")]
    );
    assert_eq!(
        run(ParseOptions {
            trim_to: Some(TrimTo::parse("3").unwrap()),
            ..ParseOptions::default()
        }),
        [q("a ACG 15,16,17"), q("b AC 40,40")]
    );
    assert_eq!(
        run(ParseOptions {
            trim_to: Some(TrimTo::parse("5:3").unwrap()),
            ..ParseOptions::default()
        }),
        [q("a CGT 20,21,22"), q("b AC 40,40")]
    );
}

#[test]
fn nameless_reads_take_their_number() {
    let dir = tempfile::tempdir().unwrap();
    let fq = write(&dir, "r.fq", b"@a\nA\n+\nI\n@\nC\n+\nI\n");
    let sources = ReadSources {
        unpaired: paths(&[&fq]),
        ..ReadSources::default()
    };
    assert_eq!(all(&sources).unwrap(), ["a A 40", "1 C 40"]);
}

#[test]
fn names_past_sams_limit_are_cut_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let long = "n".repeat(300);
    let text = |mate: u8| format!("@{long}/{mate} c{mate}\nAC\n+\nII\n");
    let sources = ReadSources {
        mate1: vec![write(&dir, "r1.fq", text(1).as_bytes())],
        mate2: vec![write(&dir, "r2.fq", text(2).as_bytes())],
        ..ReadSources::default()
    };
    let batch = first_batch(&sources);
    let Fragment::Pair([m1, m2]) = batch.fragment(0) else {
        panic!("a pair")
    };
    assert_eq!(m1.name, &long.as_bytes()[..254]);
    assert_eq!(m2.name, m1.name);
    assert_eq!(m1.full_name, format!("{long}/1 c1").as_bytes());
}

#[test]
fn sra_numbered_mates_pair_up_and_keep_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        &dir,
        "sra_1.fq",
        b"@SRR123.7.1 len=2\nAC\n+\nII\n@SRR123.8/1\nGG\n+\nII\n",
    );
    let b = write(
        &dir,
        "sra_2.fq",
        b"@SRR123.7.2 len=2\nTT\n+\nII\n@SRR123.8/2\nCC\n+\nII\n",
    );
    let split = ReadSources {
        mate1: paths(&[&a]),
        mate2: paths(&[&b]),
        ..ReadSources::default()
    };
    let both = write(
        &dir,
        "sra.fq",
        b"@SRR123.7.1\nAC\n+\nII\n@SRR123.7.2\nTT\n+\nII\n",
    );
    let interleaved = ReadSources {
        interleaved: paths(&[&both]),
        ..ReadSources::default()
    };
    assert_eq!(
        all_limits(&split).unwrap(),
        [
            "SRR123.7.1 AC 40,40 | SRR123.7.2 TT 40,40",
            "SRR123.8 GG 40,40 | SRR123.8 CC 40,40"
        ]
    );
    assert_eq!(
        all_limits(&interleaved).unwrap(),
        ["SRR123.7.1 AC 40,40 | SRR123.7.2 TT 40,40"]
    );
    // Only .1 then .2 with equal prefixes.
    for (name1, name2) in [
        ("SRR1.7.2", "SRR1.7.1"),
        ("SRR1.7.1", "SRR1.8.2"),
        ("SRR1.7.1", "SRR1.7.3"),
        ("SRR1.71", "SRR1.72"),
        (".1", ".2"),
    ] {
        let text = format!("@{name1}\nAC\n+\nII\n@{name2}\nTT\n+\nII\n");
        let file = write(&dir, "bad.fq", text.as_bytes());
        let sources = ReadSources {
            interleaved: paths(&[&file]),
            ..ReadSources::default()
        };
        let e = all(&sources).unwrap_err().to_string();
        assert!(e.contains("mate names differ"), "{name1} {name2}: {e}");
    }
}
