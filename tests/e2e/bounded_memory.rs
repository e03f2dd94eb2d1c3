//! Hostile inputs in a limited address space (`ulimit -v`): a FASTQ record of 1 GB
//! without line breaks, BAM records that claim up to 2 GB, text lines of 100 MB and
//! more. Each is a clear error naming the file (or, for long VCF sample columns and
//! one-line FASTA, a normal run), never an allocation failure. The big inputs are
//! generated into a pipe or written as sparse files, so they cost no disk.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{data, peer};

/// The address space most commands run in here: far less than the hostile inputs, and
/// far more than the small inputs need.
const LIMIT_MIB: u64 = 256;

/// Runs `script` with `sh` in `dir`, its address space limited to `limit_mib` MiB;
/// `$SEQFARM` is the binary.
fn limited(dir: &Path, limit_mib: u64, script: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {}; {script}", limit_mib << 10))
        .env("SEQFARM", env!("CARGO_BIN_EXE_seqfarm"))
        .current_dir(dir)
        .output()
        .expect("sh runs")
}

/// The error line of a run that failed cleanly (exit 1, no panic, no failed
/// allocation).
fn clean_error(out: &Output) -> String {
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.starts_with("seqfarm: error: "), "{e}");
    assert!(
        !e.contains("panicked") && !e.contains("memory allocation"),
        "{e}"
    );
    e
}

/// A shell command writing `head` and then `len` copies of `byte` (no line end).
fn generated(head: &str, len: u64, byte: &str) -> String {
    format!("{{ printf '{head}'; head -c {len} /dev/zero | tr '\\0' '{byte}'; }}")
}

/// A file of `head` followed by zero bytes up to `len` bytes in all, sparse (no disk).
fn sparse(dir: &Path, name: &str, head: &[u8], len: u64) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, head).unwrap();
    File::options()
        .append(true)
        .open(&path)
        .unwrap()
        .set_len(len)
        .unwrap();
    path
}

/// An index of the small test reference, in `dir`.
fn small_index(dir: &Path) -> &'static str {
    let out = crate::support::run(&[
        "index",
        "-t",
        "2",
        "-o",
        dir.join("ref").to_str().unwrap(),
        data("index_ref.fa.gz").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    "ref"
}

#[test]
fn a_fastq_record_without_line_breaks_is_refused_after_4_mib() {
    let dir = tempfile::tempdir().unwrap();
    let index = small_index(dir.path());
    let reads = data("pe_sim_R1.fq.gz");
    let reads = reads.to_str().unwrap();
    let huge = generated("@r\\n", 1 << 30, "A");
    for reads_args in [
        "-U -".to_string(),
        "-f -U -".to_string(),
        format!("-1 - -2 {reads}"),
        format!("-1 {reads} -2 -"),
    ] {
        let script = format!("{huge} | \"$SEQFARM\" align -p 2 -x {index} {reads_args} -S out.sam");
        let e = clean_error(&limited(dir.path(), LIMIT_MIB, &script));
        assert!(
            e.contains("(standard stream): record 1: record is longer than 4 MiB"),
            "{reads_args}: {e}"
        );
    }
    sparse(dir.path(), "huge.fq", b"@r\n", 1 << 30);
    let script = format!("\"$SEQFARM\" align -p 2 -x {index} -U huge.fq -S out.sam");
    let e = clean_error(&limited(dir.path(), LIMIT_MIB, &script));
    assert!(
        e.contains("huge.fq: record 1: record is longer than 4 MiB"),
        "{e}"
    );
}

/// Eight threads (more than the cores here) aligning gzip FASTQ into a sorted BAM in a
/// limited address space: malloc's per-thread reservations are kept within the limit,
/// so every thread starts, and the BAM is the unlimited run's, byte for byte.
#[test]
fn many_threads_start_in_a_limited_address_space() {
    let dir = tempfile::tempdir().unwrap();
    let index = small_index(dir.path());
    let (r1, r2) = (data("pe_sim_R1.fq.gz"), data("pe_sim_R2.fq.gz"));
    let run = |limit_mib: u64| {
        let script = format!(
            "\"$SEQFARM\" align -p 8 -x {index} -1 {} -2 {} --sort --sort-memory 1M -o out.bam",
            r1.display(),
            r2.display()
        );
        let done = limited(dir.path(), limit_mib, &script);
        let e = String::from_utf8_lossy(&done.stderr);
        assert!(done.status.success(), "{limit_mib} MiB: {e}");
        assert!(!e.contains("panicked"), "{e}");
        std::fs::read(dir.path().join("out.bam")).unwrap()
    };
    let limited_run = run(LIMIT_MIB);
    assert!(limited_run == run(64 << 10), "the BAMs differ");
}

#[test]
fn kmers_of_a_one_line_fasta_are_read_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let index = small_index(dir.path());
    let huge = generated(">chr\\n", 1 << 30, "C");
    let script =
        format!("{huge} | \"$SEQFARM\" align -p 2 -x {index} -F k:20,i:1000 -u 3 -U - -S out.sam");
    let out = limited(dir.path(), LIMIT_MIB, &script);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sam = std::fs::read_to_string(dir.path().join("out.sam")).unwrap();
    let names: Vec<&str> = sam
        .lines()
        .filter(|l| !l.starts_with('@'))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(names, ["chr_0", "chr_1000", "chr_2000"]);
}

