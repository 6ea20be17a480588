//! The window's launch: how a start of `sendledger-app` becomes the profile's one window,
//! hands itself to the window already running, or says why not.

pub mod desktop;
pub mod handover;
pub mod launcher;
pub mod prepared;
pub mod window;
