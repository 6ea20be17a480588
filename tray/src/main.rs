//! The tray process's entry point (see the library for what it does).

fn main() {
    std::process::exit(sendledger_tray::run())
}
