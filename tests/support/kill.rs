//! The one kill helper of the test suites: SIGKILL a real child process and reap it,
//! asserting it died of that signal (so the kernel has released its locks on return).
//! On Windows the same call is `TerminateProcess` (see `os.rs`).

#[path = "os.rs"]
pub mod os;

use std::process::Child;

/// SIGKILLs `child` and reaps it; `what` names it in the assertion.
pub fn sigkill_and_reap(child: &mut Child, what: &str) {
    child.kill().expect("SIGKILL delivered");
    let status = child.wait().expect("the child is reaped");
    assert!(os::was_killed(status), "{what} died of SIGKILL: {status}");
}
