//! A stream written in parts of every kind (inside one block, across a grid line, many
//! blocks, empty, ending the stream) against the whole stream written at once: the same
//! file, and the virtual offset of every part's every line.

use super::*;
use crate::bgzf_writer::{BgzfCompressor, BgzfWriter, EOF_MARKER};
use std::io::Write;

/// The stream `header` + `parts`, written in parts: the file, and per part the virtual
/// offset of each of its bytes' positions `0..=len`.
fn written_in_parts(header: &[u8], parts: &[Vec<u8>]) -> (Vec<u8>, Vec<Vec<u64>>) {
    let lengths: Vec<u64> = parts.iter().map(|p| p.len() as u64).collect();
    let layout = StreamLayout::new(header.len() as u64, &lengths).unwrap();
    let mut compressor = BgzfCompressor::new(6);
    let mut inner = Vec::new();
    let mut inner_sizes = Vec::new();
    for (span, bytes) in layout.spans().iter().zip(parts) {
        let mut out = Vec::new();
        let sizes = compress_range(
            &mut compressor,
            span,
            Pieces(&[bytes]),
            span.inner(),
            &mut out,
        );
        inner.push(out);
        inner_sizes.push(sizes);
    }
    let seams: Vec<Vec<u8>> = layout
        .seams()
        .iter()
        .map(|(block, owners)| {
            let mut text = if *block == 0 {
                header.to_vec()
            } else {
                Vec::new()
            };
            for &k in owners {
                let span = layout.spans()[k];
                for (b, r) in span.pieces() {
                    if b == *block {
                        text.extend_from_slice(
                            &parts[k][(r.start - span.start) as usize..]
                                [..(r.end - r.start) as usize],
                        );
                    }
                }
            }
            assert!(text.len() <= BLOCK_INPUT);
            let mut out = Vec::new();
            compressor.compress(&text, &mut out);
            out
        })
        .collect();
    let totals: Vec<u64> = inner.iter().map(|b| b.len() as u64).collect();
    let seam_sizes: Vec<u64> = seams.iter().map(|b| b.len() as u64).collect();
    let placement = layout.place(&totals, &seam_sizes).unwrap();
    let mut file = vec![0u8; placement.eof as usize];
    for (offsets, bytes) in placement.parts.iter().zip(&inner) {
        file[offsets.inner as usize..][..bytes.len()].copy_from_slice(bytes);
    }
    for (&at, bytes) in placement.seams.iter().zip(&seams) {
        file[at as usize..][..bytes.len()].copy_from_slice(bytes);
    }
    file.extend_from_slice(&EOF_MARKER);
    let positions = layout
        .spans()
        .iter()
        .zip(&placement.parts)
        .zip(&inner_sizes)
        .map(|((span, offsets), sizes)| {
            let starts = inner_starts(sizes);
            (span.start..=span.end)
                .map(|at| offsets.virtual_offset(span, &starts, at))
                .collect()
        })
        .collect();
    (file, positions)
}

/// The same stream written at once, and the virtual offsets of the parts' positions.
fn written_at_once(header: &[u8], parts: &[Vec<u8>]) -> (Vec<u8>, Vec<Vec<u64>>) {
    let mut writer = BgzfWriter::new(Vec::new(), 6);
    writer.write_all(header).unwrap();
    let mut positions = Vec::new();
    for part in parts {
        let mut at = Vec::new();
        for &byte in part {
            at.push(writer.virtual_position());
            writer.write_all(&[byte]).unwrap();
        }
        at.push(writer.virtual_position());
        positions.push(at);
    }
    (writer.finish().unwrap(), positions)
}

/// Text of `n` bytes that compresses somewhat, different for each `seed`.
fn text(n: usize, seed: u64) -> Vec<u8> {
    (0..n as u64)
        .map(|i| b"ACGT\t0123456789\n"[((i * 7 + seed * 13) ^ (i / 5)) as usize % 16])
        .collect()
}

#[test]
fn parts_of_every_kind_write_the_whole_streams_file() {
    let block = BLOCK_INPUT;
    let shapes: Vec<Vec<usize>> = vec![
        vec![10, 20, 30],
        vec![block],
        vec![
            block - 40,
            100,
            3 * block + 7,
            0,
            5,
            block,
            2 * block - 5,
            17,
        ],
        vec![0, 3 * block],
        vec![200; 700],
        vec![block / 2, block / 2 + 40, block - 1, 1, block + 1],
    ];
    for header in [&b""[..], b"#chrom\tstart\tend\n"] {
        for shape in &shapes {
            let parts: Vec<Vec<u8>> = shape
                .iter()
                .enumerate()
                .map(|(i, &n)| text(n, i as u64))
                .collect();
            let ours = written_in_parts(header, &parts);
            let expected = written_at_once(header, &parts);
            // The writer at once gives a position at a block's end as the next block's.
            assert!(ours.0 == expected.0, "files differ for {shape:?}");
            assert_eq!(ours.1, expected.1, "virtual offsets differ for {shape:?}");
        }
    }
}

#[test]
fn a_header_longer_than_a_block_is_refused() {
    assert!(StreamLayout::new(BLOCK, &[1]).is_err());
}

#[test]
fn pieces_give_the_bytes_they_join() {
    let bytes: Vec<u8> = (0..100u8).collect();
    let pieces = [&bytes[..10], &bytes[10..10], &bytes[10..70], &bytes[70..]];
    let joined = Pieces(&pieces);
    assert_eq!(joined.len(), 100);
    for start in 0..=100 {
        for end in start..=100 {
            assert_eq!(&joined.range(start..end)[..], &bytes[start..end]);
        }
    }
    assert!(matches!(
        joined.range(12..60),
        std::borrow::Cow::Borrowed(_)
    ));
}
