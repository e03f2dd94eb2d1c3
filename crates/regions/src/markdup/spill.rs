//! Sorting in bounded memory: values are kept in memory up to a count, then sorted and
//! handed to a [`RunStore`] as a run of fixed-size bytes; reading them back merges the
//! runs and what is left in memory in one pass (Picard's sorting collections do the
//! same with its `MAX_RECORDS_IN_RAM`).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::io::{self, BufReader, Read};

/// Where runs go when values outgrow their memory: hidden files beside the output in a
/// real run, memory in tests.
pub trait RunStore: Send {
    /// Keeps one run of bytes; returns its number.
    fn write_run(&mut self, bytes: &[u8]) -> io::Result<usize>;
    /// Opens run `run` for reading from its start (each run is opened once).
    fn open_run(&mut self, run: usize) -> io::Result<Box<dyn Read + Send>>;
}

/// Runs kept in memory.
#[derive(Debug, Default)]
pub struct MemoryRuns {
    runs: Vec<Vec<u8>>,
}

impl RunStore for MemoryRuns {
    fn write_run(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.runs.push(bytes.to_vec());
        Ok(self.runs.len() - 1)
    }

    fn open_run(&mut self, run: usize) -> io::Result<Box<dyn Read + Send>> {
        let bytes = std::mem::take(&mut self.runs[run]);
        Ok(Box::new(io::Cursor::new(bytes)))
    }
}

/// A value written to runs as `BYTES` bytes.
pub trait RunItem: Copy {
    /// Bytes of one value.
    const BYTES: usize;
    /// Appends the value's bytes.
    fn put(&self, out: &mut Vec<u8>);
    /// The value of `bytes` (`BYTES` long).
    fn get(bytes: &[u8]) -> Self;
}

impl RunItem for u64 {
    const BYTES: usize = 8;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(bytes: &[u8]) -> Self {
        u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default())
    }
}

/// Reads little-endian fields from the bytes of a [`RunItem`], in order.
pub(super) struct Fields<'a>(pub(super) &'a [u8]);

impl Fields<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().unwrap_or([0; N])
    }
    pub(super) fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    pub(super) fn i16(&mut self) -> i16 {
        i16::from_le_bytes(self.take())
    }
    pub(super) fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }
    pub(super) fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.take())
    }
    pub(super) fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
}

/// Values sorted by `order` in bounded memory: at most `capacity` in memory, the rest in
/// sorted runs of a [`RunStore`].
pub struct SortedRuns<T> {
    order: fn(&T, &T) -> Ordering,
    capacity: usize,
    values: Vec<T>,
    runs: Vec<usize>,
}

impl<T: RunItem> SortedRuns<T> {
    /// No values yet; at most `capacity` (at least one) are kept in memory.
    pub fn new(order: fn(&T, &T) -> Ordering, capacity: usize) -> Self {
        Self {
            order,
            capacity: capacity.max(1),
            values: Vec::new(),
            runs: Vec::new(),
        }
    }

    /// The most values kept in memory for `budget` bytes: each value held, and its
    /// bytes while a full memory is written as a run.
    pub fn capacity_for(budget: usize) -> usize {
        budget / (std::mem::size_of::<T>().max(T::BYTES) + T::BYTES)
    }

    /// Adds a value; a full memory is sorted and written to `store` as a run.
    pub fn push(&mut self, value: T, store: &mut dyn RunStore) -> io::Result<()> {
        self.values.push(value);
        if self.values.len() >= self.capacity {
            self.values.sort_unstable_by(self.order);
            let mut bytes = Vec::with_capacity(self.values.len() * T::BYTES);
            for value in &self.values {
                value.put(&mut bytes);
            }
            self.runs.push(store.write_run(&bytes)?);
            self.values.clear();
        }
        Ok(())
    }

