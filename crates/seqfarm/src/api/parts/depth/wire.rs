//! The bytes a depth part's results travel as between the machines of a cluster: numbers
//! as 8 little-endian bytes, byte strings after their length.

use seqfarm_regions::depth::{DepthDistribution, DepthStat};

/// Appends values to a byte string.
#[derive(Default)]
pub(super) struct WireWriter(pub(super) Vec<u8>);

impl WireWriter {
    pub(super) fn with_capacity(bytes: usize) -> Self {
        Self(Vec::with_capacity(bytes))
    }

    pub(super) fn number(&mut self, n: u64) -> &mut Self {
        self.0.extend_from_slice(&n.to_le_bytes());
        self
    }

    pub(super) fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.number(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
        self
    }

    pub(super) fn numbers(&mut self, numbers: &[u64]) -> &mut Self {
        self.number(numbers.len() as u64);
        for &n in numbers {
            self.number(n);
        }
        self
    }

    pub(super) fn stat(&mut self, stat: &DepthStat) -> &mut Self {
        self.number(stat.length).number(stat.bases);
        self.number(u64::from(stat.min)).number(u64::from(stat.max))
    }

    pub(super) fn run(&mut self, (ref_id, (start, end, depth)): (usize, Run)) -> &mut Self {
        self.number(ref_id as u64).number(start as u64);
        self.number(end as u64).number(depth as i64 as u64)
    }

    pub(super) fn optional_run(&mut self, run: Option<(usize, Run)>) -> &mut Self {
        match run {
            Some(run) => self.number(1).run(run),
            None => self.number(0),
        }
    }
}

/// A per-base run: start, end, depth.
pub(super) type Run = (i64, i64, i32);

/// Reads back what [`WireWriter`] wrote; every read fails on bytes cut short.
pub(super) struct WireReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> WireReader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    pub(super) fn number(&mut self) -> anyhow::Result<u64> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }

    pub(super) fn bytes(&mut self) -> anyhow::Result<&'a [u8]> {
        let n = self.number()?;
        self.take(usize::try_from(n)?)
    }

    pub(super) fn numbers(&mut self) -> anyhow::Result<Vec<u64>> {
        let n = self.number()?;
        (0..n).map(|_| self.number()).collect()
    }

    pub(super) fn stat(&mut self) -> anyhow::Result<DepthStat> {
        Ok(DepthStat {
            length: self.number()?,
            bases: self.number()?,
            min: u32::try_from(self.number()?)?,
            max: u32::try_from(self.number()?)?,
        })
    }

    pub(super) fn distribution(&mut self) -> anyhow::Result<DepthDistribution> {
        Ok(DepthDistribution(self.numbers()?))
    }

    pub(super) fn run(&mut self) -> anyhow::Result<(usize, Run)> {
        let ref_id = usize::try_from(self.number()?)?;
        let (start, end) = (self.number()? as i64, self.number()? as i64);
        Ok((ref_id, (start, end, self.number()? as i64 as i32)))
    }

    pub(super) fn optional_run(&mut self) -> anyhow::Result<Option<(usize, Run)>> {
        match self.number()? {
            0 => Ok(None),
            _ => self.run().map(Some),
        }
    }

    fn take(&mut self, n: usize) -> anyhow::Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        let Some(end) = end else {
            anyhow::bail!("a depth part's bytes are cut short (at byte {})", self.at);
        };
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }
}
