//! The tray app's settings, kept in the profile as `app.json` (0600):
//! `{"stale_uncertain_ms": 300000}`. The queue window writes them; the tray process (its
//! stale-uncertain sweep) reads them and watches the file. Autostart is not stored here:
//! the autostart desktop entry is the truth, so it cannot drift.

use super::{Profile, ProfileError};
use serde::{Deserialize, Serialize};

/// File name inside the profile.
pub const SETTINGS_FILE: &str = "app.json";
/// Default stale-uncertain threshold: 5 minutes, in ms.
pub const DEFAULT_STALE_UNCERTAIN_MS: i64 = 5 * 60 * 1000;
/// Smallest threshold accepted, in ms.
pub const MIN_STALE_UNCERTAIN_MS: i64 = 1_000;

/// Settings stored in the profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Notify about an uncertain send unresolved this long, in ms.
    #[serde(default = "default_stale")]
    pub stale_uncertain_ms: i64,
}

fn default_stale() -> i64 {
    DEFAULT_STALE_UNCERTAIN_MS
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            stale_uncertain_ms: DEFAULT_STALE_UNCERTAIN_MS,
        }
    }
}

/// Why settings were refused.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("the notification threshold must be at least {MIN_STALE_UNCERTAIN_MS} ms (1 second); it was {0} ms")]
    TooShort(i64),
    #[error("cannot save the settings: {0}")]
    Profile(#[from] ProfileError),
}

impl Settings {
    /// Reads `app.json`; a missing or unreadable file gives the defaults (and a log line).
    pub fn load(profile: &Profile) -> Settings {
        let Ok(path) = profile.file(SETTINGS_FILE) else {
            return Settings::default();
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => match serde_json::from_str::<Settings>(&text) {
                Ok(s) if s.stale_uncertain_ms >= MIN_STALE_UNCERTAIN_MS => s,
                _ => {
                    tracing::warn!(
                        path = %path.display(),
                        "not valid settings: using the defaults"
                    );
                    Settings::default()
                }
            },
            Err(_) => Settings::default(),
        }
    }

    /// Checks the settings' bounds. Errors: `TooShort`.
    pub fn check(&self) -> Result<(), SettingsError> {
        if self.stale_uncertain_ms < MIN_STALE_UNCERTAIN_MS {
            return Err(SettingsError::TooShort(self.stale_uncertain_ms));
        }
        Ok(())
    }

    /// Checks and writes the settings (0600, atomically).
    pub fn save(&self, profile: &Profile) -> Result<(), SettingsError> {
        self.check()?;
        let text = serde_json::to_vec_pretty(self).expect("settings serialise");
        profile.write_private(SETTINGS_FILE, &text)?;
        Ok(())
    }
}
