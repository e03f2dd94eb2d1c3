//! What a depth part's results add to the parts' wire format ([`WireWriter`],
//! [`WireReader`]): depth statistics, distributions and per-base runs.

use seqfarm_regions::depth::{DepthDistribution, DepthStat};

use crate::api::parts::wire::{WireOut, WireReader, WireWriter};

/// A per-base run: start, end, depth.
pub(super) type Run = (i64, i64, i32);

impl<O: WireOut> WireWriter<O> {
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

impl WireReader<'_> {
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
}
