//! Reading a text input from a line in its middle: a run in parts starts each part where
//! the plan says its lines begin, rather than reading (and decompressing) every line
//! before them. A BGZF file starts at the block that holds the line; a plain file skips
//! to it without copying; a gzip file with an index of access points kept beside it
//! ([`GzipIndex`]) is entered at the last point before the line; other compressed files
//! are decompressed up to it.

use std::fs::File;
use std::io::{BufRead, Seek, SeekFrom};
use std::path::Path;

use super::{regular_file, Compression, Input, MappedFile, BUFFER};
use crate::bgzf::BlockScanner;
use crate::gzip_index::GzipIndex;
use crate::{Error, Result};

/// The start of a line in a text input: the bytes of text (decompressed) and the lines
/// before it, and, in a BGZF file, the block that holds its first byte.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextPoint {
    /// Bytes of text before the line.
    pub offset: u64,
    /// Lines before the line.
    pub lines: u64,
    /// The BGZF block holding the line's first byte ([`locate_blocks`]).
    pub block: Option<BlockStart>,
}

/// Where a BGZF block lies: in the file, and in the text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockStart {
    /// File offset of the block's first byte.
    pub compressed: u64,
    /// Bytes of text before the block's.
    pub text: u64,
}

/// Fills in the BGZF block of each of `points` (in text order, at most at the text's
/// end) when `path` is a BGZF file, reading the blocks' headers only; any other file
/// (plain, one gzip stream, a stream that is not a file) leaves them as they are.
pub fn locate_blocks<'a>(path: &Path, points: impl IntoIterator<Item = &'a mut TextPoint>) {
    let Ok(file) = File::open(path) else {
        return;
    };
    let Some(mapped) = MappedFile::map(&file) else {
        return;
    };
    let file = &mapped.map[..];
    let mut points = points.into_iter().peekable();
    let mut found = Vec::new();
    let mut text = 0u64;
    // The last block with text: a point at the text's end reads on from it.
    let mut last = None;
    for block in BlockScanner::new(file, 0, file.len() as u64) {
        let Ok(block) = block else {
            return;
        };
        let start = BlockStart {
            compressed: block.offset,
            text,
        };
        let end = text + block.inflated_size as u64;
        while let Some(point) = points.next_if(|p| p.offset < end) {
            found.push((point, start));
        }
        if end > text {
            last = Some(start);
        }
        text = end;
    }
    if let Some(last) = last {
        while let Some(point) = points.next_if(|p| p.offset == text) {
            found.push((point, last));
        }
    }
    // Filled in only once the whole file read as BGZF.
    for (point, block) in found {
        point.block = Some(block);
    }
}

impl Input {
    /// Opens `path` to read from `point` on: the next byte read is the first byte of its
    /// line, and [`Input::position`] counts from the text's start. The byte before the
    /// point must end a line: a file that changed since its points were found is an
    /// error naming the line.
    pub fn open_at(path: impl AsRef<Path>, point: &TextPoint) -> Result<Self> {
        let path = path.as_ref();
        let (mut input, before) = match point.block {
            Some(block) if block.text <= point.offset => {
                (Self::open_from(path, block.compressed)?, block.text)
            }
            _ => match Self::open_indexed(path, point.offset)? {
                Some(entered) => entered,
                None => (Self::open(path)?, 0),
            },
        };
        let changed = || {
            Error::line(
                path,
                point.lines + 1,
                format!(
                    "no line starts at byte {} of the text: the file changed since it was planned",
                    point.offset
                ),
            )
        };
        if point.offset > before {
            input.skip(point.offset - before - 1)?;
            // Also an error when the text ends before the point.
            match input.fill_buf() {
                Ok([b'\n', ..]) => input.consume(1),
                Ok(_) => return Err(changed()),
                Err(e) => return Err(input.line_error(point.lines, e)),
            }
        }
        input.position = point.offset;
        Ok(input)
    }

    /// Opens a gzip file `path` at the last access point of its index ([`GzipIndex`],
    /// made from the file as it is now) before text offset `offset`, with the text
    /// offset of the point; `None` when there is no such file, index or point past the
    /// file's start.
    fn open_indexed(path: &Path, offset: u64) -> Result<Option<(Self, u64)>> {
        if offset == 0 || !matches!(regular_file(path), Some((_, Compression::Gzip))) {
            return Ok(None);
        }
        let Ok(index) = GzipIndex::load(path) else {
            return Ok(None);
        };
        let at = index.points.partition_point(|p| p.out <= offset);
        if at <= 1 {
            return Ok(None);
        }
        let reader = index
            .reader_at(path, at - 1)
            .map_err(|e| Error::io(path, e))?;
        let input = Self {
            path: path.to_path_buf(),
            compressed: true,
            reader: Box::new(std::io::BufReader::with_capacity(BUFFER, reader)),
            position: 0,
        };
        Ok(Some((input, index.points[at - 1].out)))
    }

