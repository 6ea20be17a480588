//! The tray process's entry point (see the library for what it does).
// A release build is a Windows GUI program: started from the Start menu or at log-in, it
// opens no console window (its log is the file `logging` names). Ignored elsewhere.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    std::process::exit(sendledger_tray::run())
}
