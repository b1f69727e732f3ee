//! The `holi` command: see `holi --help` and the crate documentation.

fn main() -> std::process::ExitCode {
    holi::cli::main()
}
