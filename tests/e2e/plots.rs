//! `--plot FILE.svg` of snp-pileup, align, count and depth, checked as a person would see
//! the picture: each SVG is rendered by headless Chromium (Debian's
//! `chromium-headless-shell`) to PNG, which must show the data (enough coloured pixels,
//! in each series' colour), and laid out in a page that lists every `<text>` element with
//! its size and place, where the axis titles must be, with a size, inside the picture.
//! The same picture comes out at 1 and 2 threads, and an existing picture is replaced
//! as the command's other outputs are.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{data, index_test_genome, peer, seqfarm, succeeded};

const CHROMIUM: &str = "chromium-headless-shell";

/// The picture's width and height, from the `<svg>` element.
fn svg_size(svg: &str) -> (u32, u32) {
    let number = |name: &str| -> u32 {
        let at = svg.find(&format!("{name}=\"")).expect("a size attribute") + name.len() + 2;
        svg[at..].split('"').next().unwrap().parse().unwrap()
    };
    (number("width"), number("height"))
}

/// Chromium's run on `url` with `args`; its standard output.
fn chromium(args: &[&str], url: &Path) -> String {
    let out = succeeded(
        Command::new(CHROMIUM)
            .args(["--no-sandbox", "--disable-gpu", "--hide-scrollbars"])
            .args(args)
            .arg(format!("file://{}", url.display())),
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A text of the picture as Chromium lays it out: its content, size and box.
#[derive(Debug)]
struct LaidText {
    text: String,
    width: f64,
    height: f64,
    left: f64,
    top: f64,
}

/// What Chromium shows of one SVG.
struct Rendering {
    size: (u32, u32),
    /// RGB pixels of the screenshot, row by row.
    pixels: Vec<[u8; 3]>,
    texts: Vec<LaidText>,
}

/// Renders `svg` to PNG and lays out its texts in headless Chromium.
fn render(svg: &Path) -> Rendering {
    let document = std::fs::read_to_string(svg).unwrap();
    let (width, height) = svg_size(&document);
    let png = svg.with_extension("png");
    chromium(
        &[
            &format!("--screenshot={}", png.display()),
            &format!("--window-size={width},{height}"),
        ],
        svg,
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buffer).unwrap();
    let channels = frame.color_type.samples();
    assert_eq!(frame.bit_depth, png::BitDepth::Eight);
    let pixels: Vec<[u8; 3]> = buffer[..frame.buffer_size()]
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    assert_eq!((frame.width, frame.height), (width, height));

    // A page holding the SVG and a script that lists each text's size and box.
    let page = svg.with_extension("html");
    let script = r#"<pre id="texts"></pre><script>
const rows = [];
for (const t of document.querySelectorAll('svg text')) {
  const b = t.getBBox(), r = t.getBoundingClientRect();
  rows.push([t.textContent.trim(), b.width, b.height, r.left, r.top].join('\t'));
}
document.getElementById('texts').textContent = rows.join('\n');
</script>"#;
    std::fs::write(
        &page,
        format!("<!DOCTYPE html><html><body style=\"margin:0\">{document}{script}</body></html>"),
    )
    .unwrap();
    let dom = chromium(&["--dump-dom"], &page);
    let listed = dom
        .split("<pre id=\"texts\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .expect("the page lists the texts");
    let texts = listed
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let number = |i: usize| f[i].parse::<f64>().unwrap();
            LaidText {
                text: f[0].to_string(),
                width: number(1),
                height: number(2),
                left: number(3),
                top: number(4),
            }
        })
        .collect();
    Rendering {
        size: (width, height),
        pixels,
        texts,
    }
}

impl Rendering {
    /// Pixels that are not white.
    fn drawn(&self) -> usize {
        self.pixels
            .iter()
            .filter(|p| p.iter().any(|&c| c < 245))
            .count()
    }

    /// Pixels clearly of the first series' colour (blue) and of the second's (red).
    fn blue_and_red(&self) -> (usize, usize) {
        let hue = |p: &[u8; 3]| p.map(i32::from);
        let blue = self
            .pixels
            .iter()
            .map(hue)
            .filter(|[r, g, b]| b - r > 40 && b - g > 20)
            .count();
        let red = self
            .pixels
            .iter()
            .map(hue)
            .filter(|[r, g, b]| r - g > 60 && r - b > 60)
            .count();
        (blue, red)
    }

    /// Fails unless the picture shows `text` (exactly, or as the start of a text when it
    /// ends with `…`), with a size, inside the picture.
    fn assert_text(&self, text: &str) {
        let found = self.texts.iter().find(|t| match text.strip_suffix('…') {
            Some(start) => t.text.starts_with(start),
            None => t.text == text,
        });
        let Some(t) = found else {
            let all: Vec<&str> = self.texts.iter().map(|t| t.text.as_str()).collect();
            panic!("no text {text:?} among {all:?}");
        };
        let (width, height) = (f64::from(self.size.0), f64::from(self.size.1));
        assert!(t.width > 0.0 && t.height > 0.0, "{t:?} has no size");
        assert!(
            t.left >= 0.0 && t.top >= 0.0 && t.left < width && t.top < height,
            "{t:?} lies outside the {width}x{height} picture"
        );
    }

    /// Fails unless at least `share` of the picture is drawn on.
    fn assert_not_blank(&self, share: f64) {
        let drawn = self.drawn() as f64 / self.pixels.len() as f64;
        assert!(drawn >= share, "only {drawn:.4} of the picture is drawn on");
    }
}

/// Runs `seqfarm ARGS --plot DIR/NAME-tN.svg` at 1 and at 2 threads (`threads` the
/// option's name); returns the picture, having checked both are the same bytes.
fn plot_at_1_and_2_threads(dir: &Path, name: &str, threads: &str, args: &[&str]) -> PathBuf {
    let mut pictures = Vec::new();
    for n in ["1", "2"] {
        let picture = dir.join(format!("{name}-t{n}.svg"));
        let args: Vec<String> = args.iter().map(|a| a.replace("{t}", n)).collect();
        succeeded(
            seqfarm()
                .args(&args)
                .args([threads, n, "--plot"])
                .arg(&picture),
        );
        pictures.push(picture);
    }
    let [one, two] = [&pictures[0], &pictures[1]].map(|p| std::fs::read(p).unwrap());
    assert!(one == two, "{name}: the pictures at 1 and 2 threads differ");
    assert!(one.len() < 4 << 20, "{name}: {} bytes", one.len());
    pictures.swap_remove(0)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn snp_pileup_picture_shows_allele_fractions_and_log_ratio() {
    if !peer(CHROMIUM) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (vcf, normal, tumour) = (
        data("snp-pileup/sites_slice.vcf.gz"),
        data("snp-pileup/normal_slice.bam"),
        data("snp-pileup/tumor_slice.bam"),
    );
    let out = dir.path().join("out-t{t}.csv");
    let svg = plot_at_1_and_2_threads(
        dir.path(),
        "snp",
        "-t",
        &[
            "snp-pileup",
            "--task-bytes",
            "30000",
            path(&vcf),
            path(&out),
            path(&normal),
            path(&tumour),
        ],
    );
    let seen = render(&svg);
    seen.assert_not_blank(0.01);
    let (blue, _) = seen.blue_and_red();
    assert!(blue > 200, "{blue} blue pixels: the sites are not drawn");
    for text in [
        "B-allele fraction (normal)",
        "B-allele fraction (tumour)",
        "log2 tumour/normal",
        "position on 20 (kbp)",
        "1100",
        "snp-pileup: normal normal_slice.bam, tumour tumor_slice.bam…",
        "1.0",
    ] {
        seen.assert_text(text);
    }
}

#[test]
fn align_picture_shows_mapq_and_insert_size_histograms() {
    if !peer(CHROMIUM) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let index = index_test_genome(dir.path());
    let (r1, r2) = (data("pe_sim_R1.fq.gz"), data("pe_sim_R2.fq.gz"));
    let sam = dir.path().join("out-t{t}.sam");
    let svg = plot_at_1_and_2_threads(
        dir.path(),
        "align",
        "-p",
        &[
            "align",
            "-x",
            path(&index),
            "-1",
            path(&r1),
            "-2",
            path(&r2),
            "-S",
            path(&sam),
            "--quiet",
        ],
    );
    let seen = render(&svg);
    seen.assert_not_blank(0.02);
    let (blue, _) = seen.blue_and_red();
    assert!(blue > 2000, "{blue} blue pixels: the bars are not drawn");
    for text in [
        "MAPQ",
        "reads",
        "insert size (bp, TLEN of concordant pairs)",
        "pairs",
        "400",
        "align: pe_sim_R1.fq.gz, pe_sim_R2.fq.gz against ref",
    ] {
        seen.assert_text(text);
    }
}

#[test]
fn count_picture_shows_reads_per_window_and_their_log_ratio() {
    if !peer(CHROMIUM) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (normal, tumour) = (
        data("snp-pileup/normal_slice.bam"),
        data("snp-pileup/tumor_slice.bam"),
    );
    let out = dir.path().join("counts-t{t}.tsv");
    let svg = plot_at_1_and_2_threads(
        dir.path(),
        "count",
        "-t",
        &[
            "count",
            "--window",
            "5000",
            "-o",
            path(&out),
            path(&normal),
            path(&tumour),
        ],
    );
    let seen = render(&svg);
    seen.assert_not_blank(0.01);
    let (blue, red) = seen.blue_and_red();
    assert!(
        blue > 100 && red > 100,
        "{blue} blue and {red} red pixels: a series is missing"
    );
    for text in [
        "reads per window",
        "log2 tumor_slice.bam / normal_slice.bam",
        "position on 20 (Mbp)",
        "normal_slice.bam",
        "tumor_slice.bam",
        "count: reads per 5000-bp window in normal_slice.bam, tumor_slice.bam",
    ] {
        seen.assert_text(text);
    }

    // An existing picture is replaced, as count's table is (bedtools' rule).
    let mut again = seqfarm();
    again
        .args(["count", "--window", "5000", "-o"])
        .arg(dir.path().join("again.tsv"))
        .arg("--plot")
        .arg(&svg)
        .arg(&normal);
    succeeded(&mut again);
    let one_bam = std::fs::read_to_string(&svg).unwrap();
    assert!(one_bam.contains("reads per window") && !one_bam.contains("log2"));
}

#[test]
fn depth_picture_shows_mean_depth_per_window() {
    if !peer(CHROMIUM) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bam = data("bam/sarscov2.bam");
    let prefix = dir.path().join("sarscov2-t{t}");
    let svg = plot_at_1_and_2_threads(
        dir.path(),
        "depth",
        "-t",
        &[
            "depth",
            "--window",
            "200",
            "--task-bytes",
            "100000",
            "-o",
            path(&prefix),
            path(&bam),
        ],
    );
    let seen = render(&svg);
    seen.assert_not_blank(0.005);
    let (blue, _) = seen.blue_and_red();
    assert!(
        blue > 500,
        "{blue} blue pixels: the depth line is not drawn"
    );
    for text in [
        "mean depth",
        "position on NC_045512.2 (kbp)",
        "depth: mean depth per 200-bp window of sarscov2.bam",
    ] {
        seen.assert_text(text);
    }

    // Many contigs side by side (the header's 93, reads on chrM only): named under the
    // axis where they are wide enough.
    let many = dir.path().join("many.svg");
    succeeded(
        seqfarm()
            .args(["depth", "--window", "10000000", "-o"])
            .arg(dir.path().join("many"))
            .arg("--plot")
            .arg(&many)
            .arg(data("bam/na12878_chrM.bam")),
    );
    let seen = render(&many);
    seen.assert_not_blank(0.005);
    for text in ["contig", "chr1", "chr2", "chrX", "mean depth"] {
        seen.assert_text(text);
    }
}

#[test]
fn a_picture_is_not_written_over_an_input_or_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let bam = dir.path().join("x.bam");
    crate::support::copy_bam(&data("bam/sarscov2.bam"), &bam);
    let over_input = seqfarm()
        .args(["depth", "--window", "100", "--force", "-o"])
        .arg(dir.path().join("d"))
        .arg("--plot")
        .arg(&bam)
        .arg(&bam)
        .output()
        .unwrap();
    assert!(!over_input.status.success());
    assert_eq!(
        std::fs::read(&bam).unwrap(),
        std::fs::read(data("bam/sarscov2.bam")).unwrap()
    );
    let to_stdout = seqfarm()
        .args(["depth", "--window", "100", "-o"])
        .arg(dir.path().join("d"))
        .args(["--plot", "-"])
        .arg(&bam)
        .output()
        .unwrap();
    assert!(!to_stdout.status.success());
    assert!(String::from_utf8_lossy(&to_stdout.stderr).contains("--plot"));
}
