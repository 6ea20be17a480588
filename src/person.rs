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
        .or_else(account_name)
        .unwrap_or_else(|| "person".into())
}

fn account_name() -> Option<String> {
    // SAFETY: getpwuid returns a pointer into static storage or null; the name is copied
    // out before anything else can call it on this thread.
    unsafe {
        let pw = libc::getpwuid(libc::getuid());
        if pw.is_null() || (*pw).pw_name.is_null() {
            return None;
        }
        let name = std::ffi::CStr::from_ptr((*pw).pw_name);
        name.to_str().ok().map(str::to_string)
    }
}
