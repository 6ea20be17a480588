//! The `sendledger` command line (see `sendledger --help` and the README).

fn main() -> std::process::ExitCode {
    sendledger::cli::main()
}
