//! Commands cut into parts that run anywhere (one machine of a cluster each) and whose
//! results, put together in order, are the command's output byte for byte.

pub mod align;
pub mod count;
pub mod flagstat;
pub mod search;
pub mod snp_pileup;
