//! End-to-end tests: the `seqfarm` binary run as a user would, one module per command.

mod support;

mod align;
mod align_bowtie2;
mod align_edge_inputs;
mod align_fixtures;
mod align_multiqc;
mod align_options;
mod align_options_bowtie2;
mod align_paired_input;
mod align_pipelines;
mod align_short_reads;
mod align_sort;
mod bounded_memory;
mod cli;
mod commits;
mod count;
mod count_options;
mod cram;
mod depth;
mod flagstat;
mod idle_threads;
mod index;
mod messages;
mod multiqc;
mod numa;
mod outputs;
mod plots;
mod reruns;
mod search;
mod search_blast;
mod search_gpu;
mod search_options;
mod snp_pileup;
mod stats;
