//! The `holi` command: see `holi --help` and the crate documentation.

/// The search allocates and frees small values (terms, configurations, keys) by the
/// million, on several threads: mimalloc made the heavier cells of HOLiK's grid about
/// 7% faster than the system allocator, at the same peak memory
/// (`benchmark/results/2026-11-26-allocator/`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    holi::cli::main()
}
