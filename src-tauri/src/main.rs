//! The tray app's entry point (see the library for what it does).
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    sendledger_app::run()
}
