//! Start at log-in: one entry per profile that runs `sendledger-app --hidden
//! [--profile=DIR]` (the tray only), written by the `auto-launch` crate — an XDG autostart
//! desktop entry on Linux (`~/.config/autostart/<name>.desktop`), a value under
//! `HKCU\Software\Microsoft\Windows\CurrentVersion\Run` on Windows.
//!
//! The crate joins the program and its arguments with single spaces and quotes nothing, so
//! a program or profile path with a space in it (`C:\Users\Jo Doe\…`) would be split at
//! log-in. Each part is quoted here first, by the rules of whoever reads the command: the
//! Desktop Entry Specification's `Exec` key ("Arguments may be quoted in whole"), or the
//! Windows command line as `CommandLineToArgvW` and Rust's `std::env::args` split it. The
//! platform seam ([`crate::desktop::quote_arg`]) picks the rule.

use crate::desktop;
use auto_launch::{AutoLaunch, AutoLaunchBuilder};
use std::path::Path;

/// The profile's log-in entry.
pub struct Autostart(AutoLaunch);

impl Autostart {
    /// The entry `name` (`sendledger`, or `sendledger-<16 hex>` for another profile) that
    /// starts `program` with `args`, each quoted for the platform.
    ///
    /// Errors: the crate's, as a sentence (an unsupported OS).
    pub fn new(name: &str, program: &Path, args: &[String]) -> Result<Self, String> {
        let quoted: Vec<String> = args.iter().map(|a| desktop::quote_arg(a)).collect();
        AutoLaunchBuilder::new()
            .set_app_name(name)
            .set_app_path(&desktop::quote_arg(&program.display().to_string()))
            .set_args(&quoted)
            .build()
            .map(Autostart)
            .map_err(|e| format!("starting at log-in is not available here: {e}"))
    }

    /// Whether the entry exists (and, on Windows, Task Manager has not switched it off).
    pub fn is_enabled(&self) -> Result<bool, String> {
        self.0.is_enabled().map_err(|e| e.to_string())
    }

    /// Writes the entry.
    pub fn enable(&self) -> Result<(), String> {
        self.0.enable().map_err(|e| e.to_string())
    }

    /// Removes the entry.
    pub fn disable(&self) -> Result<(), String> {
        self.0.disable().map_err(|e| e.to_string())
    }
}

/// `arg` as one argument of a desktop entry's `Exec` line: unchanged when it has no space,
/// tab, newline or reserved character; otherwise in double quotes, with `"`, `` ` ``, `$`
/// and `\` escaped by a backslash (Desktop Entry Specification 1.5, "The Exec key").
pub fn quote_for_desktop_entry(arg: &str) -> String {
    const RESERVED: &[char] = &[
        ' ', '\t', '\n', '"', '\'', '\\', '>', '<', '~', '|', '&', ';', '$', '*', '?', '#', '(',
        ')', '`',
    ];
    if !arg.is_empty() && !arg.contains(RESERVED) {
        return arg.to_string();
    }
    let mut out = String::with_capacity(arg.len() + 2);
    out.push('"');
    for c in arg.chars() {
        if matches!(c, '"' | '`' | '$' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// `arg` as one argument of a Windows command line: unchanged when it has no space, tab or
/// double quote; otherwise in double quotes, a `"` inside escaped as `\"` and the
/// backslashes before a `"` (or before the closing quote) doubled — the rule
/// `CommandLineToArgvW` reverses ("Parsing C++ command-line arguments", Microsoft Learn).
pub fn quote_for_windows(arg: &str) -> String {
    if !arg.is_empty() && !arg.contains([' ', '\t', '\n', '"']) {
        return arg.to_string();
    }
    let mut out = String::with_capacity(arg.len() + 2);
    out.push('"');
    let mut backslashes = 0usize;
    for c in arg.chars() {
        match c {
            '\\' => backslashes += 1,
            '"' => {
                out.extend(std::iter::repeat_n('\\', backslashes * 2 + 1));
                backslashes = 0;
            }
            _ => {
                out.extend(std::iter::repeat_n('\\', backslashes));
                backslashes = 0;
            }
        }
        if c != '\\' {
            out.push(c);
        }
    }
    out.extend(std::iter::repeat_n('\\', backslashes * 2));
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_with_a_space_stays_one_argument_of_a_desktop_entry() {
        assert_eq!(quote_for_desktop_entry("--hidden"), "--hidden");
        assert_eq!(
            quote_for_desktop_entry("--profile=/home/jo doe/sendledger"),
            "\"--profile=/home/jo doe/sendledger\""
        );
        assert_eq!(
            quote_for_desktop_entry("--profile=/tmp/a\"b$c`d\\e"),
            "\"--profile=/tmp/a\\\"b\\$c\\`d\\\\e\""
        );
        assert_eq!(quote_for_desktop_entry(""), "\"\"");
    }

    #[test]
    fn a_path_with_a_space_stays_one_argument_of_a_windows_command_line() {
        assert_eq!(quote_for_windows("--hidden"), "--hidden");
        assert_eq!(
            quote_for_windows(
                r"C:\Users\Jo Doe\AppData\Local\Programs\sendledger\sendledger-app.exe"
            ),
            r#""C:\Users\Jo Doe\AppData\Local\Programs\sendledger\sendledger-app.exe""#
        );
        // Backslashes end the argument: doubled, so the closing quote is not escaped.
        assert_eq!(
            quote_for_windows(r"--profile=C:\Jo Doe\p\"),
            r#""--profile=C:\Jo Doe\p\\""#
        );
        // A quote inside: escaped, and the backslashes before it doubled.
        assert_eq!(quote_for_windows(r#"a\"b c"#), r#""a\\\"b c""#);
        assert_eq!(quote_for_windows(r"C:\no\spaces"), r"C:\no\spaces");
    }
}