/// The offset of the first record in decompressed BAM bytes.
fn first_record(bam: &[u8]) -> usize {
    let u32_at = |at: usize| u32::from_le_bytes(bam[at..at + 4].try_into().unwrap()) as usize;
    let mut at = 8 + u32_at(4);
    let refs = u32_at(at);
    at += 4;
    for _ in 0..refs {
        at += 4 + u32_at(at) + 4;
    }
    at
}

/// `sarscov2.bam` with its first record's length field set to `claimed`, recompressed
/// (no index).
fn bam_claiming(dir: &Path, claimed: u32) -> PathBuf {
    let mut bam = crate::support::file_bytes(&data("bam/sarscov2.bam"));
    let at = first_record(&bam);
    bam[at..at + 4].copy_from_slice(&claimed.to_le_bytes());
    let path = dir.join(format!("claims_{claimed}.bam"));
    let mut writer = seqfarm_io::bgzf_writer::BgzfWriter::new(File::create(&path).unwrap(), 1);
    std::io::Write::write_all(&mut writer, &bam).unwrap();
    writer.finish().unwrap();
    path
}

#[test]
fn bam_records_claiming_huge_lengths_are_errors_without_the_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let index = small_index(dir.path());
    for (claimed, want) in [
        (2_000_000_000u32, "implausible record length 2000000000"),
        (200_000_000, "the data ends inside a record"),
    ] {
        let bam = bam_claiming(dir.path(), claimed);
        let name = bam.file_name().unwrap().to_str().unwrap();
        for (input, shown) in [
            (name.to_string(), name),
            (format!("- < {name}"), "(standard stream)"),
        ] {
            let script = format!("\"$SEQFARM\" flagstat -t 2 {input}");
            let e = clean_error(&limited(dir.path(), LIMIT_MIB, &script));
            assert!(
                e.contains(&format!("{shown}: {want}")) && e.contains("at byte offset"),
                "{script}: {e}"
            );
        }
        let want = if claimed > 1 << 28 {
            "record 1: record length 2000000000 is larger than 256 MiB"
        } else {
            "record 1: the file ends inside a record"
        };
        for (input, shown) in [
            (name.to_string(), name),
            (format!("- < {name}"), "(standard stream)"),
        ] {
            let script = format!("\"$SEQFARM\" align -p 2 -x {index} -b {input} -S out.sam");
            let e = clean_error(&limited(dir.path(), LIMIT_MIB, &script));
            assert!(e.contains(&format!("{shown}: {want}")), "{script}: {e}");
        }
    }
}

