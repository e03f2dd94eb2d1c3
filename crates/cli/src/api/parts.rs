//! Commands cut into parts that run anywhere (one machine of a cluster each) and whose
//! results, put together in order, are the command's output byte for byte.

pub mod align;
pub mod count;
pub mod flagstat;
pub mod search;
pub mod snp_pileup;

/// Fails when the command line `argv` asks for a picture (`--plot`): parts write none.
fn refuse_plot(argv: &[String]) -> anyhow::Result<()> {
    if argv
        .iter()
        .any(|a| a == "--plot" || a.starts_with("--plot="))
    {
        anyhow::bail!("--plot is not available when running in parts");
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
