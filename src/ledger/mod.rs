//! The ledger: work in progress.
