//! The bytes a part's results travel as between the machines of a cluster: numbers as 8
//! little-endian bytes, byte strings after their length.

/// Appends values to a byte string.
#[derive(Default)]
pub(crate) struct WireWriter(pub(crate) Vec<u8>);

impl WireWriter {
    pub(crate) fn with_capacity(bytes: usize) -> Self {
        Self(Vec::with_capacity(bytes))
    }

    pub(crate) fn number(&mut self, n: u64) -> &mut Self {
        self.0.extend_from_slice(&n.to_le_bytes());
        self
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.number(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
        self
    }

    pub(crate) fn numbers(&mut self, numbers: &[u64]) -> &mut Self {
        self.number(numbers.len() as u64);
        for &n in numbers {
            self.number(n);
        }
        self
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