/// `samtools view -u` writes every BGZF block stored (deflate level 0): the record bytes
/// are in the file as they are, and can be patched in place without moving a block, so
/// the index stays valid. Sets the first record's length to `claimed` and the block's
/// CRC to match.
fn patch_stored_bam(path: &Path, claimed: u32) {
    let mut file = std::fs::read(path).unwrap();
    let at = first_record(&crate::support::file_bytes(path));
    let mut block = 0;
    let mut before = 0;
    loop {
        let size = u16::from_le_bytes([file[block + 16], file[block + 17]]) as usize + 1;
        let isize = u32::from_le_bytes(file[block + size - 4..block + size].try_into().unwrap());
        if at < before + isize as usize {
            assert_eq!(file[block + 18] & 0x06, 0, "a stored deflate block");
            let payload = block + 18 + 5;
            let field = payload + at - before;
            file[field..field + 4].copy_from_slice(&claimed.to_le_bytes());
            let mut crc = flate2::Crc::new();
            crc.update(&file[payload..payload + isize as usize]);
            file[block + size - 8..block + size - 4].copy_from_slice(&crc.sum().to_le_bytes());
            break;
        }
        before += isize as usize;
        block += size;
    }
    std::fs::write(path, file).unwrap();
}

#[test]
fn indexed_bam_records_claiming_huge_lengths_are_errors() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bed = d.join("r.bed");
    std::fs::write(&bed, "NC_045512.2\t0\t29903\n").unwrap();
    std::fs::write(
        d.join("s.vcf"),
        "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\nNC_045512.2\t5300\t.\tC\tT\t.\t.\t.\n",
    )
    .unwrap();
    for claimed in [2_000_000_000u32, 200_000_000] {
        let bam = d.join(format!("claims_{claimed}.bam"));
        let status = Command::new("samtools")
            .args(["view", "-u", "-o"])
            .arg(&bam)
            .arg(data("bam/sarscov2.bam"))
            .status()
            .unwrap();
        assert!(status.success());
        assert!(Command::new("samtools")
            .arg("index")
            .arg(&bam)
            .status()
            .unwrap()
            .success());
        patch_stored_bam(&bam, claimed);
        // The patch rewrites the BAM after indexing: give the index the BAM's time so
        // that it is not taken for a stale one when the two straddle a second.
        let patched = std::fs::metadata(&bam).unwrap().modified().unwrap();
        File::options()
            .append(true)
            .open(bam.with_extension("bam.bai"))
            .unwrap()
            .set_modified(patched)
            .unwrap();
        let name = bam.file_name().unwrap().to_str().unwrap();
        for script in [
            format!("\"$SEQFARM\" flagstat -t 2 {name}"),
            format!("\"$SEQFARM\" count -t 2 --bed r.bed {name}"),
            format!("\"$SEQFARM\" count -t 2 --window 1000 {name}"),
            format!("\"$SEQFARM\" snp-pileup -t 2 s.vcf out.csv {name} {name}"),
        ] {
            let e = clean_error(&limited(d, LIMIT_MIB, &script));
            let want = if claimed > 1 << 28 {
                "implausible record length 2000000000"
            } else {
                "the data ends inside"
            };
            assert!(e.contains(name) && e.contains(want), "{script}: {e}");
        }
    }
}

const VCF_HEADER: &str =
    "##fileformat=VCFv4.2\\n#CHROM\\tPOS\\tID\\tREF\\tALT\\tQUAL\\tFILTER\\tINFO\\tS1\\n";

