//! When each custody bound started, on the monotonic clock (docs/custody.md, "Clocks").
//!
//! The ledger records wall times for people (`claimed_at`, `dispatched_at`, a receipt's
//! `observed_at`, a remote stop's `requested_at`); the bounds run from the same moments
//! measured on a clock that never jumps. After every committed write the owner looks at
//! what is in flight and gives each new item its start on the monotonic clock:
//! `mono_then − max(0, wall_then − its wall stamp)`. An item the write itself made has the
//! write's own wall stamp, so it starts at the write's monotonic reading exactly, whatever
//! the wall clock did. An item this owner did not make — one from before a restart, or a
//! remote stop committed by `sendledger stop` beside the owner — is aged by the wall clock
//! once, at the moment the owner first sees it, never below zero: a restart never makes a
//! bound longer than the whole bound counted from the restart. From then on only the
//! monotonic clock counts.

use super::expiry::Bounds;
use crate::clock::Millis;
use rusqlite::Connection;
use std::collections::HashMap;

/// Which bound an in-flight item runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// A claimed send: `claim_ms` from its claim.
    Claim,
    /// A dispatched send: `receipt_ms` from its grant.
    Receipt,
    /// An accepted send whose answer is neither seen nor given up on: `answer_ms` from
    /// its receipt.
    Answer,
    /// An open remote stop: `answer_ms` from the Stop.
    RemoteStop,
    /// A live lease: `lease_silence_ms` from its creation or the last time its tab asked
    /// anything ([`Deadlines::hear`]); the item's id is the lease id.
    LeaseSilence,
    /// A completed send with artifacts still wanted: 15 minutes
    /// ([`crate::attachments::artifact::WANTED_MS`]) from its answer.
    ArtifactWanted,
}

impl Kind {
    fn bound(self, b: &Bounds) -> Millis {
        match self {
            Kind::Claim => b.claim_ms,
            Kind::Receipt => b.receipt_ms,
            Kind::Answer | Kind::RemoteStop => b.answer_ms,
            Kind::LeaseSilence => b.lease_silence_ms,
            Kind::ArtifactWanted => crate::attachments::artifact::WANTED_MS,
        }
    }
}

/// Everything in flight: (kind, op id, wall stamp of the moment its bound runs from).
const IN_FLIGHT: &str = "\
    SELECT 0, op_id, claimed_at FROM sends WHERE state = 'claimed' \
    UNION ALL SELECT 1, op_id, dispatched_at FROM sends WHERE state = 'dispatched' \
    UNION ALL SELECT 2, s.op_id, r.observed_at FROM sends s JOIN receipts r ON r.op_id = s.op_id \
      WHERE s.state = 'accepted' AND s.answered_at IS NULL AND s.answer_not_observed_at IS NULL \
    UNION ALL SELECT 3, op_id, requested_at FROM remote_stops WHERE phase IN ('pending', 'dispatched') \
    UNION ALL SELECT 4, lease_id, created_at FROM leases WHERE ended_at IS NULL \
    UNION ALL SELECT 5, op_id, MIN(recorded_at) FROM answer_artifacts WHERE state = 'wanted' GROUP BY op_id";

type Key = (Kind, String, Millis);

/// The monotonic start of every in-flight item's bound (ms on [`crate::clock::Clock::mono_ms`]).
#[derive(Debug, Default)]
pub(crate) struct Deadlines {
    started: HashMap<Key, Millis>,
}

impl Deadlines {
    /// Looks at what is in flight now, given the wall and monotonic readings taken when
    /// the last write began (`wall`, `mono`); keeps the start of what it knew, gives new
    /// items theirs, forgets what left flight.
    pub(crate) fn refresh(
        &mut self,
        conn: &Connection,
        wall: Millis,
        mono: Millis,
    ) -> rusqlite::Result<()> {
        let mut stmt = conn.prepare_cached(IN_FLIGHT)?;
        let rows = stmt.query_map([], |r| {
            let kind = match r.get::<_, i64>(0)? {
                0 => Kind::Claim,
                1 => Kind::Receipt,
                2 => Kind::Answer,
                3 => Kind::RemoteStop,
                4 => Kind::LeaseSilence,
                _ => Kind::ArtifactWanted,
            };
            Ok((kind, r.get::<_, String>(1)?, r.get::<_, Millis>(2)?))
        })?;
        let mut now = HashMap::new();
        for row in rows {
            let key = row?;
            let start = self
                .started
                .get(&key)
                .copied()
                .unwrap_or_else(|| mono - (wall - key.2).max(0));
            now.insert(key, start);
        }
        self.started = now;
        Ok(())
    }

    /// The lease's tab asked something at monotonic time `mono`: its silence bound starts
    /// again from then. A lease not in flight (ended, unknown) is left alone.
    pub(crate) fn hear(&mut self, lease_id: &str, mono: Millis) {
        for ((kind, id, _), start) in self.started.iter_mut() {
            if *kind == Kind::LeaseSilence && id == lease_id {
                *start = (*start).max(mono);
            }
        }
    }

    /// The earliest monotonic time a bound falls due, or `None` when nothing is in flight.
    pub(crate) fn next(&self, b: &Bounds) -> Option<Millis> {
        self.started
            .iter()
            .map(|((kind, _, _), start)| start + kind.bound(b))
            .min()
    }

    /// Whether item `id` of `kind` is in flight and its bound has run out at monotonic time
    /// `mono_now`: what [`Self::due`] would list.
    pub(crate) fn overdue(&self, kind: Kind, id: &str, b: &Bounds, mono_now: Millis) -> bool {
        self.started
            .iter()
            .any(|((k, i, _), start)| *k == kind && i == id && *start + k.bound(b) <= mono_now)
    }

    /// The op ids of `kind` whose bound has run out at monotonic time `mono_now`, oldest first.
    pub(crate) fn due(&self, kind: Kind, b: &Bounds, mono_now: Millis) -> Vec<String> {
        let mut due: Vec<(Millis, &String)> = self
            .started
            .iter()
            .filter(|((k, _, _), start)| *k == kind && **start + k.bound(b) <= mono_now)
            .map(|((_, op, _), start)| (*start, op))
            .collect();
        due.sort();
        due.into_iter().map(|(_, op)| op.clone()).collect()
    }
}
