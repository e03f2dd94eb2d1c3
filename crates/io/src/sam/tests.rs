use super::bam::{
    check_reference_lengths, encode_header, encode_record, reg2bin, MAX_REFERENCE_LEN,
};
use super::*;
use crate::bgzf_writer::BgzfCompressor;

fn header() -> SamHeader {
    SamHeader::new(
        vec![
            SamReference {
                name: "chr1".into(),
                len: 1000,
            },
            SamReference {
                name: "chr2".into(),
                len: 50,
            },
        ],
        "unsorted",
        &["@PG\tID:seqfarm\tPN:seqfarm".to_string()],
    )
}

#[test]
fn sam_lines() {
    let h = header();
    assert_eq!(
        h.text,
        "@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:chr1\tLN:1000\n@SQ\tSN:chr2\tLN:50\n@PG\tID:seqfarm\tPN:seqfarm\n"
    );
    let tags = [
        Tag {
            name: *b"AS",
            value: TagValue::Int(-12),
        },
        Tag {
            name: *b"MD",
            value: TagValue::Str(b"3^A2"),
        },
    ];
    let rec = SamRecord {
        name: b"r1",
        flag: 16,
        reference: Some(1),
        position: 9,
        mapq: 42,
        cigar: &[3 << 4, 1 << 4 | 2, 2 << 4],
        bases: b"ACGTA",
        qualities: Some(&[40, 40, 0, 30, 93]),
        tags: &tags,
        mate: MateFields::NONE,
    };
    let mut out = Vec::new();
    write_sam(&h, &rec, &mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "r1\t16\tchr2\t10\t42\t3M1D2M\t*\t0\t0\tACGTA\tII!?~\tAS:i:-12\tMD:Z:3^A2\n"
    );
    let unplaced = SamRecord {
        flag: 4,
        reference: None,
        mapq: 0,
        cigar: &[],
        qualities: None,
        tags: &[],
        ..rec
    };
    let mut out = Vec::new();
    write_sam(&h, &unplaced, &mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "r1\t4\t*\t0\t0\t*\t*\t0\t0\tACGTA\t*\n"
    );
}

#[test]
fn bins_follow_the_spec() {
    assert_eq!(reg2bin(-1, 0), 4680);
    assert_eq!(reg2bin(0, 1), 4681);
    assert_eq!(reg2bin(16383, 16385), 585);
    assert_eq!(reg2bin(0, 1 << 29), 0);
}

#[test]
fn bam_encoding_and_blocks() {
    let h = header();
    let mut bytes = Vec::new();
    encode_header(&h, &mut bytes);
    assert!(bytes.starts_with(b"BAM\x01"));
    let rec = SamRecord {
        name: b"r",
        flag: 0,
        reference: Some(0),
        position: 5,
        mapq: 7,
        cigar: &[3 << 4],
        bases: b"ACG",
        qualities: None,
        tags: &[Tag {
            name: *b"NM",
            value: TagValue::Int(300),
        }],
        mate: MateFields::NONE,
    };
    let before = bytes.len();
    encode_record(&rec, &mut bytes);
    let block_size = u32::from_le_bytes(bytes[before..before + 4].try_into().unwrap());
    assert_eq!(block_size as usize, bytes.len() - before - 4);
    // 32 fixed bytes + "r\0" + 1 CIGAR op + 2 SEQ bytes + 3 QUAL + NM:S:300 (5).
    assert_eq!(block_size, 32 + 2 + 4 + 2 + 3 + 5);
    let mut compressor = BgzfCompressor::new(6);
    let big: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let mut blocks = Vec::new();
    compressor.compress(&big, &mut blocks);
    // Inflate them back with the reader's BGZF code.
    let mut inflater = crate::bgzf::Inflater::new();
    let mut back = Vec::new();
    let mut offset = 0u64;
    while (offset as usize) < blocks.len() {
        let mut buf = crate::bgzf::InflateBuffer::new();
        let info = inflater.inflate_block(&blocks, offset, &mut buf).unwrap();
        back.extend_from_slice(buf.as_slice());
        offset = info.end();
    }
    assert_eq!(back, big);
}

#[test]
fn mate_fields_in_sam_and_bam() {
    let h = header();
    let base = SamRecord {
        name: b"p",
        flag: 99,
        reference: Some(0),
        position: 9,
        mapq: 42,
        cigar: &[5 << 4],
        bases: b"ACGTA",
        qualities: None,
        tags: &[],
        mate: MateFields {
            reference: Some(0),
            position: 199,
            template_len: 295,
        },
    };
    let mut out = Vec::new();
    write_sam(&h, &base, &mut out);
    let other = SamRecord {
        mate: MateFields {
            reference: Some(1),
            position: 4,
            template_len: -3,
        },
        ..base
    };
    write_sam(&h, &other, &mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "p\t99\tchr1\t10\t42\t5M\t=\t200\t295\tACGTA\t*\n\
         p\t99\tchr1\t10\t42\t5M\tchr2\t5\t-3\tACGTA\t*\n"
    );
    let mut bam = Vec::new();
    encode_record(&other, &mut bam);
    // next refID, next pos, tlen follow refID, pos, name length, mapq, bin, n_cigar,
    // flag and l_seq (4 + 4 + 4 + 1 + 1 + 2 + 2 + 2 + 4 bytes from the block size).
    assert_eq!(&bam[24..28], &1i32.to_le_bytes());
    assert_eq!(&bam[28..32], &4i32.to_le_bytes());
    assert_eq!(&bam[32..36], &(-3i32).to_le_bytes());
}

#[test]
fn references_longer_than_bam_holds_are_refused() {
    let mut references = header().references;
    assert!(check_reference_lengths(&references).is_ok());
    references[1].len = MAX_REFERENCE_LEN;
    assert!(check_reference_lengths(&references).is_ok());
    // A 2.2 Gbp chromosome (as some amphibians and plants have) is too long for BAM.
    references[1].len = MAX_REFERENCE_LEN + 1;
    let e = check_reference_lengths(&references).unwrap_err();
    assert!(e.contains("chr2") && e.contains("2147483648"), "{e}");
}
