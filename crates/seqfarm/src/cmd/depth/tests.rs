//! Tests of `seqfarm depth`'s BED warnings and options.

use std::collections::HashMap;

use super::bed::{bed_warnings, Region};
use super::DepthOptions;
use crate::OptionValueError;

#[test]
fn bed_regions_off_the_bam_are_warned_about() {
    let region = |start, stop| Region {
        start,
        stop,
        name: String::new(),
    };
    let bed = HashMap::from([
        (
            "chrM".to_string(),
            vec![region(0, 100), region(16_000, 17_000)],
        ),
        ("chr1".to_string(), vec![region(0, 10)]),
        ("nochrom".to_string(), vec![region(1, 5), region(6, 9)]),
    ]);
    let names = ["chr1".to_string(), "chrM".to_string()];
    let warnings = bed_warnings(&bed, &names, &[1_000, 16_571]);
    assert_eq!(
        warnings,
        [
            "1 region(s) on chrM run past its end (16571 bp), e.g. chrM:16000-17000; \
             their bases past the end count as depth 0",
            "2 region(s) on nochrom, which the BAM header lacks, are left out",
        ]
    );
    assert_eq!(bed_warnings(&bed, &names, &[1_000, 20_000]).len(), 1);
}

#[test]
fn windows_or_regions_are_checked() {
    let refused = |options: DepthOptions| {
        let error = options.check().unwrap_err();
        assert!(error.downcast_ref::<OptionValueError>().is_some());
        error.to_string()
    };
    assert!(refused(DepthOptions::default()).contains("one of them is required"));
    let both = DepthOptions {
        window: Some(10),
        bed: Some("x.bed".into()),
        ..DepthOptions::default()
    };
    assert!(refused(both).contains("only one of them"));
    let empty = DepthOptions {
        window: Some(0),
        ..DepthOptions::default()
    };
    assert!(refused(empty).contains("must be positive"));
}
