//! Tests of `seqfarm depth`'s BED warnings.

use std::collections::HashMap;

use super::bed::{bed_warnings, Region};

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
