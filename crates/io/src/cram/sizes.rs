//! How much data a CRAM holds where, from its containers alone: plans cut a CRAM's
//! work by these sizes, so a plan is the same whichever containers were decoded, and a
//! plan needs none decoded.

use super::ContainerSpan;

/// Container bytes by reference and alignment start, and the file's size.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerSizes {
    /// Per reference (header index): each container's alignment start and the bytes of
    /// the reference's containers up to and including it, by start.
    by_reference: Vec<Vec<(u64, u64)>>,
    total: u64,
}

impl ContainerSizes {
    /// The sizes of `containers` (a file's data containers, of `references` reference
    /// sequences) in a file of `total` bytes.
    pub fn new(containers: &[ContainerSpan], references: usize, total: u64) -> Self {
        let mut by_reference = vec![Vec::new(); references];
        for span in containers {
            let list = usize::try_from(span.ref_id)
                .ok()
                .and_then(|id| by_reference.get_mut(id));
            if let Some(list) = list {
                list.push((span.span.0, span.size));
            }
        }
        for list in &mut by_reference {
            list.sort_unstable();
            let mut sum = 0;
            for entry in list.iter_mut() {
                sum += entry.1;
                entry.1 = sum;
            }
        }
        Self {
            by_reference,
            total,
        }
    }

    /// Bytes of the containers of reference `ref_id` whose alignments start at 0-based
    /// positions `from..to` (an estimate of the data the range holds).
    pub fn bytes_between(&self, ref_id: usize, from: i64, to: i64) -> u64 {
        let Some(list) = self.by_reference.get(ref_id) else {
            return 0;
        };
        let before = |pos: i64| {
            let pos = pos.max(0) as u64;
            match list.partition_point(|&(start, _)| start < pos) {
                0 => 0,
                i => list[i - 1].1,
            }
        };
        before(to).saturating_sub(before(from))
    }

    /// The file's size.
    pub fn total(&self) -> u64 {
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_holds_the_containers_starting_in_it() {
        let span = |ref_id, start, size| ContainerSpan {
            offset: 0,
            size,
            records: 1,
            ref_id,
            span: (start, start + 100),
        };
        let containers = [
            span(0, 0, 10),
            span(0, 500, 20),
            span(1, 50, 40),
            span(0, 200, 30),
            span(-1, 0, 1000),
            span(-2, 0, 1000),
        ];
        let sizes = ContainerSizes::new(&containers, 2, 9999);
        assert_eq!(sizes.bytes_between(0, 0, 1000), 60);
        assert_eq!(sizes.bytes_between(0, 1, 500), 30);
        assert_eq!(sizes.bytes_between(0, 1, 501), 50);
        assert_eq!(sizes.bytes_between(0, -5, 1), 10);
        assert_eq!(sizes.bytes_between(1, 0, 60), 40);
        assert_eq!(sizes.bytes_between(2, 0, 60), 0);
        assert_eq!(sizes.total(), 9999);
    }
}
