//! Filling a chunk from the open sources: whole records of one file (unpaired,
//! interleaved or tabbed), mates of two files taken in step, and `-c` reads written as
//! lines `index<TAB>word`, each up to the fragments and bytes a chunk is given.

use std::path::PathBuf;

use super::{record_end_in, InputChunk, Layout, RecordFormat};
use crate::reads::records::{first_line, RecordReader};
use crate::{Error, Result};

/// Appends a record, ending it with a line break if the file's last line had none.
fn push_record(out: &mut Vec<u8>, record: &[u8]) {
    out.extend_from_slice(record);
    if record.last() != Some(&b'\n') {
        out.push(b'\n');
    }
}

/// Unpaired, interleaved or tabbed fragments of one file.
pub(super) fn cut_one_file(
    chunk: &mut InputChunk,
    reader: &mut RecordReader,
    layout: Layout,
    want: usize,
    max_bytes: usize,
) -> Result<usize> {
    let data = &mut chunk.data[0];
    let mut n = 0;
    while n < want && data.len() < max_bytes {
        let start = data.len();
        match reader.next()? {
            Some(record) => push_record(data, record),
            None => break,
        }
        if layout == Layout::Interleaved {
            match reader.next()? {
                Some(record) => push_record(data, record),
                None => {
                    let message = format!(
                        "`{}` is the last record of an interleaved file and has no mate: \
                         an interleaved file holds an even number of records, mate 1 then mate 2",
                        first_line(&data[start..])
                    );
                    return Err(Error::record(reader.path(), reader.records, message));
                }
            }
        }
        n += 1;
    }
    Ok(n)
}

/// Pairs from two files: records of the first cut by the limits, the same number of
/// records from the second.
pub(super) fn cut_two_files(
    chunk: &mut InputChunk,
    first: &mut RecordReader,
    second: &mut RecordReader,
    want: usize,
    max_bytes: usize,
) -> Result<usize> {
    let [data1, data2] = &mut chunk.data;
    let mut n = 0;
    let mut first_ended = false;
    while n < want && data1.len() < max_bytes {
        match first.next()? {
            Some(record) => push_record(data1, record),
            None => {
                first_ended = true;
                break;
            }
        }
        n += 1;
    }
    for i in 0..n {
        let Some(record) = second.next()? else {
            // The first record of `data1` without a mate.
            let mut pos = 0;
            for _ in 0..i {
                pos = record_end_in(chunk.format, data1, pos);
            }
            let message = format!(
                "`{}` has no mate: {} ends after record {}; -1 and -2 files must hold the same number of records",
                first_line(&data1[pos..]),
                second.path().display(),
                second.records
            );
            let record = first.records - (n - i) as u64 + 1;
            return Err(Error::record(first.path(), record, message));
        };
        push_record(data2, record);
    }
    if first_ended || n == 0 {
        if let Some(record) = second.next()? {
            let message = format!(
                "`{}` has no mate: {} ends after record {}; -1 and -2 files must hold the same number of records",
                first_line(record),
                first.path().display(),
                first.records
            );
            return Err(Error::record(second.path(), second.records, message));
        }
    }
    Ok(n)
}

/// Fragments of `-c` reads: each word is written as a line `index<TAB>word`.
pub(super) fn cut_words(
    chunk: &mut InputChunk,
    lists: &[Vec<Vec<u8>>; 2],
    layout: Layout,
    next: &mut usize,
    want: usize,
    max_bytes: usize,
) -> Result<usize> {
    let label = PathBuf::from("-c");
    chunk.layout = layout;
    chunk.format = RecordFormat::CommandLine;
    chunk.paths = [label.clone(), label.clone()];
    let per_fragment = if layout == Layout::Interleaved { 2 } else { 1 };
    chunk.first_record = [*next as u64 + 1; 2];
    let mut n = 0;
    // Reads are named by their index in their list; interleaved mates by their pair's.
    let write = |out: &mut Vec<u8>, index: usize, name: usize, list: &[Vec<u8>]| -> Result<()> {
        let word = &list[index];
        if word.iter().any(|&b| b == b'\n' || b == b'\t' || b == b'\r') {
            return Err(Error::record(
                &label,
                index as u64 + 1,
                "a read given with -c contains a tab or a line break",
            ));
        }
        out.extend_from_slice(itoa::Buffer::new().format(name).as_bytes());
        out.push(b'\t');
        out.extend_from_slice(word);
        out.push(b'\n');
        Ok(())
    };
    while n < want && chunk.data[0].len() < max_bytes && *next < lists[0].len() {
        match layout {
            Layout::Interleaved => {
                if *next + 1 >= lists[0].len() {
                    return Err(Error::record(
                        &label,
                        *next as u64 + 1,
                        "an odd number of interleaved reads: the last one has no mate",
                    ));
                }
                write(&mut chunk.data[0], *next, *next / 2, &lists[0])?;
                write(&mut chunk.data[0], *next + 1, *next / 2, &lists[0])?;
            }
            Layout::TwoFiles => {
                if *next >= lists[1].len() {
                    return Err(Error::record(
                        &label,
                        *next as u64 + 1,
                        format!(
                            "{} reads were given with -1 but {} with -2",
                            lists[0].len(),
                            lists[1].len()
                        ),
                    ));
                }
                write(&mut chunk.data[0], *next, *next, &lists[0])?;
                write(&mut chunk.data[1], *next, *next, &lists[1])?;
            }
            _ => write(&mut chunk.data[0], *next, *next, &lists[0])?,
        }
        *next += per_fragment;
        n += 1;
    }
    if layout == Layout::TwoFiles && *next >= lists[0].len() && lists[1].len() > lists[0].len() {
        return Err(Error::record(
            &label,
            lists[0].len() as u64 + 1,
            format!(
                "{} reads were given with -1 but {} with -2",
                lists[0].len(),
                lists[1].len()
            ),
        ));
    }
    Ok(n)
}