    /// Runs written so far.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Every value, in order: the runs merged with the values in memory.
    pub fn into_sorted(mut self, store: &mut dyn RunStore) -> io::Result<Merged<T>> {
        self.values.sort_unstable_by(self.order);
        let mut sources = Vec::with_capacity(self.runs.len());
        for &run in &self.runs {
            sources.push(BufReader::with_capacity(1 << 16, store.open_run(run)?));
        }
        let mut merged = Merged {
            order: self.order,
            heads: BinaryHeap::new(),
            sources,
            memory: std::mem::take(&mut self.values).into_iter(),
            buffer: vec![0; T::BYTES],
        };
        for source in 0..=merged.sources.len() {
            merged.refill(source)?;
        }
        Ok(merged)
    }
}

/// The next value of one source of a merge, ordered so that the heap's top is the least.
struct Head<T> {
    value: T,
    source: usize,
    order: fn(&T, &T) -> Ordering,
}

impl<T> PartialEq for Head<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T> Eq for Head<T> {}

impl<T> PartialOrd for Head<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Head<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.order)(&other.value, &self.value).then(other.source.cmp(&self.source))
    }
}

/// The values of [`SortedRuns`] in order.
pub struct Merged<T> {
    order: fn(&T, &T) -> Ordering,
    heads: BinaryHeap<Head<T>>,
    /// The runs; the values left in memory are the source after them.
    sources: Vec<BufReader<Box<dyn Read + Send>>>,
    memory: std::vec::IntoIter<T>,
    buffer: Vec<u8>,
}

impl<T: RunItem> Merged<T> {
    /// Puts the next value of `source` among the heads.
    fn refill(&mut self, source: usize) -> io::Result<()> {
        let value = match self.sources.get_mut(source) {
            None => self.memory.next(),
            Some(reader) => match reader.read_exact(&mut self.buffer) {
                Ok(()) => Some(T::get(&self.buffer)),
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => None,
                Err(e) => return Err(e),
            },
        };
        if let Some(value) = value {
            self.heads.push(Head {
                value,
                source,
                order: self.order,
            });
        }
        Ok(())
    }

    /// The next value, none at the end.
    pub fn next_value(&mut self) -> io::Result<Option<T>> {
        let Some(head) = self.heads.pop() else {
            return Ok(None);
        };
        self.refill(head.source)?;
        Ok(Some(head.value))
    }

    /// The next values that `same` says belong with the first of them, into `set`
    /// (emptied first); false at the end.
    pub fn next_set(&mut self, set: &mut Vec<T>, same: fn(&T, &T) -> bool) -> io::Result<bool> {
        set.clear();
        let Some(first) = self.next_value()? else {
            return Ok(false);
        };
        set.push(first);
        while self
            .heads
            .peek()
            .is_some_and(|head| same(&first, &head.value))
        {
            if let Some(value) = self.next_value()? {
                set.push(value);
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(values: &[u64], capacity: usize) -> (Vec<u64>, usize) {
        let mut store = MemoryRuns::default();
        let mut runs = SortedRuns::new(u64::cmp, capacity);
        for &v in values {
            runs.push(v, &mut store).unwrap();
        }
        let count = runs.runs();
        let mut merged = runs.into_sorted(&mut store).unwrap();
        let mut out = Vec::new();
        while let Some(v) = merged.next_value().unwrap() {
            out.push(v);
        }
        (out, count)
    }

    #[test]
    fn runs_merge_into_one_order() {
        let values: Vec<u64> = (0..1000u64).map(|i| i * 7919 % 1009).collect();
        let mut expected = values.clone();
        expected.sort();
        for capacity in [1, 3, 64, 1000, 5000] {
            let (out, runs) = sorted(&values, capacity);
            assert_eq!(out, expected, "capacity {capacity}");
            assert_eq!(runs, 1000 / capacity, "capacity {capacity}");
        }
    }

    #[test]
    fn sets_gather_equal_neighbours() {
        let mut store = MemoryRuns::default();
        let mut runs = SortedRuns::new(u64::cmp, 2);
        for v in [5u64, 1, 5, 3, 1, 5] {
            runs.push(v, &mut store).unwrap();
        }
        let mut merged = runs.into_sorted(&mut store).unwrap();
        let mut set = Vec::new();
        let mut sets = Vec::new();
        while merged.next_set(&mut set, |a, b| a == b).unwrap() {
            sets.push(set.clone());
        }
        assert_eq!(sets, [vec![1, 1], vec![3], vec![5, 5, 5]]);
    }
}
