//! Time as an argument: custody logic never reads a clock itself, so tests can move time
//! (expiry bounds, notification thresholds, clock jumps) without sleeping.
//!
//! Two readings (docs/custody.md, "Clocks"): the wall clock, recorded for people (every
//! `at` in the ledger, reset times, thresholds a person set), and a monotonic clock that
//! never jumps, on which the owner measures custody bounds while it runs.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, OnceLock};

/// Milliseconds: since the Unix epoch (UTC) for the wall clock; since an arbitrary origin
/// fixed for the process for the monotonic clock.
pub type Millis = i64;

/// A source of the current time.
pub trait Clock: Send + Sync {
    /// Now on the wall clock, in ms since the Unix epoch. It may jump (NTP, a person, a
    /// resume from suspend).
    fn now_ms(&self) -> Millis;
    /// Now on a clock that never goes back and never jumps, in ms since an origin fixed
    /// for the process. Only differences of two readings mean anything.
    fn mono_ms(&self) -> Millis;
}

/// The operating system's clocks: the wall clock, and `std::time::Instant` (on Linux
/// `CLOCK_MONOTONIC`, on macOS the uptime clock: neither counts time suspended).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> Millis {
        let d = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        d.as_millis() as Millis
    }

    fn mono_ms(&self) -> Millis {
        static ORIGIN: OnceLock<std::time::Instant> = OnceLock::new();
        ORIGIN
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_millis() as Millis
    }
}

/// A clock that only moves when told to; shared between clones. Both readings start at
/// `start_ms`; [`ManualClock::advance`] moves both, [`ManualClock::jump_wall`] only the
/// wall clock (a clock set by NTP or a person).
#[derive(Debug, Default, Clone)]
pub struct ManualClock {
    wall: Arc<AtomicI64>,
    mono: Arc<AtomicI64>,
}

impl ManualClock {
    /// A clock reading `start_ms` on both clocks.
    pub fn new(start_ms: Millis) -> Self {
        Self {
            wall: Arc::new(AtomicI64::new(start_ms)),
            mono: Arc::new(AtomicI64::new(start_ms)),
        }
    }
    /// Time passes: both clocks move forward by `ms`.
    pub fn advance(&self, ms: Millis) {
        self.wall.fetch_add(ms, Ordering::SeqCst);
        self.mono.fetch_add(ms, Ordering::SeqCst);
    }
    /// The wall clock is set forward (`ms` > 0) or back (`ms` < 0); no time passes.
    pub fn jump_wall(&self, ms: Millis) {
        self.wall.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> Millis {
        self.wall.load(Ordering::SeqCst)
    }

    fn mono_ms(&self) -> Millis {
        self.mono.load(Ordering::SeqCst)
    }
}
