//! Pairing the extension: a one-time code (8 characters, 5 minutes) exchanged for the
//! extension-scope token. Five wrong codes within a minute lock pairing for a minute.

pub use crate::api::answers::PairingCode;
use crate::clock::Millis;
use rand::Rng;
use sha2::{Digest, Sha256};

/// How long a code is valid, in ms.
pub const CODE_TTL_MS: Millis = 5 * 60 * 1000;
/// Wrong attempts allowed per window before pairing locks.
pub const MAX_FAILURES: usize = 5;
/// The failure window and the lock's length, in ms.
pub const FAILURE_WINDOW_MS: Millis = 60 * 1000;

const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// Why a pairing attempt failed.
#[derive(Debug, PartialEq, Eq)]
pub enum PairingRefusal {
    /// Wrong or expired code.
    WrongCode,
    /// Too many wrong codes: wait until the given time (ms).
    Locked { until: Millis },
}

/// Codes issued and failures seen (in memory: a restart invalidates open codes).
#[derive(Debug, Default)]
pub struct Pairing {
    current: Option<PairingCode>,
    failures: Vec<Millis>,
    locked_until: Option<Millis>,
}

fn canonical(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

impl Pairing {
    /// Issues a new code, replacing any earlier one.
    pub fn issue(&mut self, now: Millis) -> PairingCode {
        let mut rng = rand::rng();
        let raw: String = (0..8)
            .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
            .collect();
        let code = PairingCode {
            code: format!("{}-{}", &raw[..4], &raw[4..]),
            expires_at: now + CODE_TTL_MS,
        };
        self.current = Some(code.clone());
        code
    }

    /// Consumes `attempt` if it is the current code (once).
    pub fn redeem(&mut self, attempt: &str, now: Millis) -> Result<(), PairingRefusal> {
        if let Some(until) = self.locked_until {
            if now < until {
                return Err(PairingRefusal::Locked { until });
            }
            self.locked_until = None;
            self.failures.clear();
        }
        let ok = self
            .current
            .as_ref()
            .is_some_and(|c| c.expires_at > now && canonical(&c.code) == canonical(attempt));
        if ok {
            self.current = None;
            self.failures.clear();
            return Ok(());
        }
        self.failures.retain(|t| now - t < FAILURE_WINDOW_MS);
        self.failures.push(now);
        if self.failures.len() >= MAX_FAILURES {
            self.current = None;
            self.locked_until = Some(now + FAILURE_WINDOW_MS);
        }
        Err(PairingRefusal::WrongCode)
    }
}

/// A new random bearer token: 32 random bytes, lowercase hex.
pub fn new_token() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of a token, lowercase hex (what the profile stores for the extension).
pub fn token_hash(token: &str) -> String {
    format!("{:x}", Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pairing_code_works_once_and_expires() {
        let mut p = Pairing::default();
        let c = p.issue(0);
        assert_eq!(p.redeem(&c.code.to_lowercase(), 1), Ok(()));
        assert_eq!(
            p.redeem(&c.code, 2),
            Err(PairingRefusal::WrongCode),
            "used once"
        );
        let c = p.issue(10);
        assert_eq!(
            p.redeem(&c.code, 10 + CODE_TTL_MS),
            Err(PairingRefusal::WrongCode),
            "expired"
        );
    }

    #[test]
    fn wrong_codes_lock_pairing_for_a_minute() {
        let mut p = Pairing::default();
        let c = p.issue(0);
        for i in 0..MAX_FAILURES as i64 {
            assert_eq!(p.redeem("AAAA-AAAA", i), Err(PairingRefusal::WrongCode));
        }
        assert!(matches!(
            p.redeem(&c.code, 10),
            Err(PairingRefusal::Locked { .. })
        ));
        let c = p.issue(20);
        assert!(matches!(
            p.redeem(&c.code, 30),
            Err(PairingRefusal::Locked { .. })
        ));
        assert_eq!(
            p.redeem(&c.code, 4 + FAILURE_WINDOW_MS + 1),
            Ok(()),
            "the lock lifts"
        );
    }
}