#[test]
fn a_vcf_line_of_100_mb_without_tabs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let normal = data("snp-pileup/normal_slice.bam");
    let tumor = data("snp-pileup/tumor_slice.bam");
    let (normal, tumor) = (normal.to_str().unwrap(), tumor.to_str().unwrap());
    let huge = generated(VCF_HEADER, 100 << 20, "A");
    let script = format!("{huge} | \"$SEQFARM\" snp-pileup -t 2 - out.csv {normal} {tumor}");
    let e = clean_error(&limited(dir.path(), LIMIT_MIB, &script));
    assert!(
        e.contains("(standard stream): line 3: the columns CHROM to ALT are longer than 64 MiB"),
        "{e}"
    );
    let header = b"##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
    sparse(dir.path(), "zeros.vcf", header, 1 << 30);
    let script = format!("\"$SEQFARM\" snp-pileup -t 2 zeros.vcf out.csv {normal} {tumor}");
    let e = clean_error(&limited(dir.path(), LIMIT_MIB, &script));
    assert!(
        e.contains("zeros.vcf: line 3: the columns CHROM to ALT"),
        "{e}"
    );
}

#[test]
fn vcf_sample_columns_of_100_mb_are_skipped_not_buffered() {
    let dir = tempfile::tempdir().unwrap();
    let normal = data("snp-pileup/normal_slice.bam");
    let tumor = data("snp-pileup/tumor_slice.bam");
    let (normal, tumor) = (normal.to_str().unwrap(), tumor.to_str().unwrap());
    let site = "20\\t1000020\\t.\\tG\\tC\\t.\\t.\\t.\\t0/1";
    let next = "20\\t1000100\\t.\\tA\\tG\\t.\\t.\\t.\\t0/1\\n";
    let wide = format!(
        "{{ {}; printf '\\n{next}'; }}",
        generated(&format!("{VCF_HEADER}{site}"), 100 << 20, "\\t")
    );
    // Under the length at which a line is cut: kept whole across ten reads of the input.
    let medium = format!(
        "{{ {}; printf '\\n{next}'; }}",
        generated(&format!("{VCF_HEADER}{site}"), 600 << 10, "\\t")
    );
    let narrow = format!("printf '{VCF_HEADER}{site}\\n{next}'");
    for (input, output) in [
        (wide, "wide.csv"),
        (medium, "medium.csv"),
        (narrow, "narrow.csv"),
    ] {
        let script = format!("{input} | \"$SEQFARM\" snp-pileup -t 2 - {output} {normal} {tumor}");
        let out = limited(dir.path(), LIMIT_MIB, &script);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let narrow = std::fs::read_to_string(dir.path().join("narrow.csv")).unwrap();
    for output in ["wide.csv", "medium.csv"] {
        let text = std::fs::read_to_string(dir.path().join(output)).unwrap();
        assert_eq!(text, narrow, "{output}");
    }
    assert_eq!(narrow.lines().count(), 3, "{narrow}");
}

#[test]
fn a_bed_line_of_100_mb_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bam = data("snp-pileup/normal_slice.bam");
    let huge = generated("20\\t0\\t100\\t", 100 << 20, "A");
    let script = format!("{huge} | \"$SEQFARM\" count -t 2 --bed - {}", bam.display());
    let e = clean_error(&limited(dir.path(), LIMIT_MIB, &script));
    assert!(
        e.contains("(standard stream): line 1: longer than 16 MiB, the longest BED line accepted"),
        "{e}"
    );
    sparse(dir.path(), "zeros.bed", b"20\t0\t100\t", 1 << 30);
    let script = format!("\"$SEQFARM\" count -t 2 --bed zeros.bed {}", bam.display());
    let e = clean_error(&limited(dir.path(), LIMIT_MIB, &script));
    assert!(e.contains("zeros.bed: line 1: longer than 16 MiB"), "{e}");
}

#[test]
fn a_sam_line_longer_than_256_mib_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let huge = generated("@HD\\tVN:1.6\\n", 300 << 20, "A");
    let script = format!("{huge} | \"$SEQFARM\" flagstat -t 2 -");
    let e = clean_error(&limited(dir.path(), 2 * LIMIT_MIB, &script));
    assert!(
        e.contains("(standard stream): line 2: longer than 256 MiB, the longest SAM line accepted"),
        "{e}"
    );
}
