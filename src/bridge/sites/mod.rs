//! Each site's reading of a followed turn ([`super::turn::TurnReader`]), over the
//! provider's parsers: the only rooms of the bridge that know a site's traffic.

pub mod chatgpt;
pub mod claude;
