//! The bytes a part's results travel as between the machines of a cluster: numbers as 8
//! little-endian bytes, byte strings after their length.

use seqfarm_io::input::{BlockStart, TextPoint};

/// Where [`WireWriter`] puts its bytes.
pub(crate) trait WireOut {
    fn put(&mut self, bytes: &[u8]);
}

impl WireOut for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl<O: WireOut + ?Sized> WireOut for &mut O {
    fn put(&mut self, bytes: &[u8]) {
        (**self).put(bytes);
    }
}

/// Counts the bytes put, to size a buffer before writing into it.
struct Counting(usize);

impl WireOut for Counting {
    fn put(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

/// Fills a buffer from its start.
struct Filling<'a> {
    buffer: &'a mut [u8],
    at: usize,
}

impl WireOut for Filling<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.buffer[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
}

/// Appends values to a byte string (by default a vector).
#[derive(Default)]
pub(crate) struct WireWriter<O = Vec<u8>>(pub(crate) O);

impl<O: WireOut> WireWriter<O> {
    pub(crate) fn number(&mut self, n: u64) -> &mut Self {
        self.0.put(&n.to_le_bytes());
        self
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.number(bytes.len() as u64);
        self.0.put(bytes);
        self
    }

    pub(crate) fn optional(&mut self, n: Option<u64>) -> &mut Self {
        match n {
            Some(n) => self.number(1).number(n),
            None => self.number(0),
        }
    }

    /// A line start of a text input (where a part starts reading it).
    pub(crate) fn text_point(&mut self, point: &TextPoint) -> &mut Self {
        self.number(point.offset).number(point.lines);
        match point.block {
            Some(block) => self.number(1).number(block.compressed).number(block.text),
            None => self.number(0),
        }
    }

    pub(crate) fn numbers(&mut self, numbers: &[u64]) -> &mut Self {
        self.number(numbers.len() as u64);
        for &n in numbers {
            self.number(n);
        }
        self
    }
}

/// A value that writes itself as a part's bytes.
pub(crate) trait ToWire: Send + Sync {
    fn to_wire(&self, out: &mut WireWriter<&mut dyn WireOut>);
}

/// A part's result, written as bytes on demand: its size is known first, so that a front
/// end writes a large result once, straight into a buffer of its own (a Python `bytes`),
/// rather than through a vector copied again.
pub struct PartBytes(Box<dyn ToWire>);

impl PartBytes {
    pub(crate) fn new(value: impl ToWire + 'static) -> Self {
        Self(Box::new(value))
    }

    /// The number of bytes [`Self::write_into`] writes.
    pub fn len(&self) -> usize {
        let mut counting = Counting(0);
        self.0.to_wire(&mut WireWriter(&mut counting));
        counting.0
    }

    /// Whether the bytes are empty (never, for a part's result).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the bytes into `buffer`, of [`Self::len`] bytes.
    pub fn write_into(&self, buffer: &mut [u8]) {
        let mut filling = Filling { buffer, at: 0 };
        self.0.to_wire(&mut WireWriter(&mut filling));
        assert_eq!(
            filling.at,
            filling.buffer.len(),
            "a part's bytes: size changed"
        );
    }

    /// The bytes, in a vector.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.len());
        self.0.to_wire(&mut WireWriter(&mut bytes));
        bytes
    }
}

/// libdeflate's level for the bytes a part compresses before they travel to the one
/// machine that reads every part's (findings, tables of segments): its fastest.
const TRAVEL_LEVEL: i32 = 1;

/// `bytes` compressed as BGZF blocks for the journey ([`Unpacker::unpack`] reads them).
pub(crate) fn packed(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() / 2);
    seqfarm_io::bgzf_writer::BgzfCompressor::new(TRAVEL_LEVEL).compress(bytes, &mut out);
    out
}

/// Inflates what [`packed`] wrote, its buffers kept from one part to the next.
#[derive(Default)]
pub(crate) struct Unpacker {
    inflater: seqfarm_io::bgzf::Inflater,
    inflated: seqfarm_io::bgzf::InflateBuffer,
}

impl Unpacker {
    /// The bytes of `packed` bytes; an error names `what` they are.
    pub(crate) fn unpack(&mut self, packed: &[u8], what: &str) -> anyhow::Result<&[u8]> {
        self.inflated.clear();
        self.inflater
            .inflate_blocks(packed, 0, &mut self.inflated)
            .map_err(|e| anyhow::anyhow!("{what}: {e}"))?;
        Ok(self.inflated.as_slice())
    }
}

/// Reads back what [`WireWriter`] wrote; every read fails on bytes cut short.
pub(crate) struct WireReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> WireReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    pub(crate) fn number(&mut self) -> anyhow::Result<u64> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }

    pub(crate) fn bytes(&mut self) -> anyhow::Result<&'a [u8]> {
        let n = self.number()?;
        self.take(usize::try_from(n)?)
    }

    pub(crate) fn optional(&mut self) -> anyhow::Result<Option<u64>> {
        Ok(match self.number()? {
            0 => None,
            _ => Some(self.number()?),
        })
    }

    pub(crate) fn text_point(&mut self) -> anyhow::Result<TextPoint> {
        let (offset, lines) = (self.number()?, self.number()?);
        let block = match self.number()? {
            0 => None,
            _ => Some(BlockStart {
                compressed: self.number()?,
                text: self.number()?,
            }),
        };
        Ok(TextPoint {
            offset,
            lines,
            block,
        })
    }

    pub(crate) fn numbers(&mut self) -> anyhow::Result<Vec<u64>> {
        let n = self.number()?;
        (0..n).map(|_| self.number()).collect()
    }

    /// Whether every byte was read.
    pub(crate) fn is_empty(&self) -> bool {
        self.at == self.bytes.len()
    }

    fn take(&mut self, n: usize) -> anyhow::Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        let Some(end) = end else {
            anyhow::bail!("a part's bytes are cut short (at byte {})", self.at);
        };
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Example;

    impl ToWire for Example {
        fn to_wire(&self, out: &mut WireWriter<&mut dyn WireOut>) {
            out.number(7).bytes(b"rows").numbers(&[1, 2]);
        }
    }

    #[test]
    fn part_bytes_are_sized_before_they_are_written() {
        let part = PartBytes::new(Example);
        let mut expected: WireWriter = WireWriter::default();
        expected.number(7).bytes(b"rows").numbers(&[1, 2]);
        assert_eq!(part.len(), expected.0.len());
        assert_eq!(part.to_vec(), expected.0);
        let mut buffer = vec![0; part.len()];
        part.write_into(&mut buffer);
        assert_eq!(buffer, expected.0);
        let mut input = WireReader::new(&buffer);
        assert_eq!(input.number().unwrap(), 7);
        assert_eq!(input.bytes().unwrap(), b"rows");
        assert_eq!(input.numbers().unwrap(), [1, 2]);
        assert!(input.is_empty());
    }
}
