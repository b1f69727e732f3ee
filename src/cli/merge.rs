//! `holi merge PARTS…`: the parts of one sharded `holi check` joined into exactly the
//! report that run would have printed without `--shard` ([`super::shard`]), with its
//! exit code; for a run of one file, whose search the shards shared, the report of that
//! search ([`super::check::merge_cut`]).

use super::check::{combine, merge_cut, summary, Sink};
use super::exit::Outcome;
use super::shard::{self, PartFormat};
use super::ui::Ui;
use crate::cli::check::Format;
use crate::html::HtmlReport;
use clap::Args;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The parts written by `holi check … --shard I/N`, one per shard, in any order.
    #[arg(required = true, value_name = "PART")]
    pub parts: Vec<PathBuf>,
    /// Write the HTML page here rather than where the run's `--report` named it (the
    /// run must have asked for one).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

pub fn run(args: MergeArgs, ui: &Ui) -> Outcome {
    let (run, cells) = match shard::gather(&args.parts) {
        Ok(gathered) => gathered,
        Err(e) => {
            eprintln!("error: {e}");
            return Outcome::BadInput;
        }
    };
    let page_path = args.report.clone().or(run.page.clone().map(PathBuf::from));
    if args.report.is_some() && run.page.is_none() {
        eprintln!("error: the run wrote no HTML page (it had no --report): there is none to merge");
        return Outcome::BadInput;
    }
    let format = match run.format {
        PartFormat::Text => Format::Text,
        PartFormat::Json => Format::Json,
        PartFormat::Sarif => Format::Sarif,
    };
    let mut outcome = combine(cells.iter().map(|c| shard::outcome_of(c.outcome)));
    let mut sections: Vec<String> = Vec::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written = (|| {
        if run.cut {
            // Made whole before any of it is written: parts that do not join leave
            // nothing on standard output.
            let mut report = Vec::new();
            let mut sink = Sink::begin(format, false, &mut report)?;
            let (cut, section) = merge_cut(&run, cells.clone(), ui, &mut sink)?;
            sink.finish()?;
            outcome = cut;
            sections.extend(section);
            return out.write_all(&report).and_then(|()| out.flush());
        }
        let mut sink = Sink::begin(format, run.several, &mut out)?;
        for cell in &cells {
            sink.fragment(&cell.output)?;
        }
        sections.extend(cells.iter().filter_map(|c| c.page.clone()));
        if run.several {
            let rows: Vec<(&str, &str)> = (cells.iter())
                .map(|c| (c.word.as_str(), c.name.as_str()))
                .collect();
            sink.text(&summary(&rows, run.quiet))?;
        }
        sink.finish()
    })();
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::Other {
            // A cut run's parts that do not join: said as they are.
            eprintln!("error: {e}");
            return Outcome::BadInput;
        }
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write the report: {e}");
            return Outcome::BadInput;
        }
    }
    if let Some(path) = page_path {
        let page = File::create(&path).and_then(|f| {
            let mut page = HtmlReport::begin(BufWriter::new(f))?;
            for section in &sections {
                page.add_section(section.as_bytes())?;
            }
            page.finish()
        });
        if let Err(e) = page {
            eprintln!(
                "error: cannot write the HTML report {}: {e}",
                path.display()
            );
            return Outcome::BadInput;
        }
    }
    outcome
}
