//! Ledger benchmarks (see docs/performance.md). Being written.
fn main() {}
