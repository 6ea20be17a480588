//! The queue window's entry point (see the library for what it does).
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    std::process::exit(sendledger_app::run())
}
