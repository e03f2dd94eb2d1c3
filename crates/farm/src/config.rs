//! Farm parameters.

/// How a farm is laid out: worker count, ring depth, pinning and ordering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FarmConfig {
    /// Number of worker threads (at least 1).
    pub workers: usize,
    /// Task objects per worker (at least 1). The task pool holds
    /// `workers × queue_depth` objects, which bounds the farm's memory; a worker holds
    /// all but two of them at once (at least two, the one it works on and the next),
    /// and the two left per worker are filled ahead and let a faster worker run ahead of
    /// a slower one in an ordered farm.
    pub queue_depth: usize,
    /// Pin worker `i` to core `i mod cores`.
    pub pin: bool,
    /// Pin workers node by node instead ([`crate::numa::Placement`]): worker `i` to the
    /// core of its slot, with its node in [`crate::WorkerInfo::node`]. Overrides `pin`.
    pub placement: Option<crate::numa::Placement>,
    /// Deliver tasks to the collector in the order the emitter filled them.
    pub ordered: bool,
    /// Time the master and the workers ([`crate::FarmStats`]); without it no clock is
    /// read per task, and the report holds the wall time and task counts only.
    pub timed: bool,
}

impl Default for FarmConfig {
    /// All available cores, 4 tasks per worker, no pinning, ordered.
    fn default() -> Self {
        Self::new(crate::available_cores())
    }
}

impl FarmConfig {
    /// An ordered, unpinned farm of `workers` workers (0 counts as 1) with 4 tasks each.
    pub fn new(workers: usize) -> Self {
        Self {
            workers: workers.max(1),
            queue_depth: 4,
            pin: false,
            placement: None,
            ordered: true,
            timed: false,
        }
    }

    /// Sets the number of task objects per worker (0 counts as 1).
    pub fn queue_depth(mut self, depth: usize) -> Self {
        self.queue_depth = depth.max(1);
        self
    }

    /// Sets whether workers are pinned to cores.
    pub fn pin(mut self, pin: bool) -> Self {
        self.pin = pin;
        self
    }

    /// Sets where each worker runs (NUMA placement; `None`: by `pin`).
    pub fn placement(mut self, placement: Option<crate::numa::Placement>) -> Self {
        self.placement = placement;
        self
    }

    /// Sets whether results are delivered in input order.
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// Sets whether the master and the workers are timed (for `--stats`).
    pub fn timed(mut self, timed: bool) -> Self {
        self.timed = timed;
        self
    }

    /// Number of task objects the farm allocates: `workers × queue_depth`.
    pub fn pool_size(&self) -> usize {
        self.workers.max(1) * self.queue_depth.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_values_are_clamped() {
        let c = FarmConfig::new(0).queue_depth(0);
        assert_eq!((c.workers, c.queue_depth, c.pool_size()), (1, 1, 1));
    }

    #[test]
    fn default_uses_all_cores() {
        assert_eq!(FarmConfig::default().workers, crate::available_cores());
    }
}
