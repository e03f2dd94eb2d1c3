//! Commands cut into parts that run anywhere (one machine of a cluster each) and whose
//! results, put together in order, are the command's output byte for byte.

pub mod align;
pub mod count;
pub mod flagstat;
pub mod search;
pub mod snp_pileup;

/// Opens the output file of a command line run in parts whose client writes the parts'
/// bytes itself (`align`'s `-S`/`-o`, `count`'s `-o`), as the command opens it before
/// any work: under the command's rule for an existing file (both replace it, as bowtie2
/// and bedtools do), never one of its inputs nor another of its outputs, written through
/// a temporary file beside it that committing renames.
pub fn open_output(argv: &[String]) -> anyhow::Result<seqfarm_io::output::Output> {
    match argv.first().map(String::as_str) {
        Some("align") => align::align_output(argv),
        Some("count") => count::count_output(argv),
        other => anyhow::bail!("no output written from parts for {other:?} (align or count)"),
    }
}

/// Fails when the command line `argv` asks for a picture (`--plot`): parts write none.
fn refuse_plot(argv: &[String]) -> anyhow::Result<()> {
    if argv
        .iter()
        .any(|a| a == "--plot" || a.starts_with("--plot="))
    {
        option_error!("--plot is not available when running in parts");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn parts_draw_no_picture() {
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert!(
            super::refuse_plot(&argv(&["--window", "10", "--plot", "x.svg", "a.bam"])).is_err()
        );
        assert!(super::refuse_plot(&argv(&["--plot=x.svg"])).is_err());
        assert!(super::refuse_plot(&argv(&["--window", "10", "a.bam"])).is_ok());
    }
}
