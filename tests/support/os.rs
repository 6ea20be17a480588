//! The test suites' own platform seam (the core's is `src/platform/`): how a test kills,
//! signals and limits a child process, and makes a folder private, on each OS. Nothing
//! else under `tests/support/` names an OS.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::Path;
use std::process::{Command, ExitStatus};

/// Whether `status` is that of a process ended by [`std::process::Child::kill`]: SIGKILL
/// on Unix; on Windows `TerminateProcess` with exit code 1 (std's), the process given no
/// chance to run any code either.
pub fn was_killed(status: ExitStatus) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal() == Some(libc::SIGKILL)
    }
    #[cfg(windows)]
    {
        status.code() == Some(1)
    }
}

/// Makes `dir` private as the product does (0700 on Unix; the inherited ACL on Windows).
pub fn make_private_dir(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).expect("chmod 700");
    }
    #[cfg(windows)]
    let _ = dir;
}

/// SIGTERM (graceful shutdown) on Unix; on Windows only the number, which [`signal`]
/// refuses.
pub const SIGTERM: i32 = 15;

/// Sends `signal` to process `pid` (Unix `kill(2)`). Windows has no signal a test can
/// send to another console process: the test fails saying so (such tests are not in
/// scripts/test-windows.sh's list).
pub fn signal(pid: u32, signal: i32) {
    #[cfg(unix)]
    {
        // SAFETY: kill(2) on our own child's pid; no memory is touched.
        let rc = unsafe { libc::kill(pid as libc::pid_t, signal) };
        assert_eq!(rc, 0, "signal {signal} delivered");
    }
    #[cfg(windows)]
    panic!(
        "signal {signal} to pid {pid}: Windows has no signal a test can send to a console process"
    )
}

/// Sets the child's open-file limit to `(soft, hard)` before it runs (Unix `setrlimit`
/// in the child, as a shell's `ulimit -n`); Windows has no such limit: the test fails
/// saying so.
pub fn limit_open_files(command: &mut Command, soft: u64, hard: u64) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let lim = libc::rlimit {
            rlim_cur: soft as libc::rlim_t,
            rlim_max: hard as libc::rlim_t,
        };
        // SAFETY: setrlimit is async-signal-safe; it only reads `lim`, a copy.
        unsafe {
            command.pre_exec(move || {
                if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    }
    #[cfg(windows)]
    panic!(
        "an open-file limit of ({soft}, {hard}) for {:?}: Windows has none",
        command.get_program()
    )
}
