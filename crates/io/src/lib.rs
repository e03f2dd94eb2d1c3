//! Formats and IO for seqfarm.
//!
//! Everything that touches a file lives here, so the kernels only ever see slices and
//! plain types:
//!
//! * [`alignment_file`]: the one door for alignment inputs (BAM with or without its
//!   index, BAM on standard input, CRAM with its reference, SAM, gzip SAM), each
//!   recognised once by [`sniff`], the one place formats are told apart;
//! * [`input`]: opening an input by path, `-` for standard input, gzip (and BGZF)
//!   recognised by its magic bytes;
//! * [`fasta`]: streaming FASTA records into a reused buffer;
//! * [`vcf`]: the site columns of a VCF, streamed;
//! * [`bed`]: BED regions read the way bedtools reads them;
//! * [`bed_index`]: the CSI index of a BED file seqfarm writes, built as its lines go out;
//! * [`fasta_chunks`]: FASTA cut into chunks of whole records for farm workers to parse;
//! * [`gzip_index`]: access points into gzip files, so that a read file can be read
//!   from its middle (a part of a job spread over several machines);
//! * [`sam`]: SAM text and BAM records from one record type, header, BGZF compression
//!   of whole batches (workers compress, the collector concatenates);
//! * [`reads`]: sequencing reads (FASTQ/FASTA, tab5/tab6, raw, QSEQ, k-mers of FASTA,
//!   reads on the command line), unpaired or paired, cut into chunks of whole reads or
//!   pairs (a farm's emitter) and parsed and checked by the workers;
//! * [`output`]: an output written to a temporary file beside its destination and renamed
//!   into place only when complete, so a failed run never leaves a file that looks whole;
//!   an existing destination is refused unless overwriting is allowed;
//! * [`bam_writer`]: BAM records written as BGZF blocks on a few threads, with their
//!   index built as the blocks are placed (sorted output, CRAM decoded into BAM);
//! * [`bam_sort`]: BAM records sorted by coordinate in bounded memory (sorted runs
//!   spilled to hidden files beside the output and merged), written with their index;
//! * [`bgzf`]: BGZF block boundaries, virtual offsets, and inflate of one block into a
//!   caller's buffer with its CRC32 and size checked;
//! * [`bgzf_writer`]: writing BGZF (compressed outputs that htslib and tabix read), on the
//!   calling thread or, with the same bytes, on a pool of compressing threads;
//! * [`bam`]: BAM files by memory map, their header and index, work plans that cut a BAM
//!   into units for parallel workers, and record views that read fields in place; and
//!   [`bam::RegionMap`], the entry point for one's own analyses: a closure run over every
//!   region or window of indexed BAMs on a farm of workers, results in region order
//!   (`examples/window_mapq.rs`);
//! * [`blast`]: the output formats of `seqfarm search`: BLAST's tabular lines with
//!   chosen columns (`-outfmt 6`), its commented form (`-outfmt 7`) and JSON, from a plain
//!   record of each alignment's figures;
//! * [`Error`]: every error names the file, and where it applies the record or byte offset.
//!
//! The only `unsafe` is in [`bam`], [`cram`] and [`input`] (mapping files and releasing mapped
//! pages), in [`bgzf`]'s ISA-L decoder (calls into the C library) and in [`gzip_index`]
//! (zlib's interface for its inflate stream, and a memory map to walk BGZF blocks).
#![deny(unsafe_code)]

pub mod alignment_file;
#[allow(unsafe_code)]
pub mod bam;
pub mod bam_sort;
pub mod bam_writer;
pub mod bed;
pub mod bed_index;
pub mod bgzf;
pub mod bgzf_writer;
pub mod blast;
pub mod cram;
pub mod fasta;
pub mod fasta_chunks;
pub mod gzip_index;
mod index_counts;
pub mod inflate_thread;
pub mod input;
pub mod output;
pub mod pending_files;
pub mod reads;
pub mod sam;
pub mod sniff;
pub mod vcf;

mod error;
pub use error::{Error, Result};
