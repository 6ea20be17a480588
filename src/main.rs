//! The `sendledger` command line (see `sendledger --help` and the README).

fn main() -> std::process::ExitCode {
    // Before any thread: `sendledger serve` is a long-lived owner (docs/performance.md).
    sendledger::platform::few_heap_arenas();
    sendledger::cli::main()
}
