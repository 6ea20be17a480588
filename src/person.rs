//! Who is at the keyboard: the default "who" of a person's decision (Stop, Resume, a
//! resolution, a key) when they type no other name.

/// The OS user: `$USER`, else `$LOGNAME`, else the account name of the process's uid,
/// else `"person"`.
pub fn os_user() -> String {
    let from_env = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .ok()
        .filter(|u| !u.trim().is_empty());
    from_env
        .or_else(crate::platform::account_name)
        .unwrap_or_else(|| "person".into())
}

/// This machine's name as another machine's `ssh` names it (the window's Connect panel
/// shows it in the `ssh -L` line), else `"this-desktop"` when it cannot be read.
pub fn host_name() -> String {
    crate::platform::host_name().unwrap_or_else(|| "this-desktop".into())
}
