//! Reads of pairs waiting for their mates, by the reference the mate lies on. Those
//! waiting on the reference being walked stay in memory (a fragment's length away, as
//! a rule); those waiting on a later reference go to a run when they outgrow their
//! memory and come back when the walk reaches it. A reference the walk leaves takes its
//! waiting reads with it: their mates never came, and Picard never pairs them either.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufReader, Read};

use super::ends::ReadEnds;
use super::spill::{RunItem, RunStore};

/// Bytes a waiting read costs besides its name (ends, key and table slot).
const WAIT_BYTES: usize = 96;

/// The reads waiting for their mates, by the reference each mate lies on.
pub struct MateWaits {
    /// The reference being walked.
    current: i32,
    /// Reference waited on → read name → the first read's ends.
    by_reference: BTreeMap<i32, HashMap<Box<[u8]>, ReadEnds>>,
    /// Memory taken by reads waiting on later references.
    later_bytes: usize,
    /// Memory they may take before they go to a run.
    budget: usize,
    /// Runs of reads waiting on later references not yet read to their end, each
    /// sorted by reference.
    runs: Vec<WaitRun>,
    /// Runs written.
    written: usize,
}

/// A run of waiting reads being read back as the walk reaches their references.
struct WaitRun {
    reader: BufReader<Box<dyn Read + Send>>,
    /// The next read of the run, not yet taken.
    next: Option<(i32, Box<[u8]>, ReadEnds)>,
}

impl WaitRun {
    /// Reads the next entry: reference, name length, name, ends.
    fn advance(&mut self) -> io::Result<()> {
        let mut head = [0; 6];
        self.next = match self.reader.read_exact(&mut head) {
            Ok(()) => {
                let reference = i32::from_le_bytes([head[0], head[1], head[2], head[3]]);
                let mut name = vec![0; usize::from(u16::from_le_bytes([head[4], head[5]]))];
                self.reader.read_exact(&mut name)?;
                let mut ends = [0; ReadEnds::BYTES];
                self.reader.read_exact(&mut ends)?;
                Some((reference, name.into(), ReadEnds::get(&ends)))
            }
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => None,
            Err(e) => return Err(e),
        };
        Ok(())
    }
}

impl MateWaits {
    /// No read waiting; those waiting on later references may take `budget` bytes.
    pub fn new(budget: usize) -> Self {
        Self {
            current: -1,
            by_reference: BTreeMap::new(),
            later_bytes: 0,
            budget,
            runs: Vec::new(),
            written: 0,
        }
    }

    /// A read of a pair with both reads mapped arrives on `reference`, with its fragment
    /// `ends` (`read2_ref`: its mate's reference): the ends of its mate if the mate came
    /// first, else none (the read waits unless its mate's reference is behind).
    pub fn arrive(
        &mut self,
        reference: i32,
        name: &[u8],
        ends: ReadEnds,
        store: &mut dyn RunStore,
    ) -> io::Result<Option<ReadEnds>> {
        if reference != self.current {
            self.move_to(reference)?;
        }
        let waiting = self.by_reference.get_mut(&reference);
        if let Some(first) = waiting.and_then(|names| names.remove(name)) {
            return Ok(Some(first));
        }
        let waits_on = ends.read2_ref;
        if waits_on < reference {
            return Ok(None);
        }
        let names = self.by_reference.entry(waits_on).or_default();
        names.insert(name.into(), ends);
        if waits_on > reference {
            self.later_bytes += name.len() + WAIT_BYTES;
            if self.later_bytes > self.budget {
                self.spill_later(store)?;
            }
        }
        Ok(None)
    }

    /// Leaves the references before `reference` and brings back the runs' reads waiting
    /// on it.
    fn move_to(&mut self, reference: i32) -> io::Result<()> {
        self.current = reference;
        self.by_reference = self.by_reference.split_off(&reference);
        let names = self.by_reference.entry(reference).or_default();
        let taken: usize = names.keys().map(|name| name.len() + WAIT_BYTES).sum();
        self.later_bytes = self.later_bytes.saturating_sub(taken);
        for run in &mut self.runs {
            while let Some((waits_on, _, _)) = &run.next {
                if *waits_on > reference {
                    break;
                }
                if let Some((waits_on, name, ends)) = run.next.take() {
                    if waits_on == reference {
                        names.insert(name, ends);
                    }
                }
                run.advance()?;
            }
        }
        self.runs.retain(|run| run.next.is_some());
        Ok(())
    }

    /// Writes the reads waiting on later references as one run, in reference order.
    fn spill_later(&mut self, store: &mut dyn RunStore) -> io::Result<()> {
        let later = self.by_reference.split_off(&(self.current + 1));
        let mut bytes = Vec::new();
        for (reference, names) in later {
            for (name, ends) in names {
                bytes.extend_from_slice(&reference.to_le_bytes());
                let len = u16::try_from(name.len()).unwrap_or(u16::MAX);
                bytes.extend_from_slice(&len.to_le_bytes());
                bytes.extend_from_slice(&name[..usize::from(len)]);
                ends.put(&mut bytes);
            }
        }
        let run = store.write_run(&bytes)?;
        let mut run = WaitRun {
            reader: BufReader::with_capacity(1 << 16, store.open_run(run)?),
            next: None,
        };
        run.advance()?;
        self.runs.push(run);
        self.written += 1;
        self.later_bytes = 0;
        Ok(())
    }

    /// Runs written so far.
    pub fn runs(&self) -> usize {
        self.written
    }
}