    /// Opens `path` from file offset `offset` (a BGZF block's start).
    fn open_from(path: &Path, offset: u64) -> Result<Self> {
        let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
        if let Some(mut mapped) = MappedFile::map(&file) {
            mapped.pos = usize::try_from(offset)
                .unwrap_or(usize::MAX)
                .min(mapped.map.len());
            return Self::from_buffered(path.to_path_buf(), Box::new(mapped));
        }
        file.seek(SeekFrom::Start(offset))
            .map_err(|e| Error::io(path, e))?;
        Self::from_reader(path, Box::new(file))
    }

    /// Reads past the next `n` bytes of text (fewer at its end), without keeping them.
    fn skip(&mut self, mut n: u64) -> Result<()> {
        while n > 0 {
            let available = match self.reader.fill_buf() {
                Ok(buf) => buf.len(),
                Err(e) => return Err(self.error(e)),
            };
            if available == 0 {
                break;
            }
            let take = available.min(usize::try_from(n).unwrap_or(usize::MAX));
            self.consume(take);
            n -= take as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::LineReader;
    use std::io::Write;

    /// Lines `0..n` of a numbered text.
    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect()
    }

    /// The line starts of `text` as points (`block` not yet located).
    fn points(text: &[u8]) -> Vec<TextPoint> {
        let mut points = vec![TextPoint::default()];
        for (lines, i) in memchr::memchr_iter(b'\n', text).enumerate() {
            points.push(TextPoint {
                offset: i as u64 + 1,
                lines: lines as u64 + 1,
                block: None,
            });
        }
        points
    }

    fn files(dir: &Path, text: &[u8]) -> [std::path::PathBuf; 3] {
        let plain = dir.join("t.txt");
        std::fs::write(&plain, text).unwrap();
        let bgzf = dir.join("t.txt.bgz");
        std::fs::write(&bgzf, crate::bgzf::tests::bgzf(text, 1000)).unwrap();
        let gz = dir.join("t.txt.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        [plain, bgzf, gz]
    }

    /// Checks that `path` opened at every `step`th line start of `text` (and at its end)
    /// reads on as from the start, with the right line numbers and position.
    fn reads_on_from_line_starts(path: &Path, text: &[u8], step: usize) {
        let mut points = points(text);
        locate_blocks(path, &mut points);
        let bgzf = path.extension().unwrap() == "bgz";
        assert_eq!(points.iter().all(|p| p.block.is_some()), bgzf, "{path:?}");
        assert!(bgzf || points.iter().all(|p| p.block.is_none()));
        let lines_in_all = points.len() as u64 - 1;
        for point in points.iter().step_by(step).chain(points.last()) {
            let mut lines = LineReader::new(Input::open_at(path, point).unwrap());
            lines.number = point.lines;
            let mut rest = Vec::new();
            while lines.append_line(&mut rest).unwrap() {
                rest.push(b'\n');
            }
            assert_eq!(rest, &text[point.offset as usize..], "{path:?} {point:?}");
            assert_eq!(lines.number, lines_in_all);
            assert_eq!(lines.input.position(), text.len() as u64);
        }
    }

    #[test]
    fn every_line_start_reads_on_as_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let text = text(2000);
        for path in files(dir.path(), &text) {
            reads_on_from_line_starts(&path, &text, 97);
        }
    }

    #[test]
    fn a_gzip_stream_with_an_index_is_entered_at_its_access_points() {
        let dir = tempfile::tempdir().unwrap();
        // Lines that compress in many deflate blocks: a number drawn for each.
        let mut draw = 1u64;
        let text: Vec<u8> = (0..30000)
            .flat_map(|i| {
                draw = draw
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                format!("line {i} {:x}\n", draw >> 24).into_bytes()
            })
            .collect();
        let gz = dir.path().join("t.txt.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&text).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        assert!(Input::open_indexed(&gz, 100_000).unwrap().is_none());
        let index = GzipIndex::open_or_build(&gz, 8192, None).unwrap();
        assert!(index.points.len() > 10);
        let mut entered = 0;
        for point in points(&text).iter().step_by(101) {
            if let Some((_, out)) = Input::open_indexed(&gz, point.offset).unwrap() {
                assert!(out > 0 && out <= point.offset && point.offset - out < 64 << 10);
                entered += 1;
            }
        }
        assert!(entered > 200, "{entered}");
        reads_on_from_line_starts(&gz, &text, 101);
    }

    #[test]
    fn a_point_off_a_line_start_is_an_error_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let text = text(2000);
        for path in files(dir.path(), &text) {
            let mut points = vec![TextPoint {
                offset: 7 * 100 + 3,
                lines: 100,
                block: None,
            }];
            locate_blocks(&path, &mut points);
            let err = Input::open_at(&path, &points[0]).err().unwrap().to_string();
            assert!(
                err.contains("line 101: no line starts at byte 703"),
                "{err}"
            );
            let past = TextPoint {
                offset: text.len() as u64 + 10,
                lines: 2010,
                block: None,
            };
            let err = Input::open_at(&path, &past).err().unwrap().to_string();
            assert!(
                err.contains("the file changed since it was planned"),
                "{err}"
            );
        }
    }
}
