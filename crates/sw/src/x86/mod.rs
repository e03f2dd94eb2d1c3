//! x86-64 kernel variants, one file each; [`crate::dispatch`] picks one at run time.

pub(crate) mod avx2;
pub(crate) mod avx512;
