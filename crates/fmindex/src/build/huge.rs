//! Zeroed arrays in anonymous memory backed by 2 MiB pages where the kernel allows.
//!
//! The suffix sort reads the text and writes its buckets at random; with 4 KiB pages
//! most of those accesses would miss the TLB as well as the cache (measured: the bucket
//! fill ran about 3x slower).

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use bytemuck::Pod;
use memmap2::{Advice, MmapMut, MmapOptions};

/// A zeroed array of `T` in its own anonymous mapping, advised to use huge pages.
pub(crate) struct HugeArray<T> {
    map: Option<MmapMut>,
    len: usize,
    item: PhantomData<T>,
}

impl<T: Pod> HugeArray<T> {
    /// `len` zeroed items.
    pub fn zeroed(len: usize) -> std::io::Result<Self> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .ok_or_else(|| std::io::Error::other("array size overflows"))?;
        let map = if bytes == 0 {
            None
        } else {
            let map = MmapOptions::new().len(bytes).map_anon()?;
            // Only advice: without huge pages the array still works, more slowly.
            let _ = map.advise(Advice::HugePage);
            Some(map)
        };
        Ok(Self {
            map,
            len,
            item: PhantomData,
        })
    }
}

impl<T: Pod> Deref for HugeArray<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.map {
            Some(map) => bytemuck::cast_slice(&map[..]),
            None => &[],
        }
    }
}

impl<T: Pod> DerefMut for HugeArray<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.map {
            Some(map) => bytemuck::cast_slice_mut(&mut map[..]),
            None => &mut [],
        }
    }
}

impl<T> std::fmt::Debug for HugeArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HugeArray({} items)", self.len)
    }
}
