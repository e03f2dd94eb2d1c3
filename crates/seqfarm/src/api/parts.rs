//! Commands cut into parts that run anywhere (one machine of a cluster each) and whose
//! results, put together in order, are the command's output byte for byte.

pub mod align;
pub mod count;
pub mod depth;
pub mod flagstat;
pub mod search;
pub mod snp_pileup;

/// Fails when a run in parts asks for a picture (`plot`, `--plot`): parts draw none.
fn refuse_plot(plot: Option<&std::path::PathBuf>) -> anyhow::Result<()> {
    if plot.is_some() {
        option_error!("--plot is not available when running in parts");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn parts_draw_no_picture() {
        assert!(super::refuse_plot(Some(&"x.svg".into())).is_err());
        assert!(super::refuse_plot(None).is_ok());
    }
}
