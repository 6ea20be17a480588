//! Model-based property test of the send ledger (issue 2): random sequences of
//! operations and restarts run against the real ledger and a small reference model.
//! After every step: no send dispatched twice, no receipt on two sends, every transition
//! event a legal edge, every state change exactly one transition event, never two sends in
//! flight in one conversation or one tab and never more than `max_in_flight` (issue 27,
//! a random cap of 1 to 3 per run), the model's bins equal the ledger's, and the limit
//! gate (a page's usage limit, issue 12) holds claims back exactly while the model's does.
//!
//! Places: tab 0 shows a new chat, tabs 1 and 2 both show conversation `conv-a`, tab 3
//! shows `new-0` — the conversation a new chat's receipt may name, so a send naming it
//! must wait while that new chat is in flight. Sends name no conversation (a new chat),
//! `conv-a` or `new-0`.

mod support;

use proptest::prelude::*;
use sendledger::clock::Millis;
use sendledger::ledger::LedgerRead;
use sendledger::ledger::{Bounds, Decision, Ledger, QueueRequest, Receipt, Resolution, SendState};
use std::collections::BTreeMap;
use support::*;

#[derive(Debug, Clone)]
enum Op {
    Queue { op: u8, variant: u8, conv: u8 },
    Lease { tab: u8 },
    Release { lease: u8 },
    Claim { lease: u8 },
    Dispatch { op: u8, lease: u8 },
    Fail { op: u8 },
    Accept { op: u8, receipt: u8 },
    Complete { op: u8 },
    PageError { op: u8, limit: u8 },
    Refused { op: u8, limit: u8 },
    Resolve { op: u8, decision: u8 },
    Stop,
    Resume,
    Expire { advance_ms: Millis },
    Restart,
}

/// Which send an op aims at (see `Model::target`): mostly the one in flight or the
/// newest uncertain one, so random walks reach the deep states.
fn target() -> impl Strategy<Value = u8> {
    prop_oneof![4 => Just(0u8), 2 => Just(1u8), 2 => 2..8u8]
}

/// Which lease an op uses: mostly the newest.
fn lease() -> impl Strategy<Value = u8> {
    prop_oneof![3 => Just(0u8), 1 => 0..3u8]
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..5u8, 0..4u8, 0..3u8).prop_map(|(op, v, conv)| Op::Queue { op, variant: u8::from(v == 0), conv }),
        3 => (0..4u8).prop_map(|tab| Op::Lease { tab }),
        1 => lease().prop_map(|lease| Op::Release { lease }),
        6 => lease().prop_map(|lease| Op::Claim { lease }),
        6 => (target(), lease()).prop_map(|(op, lease)| Op::Dispatch { op, lease }),
        2 => target().prop_map(|op| Op::Fail { op }),
        4 => (target(), 0..4u8).prop_map(|(op, receipt)| Op::Accept { op, receipt }),
        3 => target().prop_map(|op| Op::Complete { op }),
        2 => (target(), 0..3u8).prop_map(|(op, limit)| Op::PageError { op, limit }),
        2 => (target(), 0..3u8).prop_map(|(op, limit)| Op::Refused { op, limit }),
        2 => (target(), 0..3u8).prop_map(|(op, decision)| Op::Resolve { op, decision }),
        1 => Just(Op::Stop),
        2 => Just(Op::Resume),
        2 => prop::sample::select(vec![1_000, 30_000, 60_000, 61_000, 600_000, 700_000])
            .prop_map(|advance_ms| Op::Expire { advance_ms }),
        1 => Just(Op::Restart),
    ]
}

fn op_id(i: u8) -> String {
    format!("op-{i}")
}

/// The conversation a send names, by the op's choice.
fn named(conv: u8) -> Option<String> {
    [None, Some("conv-a"), Some("new-0")][conv as usize % 3].map(str::to_string)
}

/// The conversation tab `tab` shows.
fn shown(tab: u8) -> Option<String> {
    [None, Some("conv-a"), Some("conv-a"), Some("new-0")][tab as usize % 4].map(str::to_string)
}

/// Receipt `r` in conversation `conv`: the page names the send's own conversation, or for
/// a new chat a fresh one (`new-0`, `new-1`).
fn model_receipt(conv: &str, r: u8) -> Receipt {
    Receipt {
        conversation_id: conv.into(),
        user_message_id: format!("user-{r}"),
        turn_id: format!("turn-{r}"),
    }
}

#[derive(Debug, Clone)]
struct MSend {
    state: SendState,
    text: String,
    /// The conversation it names.
    conv: Option<String>,
    lease: Option<String>,
    claimed_at: Option<Millis>,
    dispatched_at: Option<Millis>,
    /// The receipt: its conversation and number.
    receipt: Option<(String, u8)>,
    observed_at: Option<Millis>,
    answered: bool,
    not_observed: bool,
    /// Every state it has been in, oldest first: the transition events must match it.
    history: Vec<SendState>,
}

impl MSend {
    fn go(&mut self, to: SendState) {
        assert!(
            design_allows(self.state, to),
            "the model itself only makes legal edges"
        );
        self.state = to;
        self.history.push(to);
    }
    fn in_flight(&self) -> bool {
        matches!(self.state, SendState::Claimed | SendState::Dispatched)
            || (self.state == SendState::Accepted && !self.answered && !self.not_observed)
    }
}

#[derive(Debug, Clone)]
struct MLease {
    id: String,
    tab: u8,
    conv: Option<String>,
    ended: bool,
    /// A new-chat lease's first accepted send's conversation: where its tab is going.
    new_chat: Option<String>,
}

#[derive(Debug, Default)]
struct Model {
    sends: BTreeMap<String, MSend>,
    order: Vec<String>,
    gate_closed: bool,
    /// The limit gate: `Some(until)` while closed (`until` `None`: until a resume).
    limit: Option<Option<Millis>>,
    leases: Vec<MLease>,
    now: Millis,
    /// `max_in_flight`.
    cap: usize,
}

impl Model {
    fn queued(&mut self, id: String, text: String, conv: Option<String>) {
        self.order.push(id.clone());
        self.sends.insert(
            id,
            MSend {
                state: SendState::Queued,
                text,
                conv,
                lease: None,
                claimed_at: None,
                dispatched_at: None,
                receipt: None,
                observed_at: None,
                answered: false,
                not_observed: false,
                history: vec![SendState::Queued],
            },
        );
    }
    fn lease(&self, id: &str) -> Option<&MLease> {
        self.leases.iter().find(|l| l.id == id)
    }
    /// Where an in-flight send is: its tab, and every conversation it is known in — the
    /// one it names, its receipt's, and for a send naming none the one its lease's tab
    /// showed (a tab taking a send for another conversation goes there first).
    fn place(&self, s: &MSend) -> (Option<u8>, Vec<String>) {
        let lease = s.lease.as_deref().and_then(|l| self.lease(l));
        let mut convs: Vec<String> = [
            s.conv.clone(),
            s.receipt.as_ref().map(|(c, _)| c.clone()),
            lease
                .filter(|_| s.conv.is_none())
                .and_then(|l| l.conv.clone()),
        ]
        .into_iter()
        .flatten()
        .collect();
        convs.sort();
        convs.dedup();
        (lease.map(|l| l.tab), convs)
    }
    /// The in-flight sends other than `except`, with their places.
    fn places(&self, except: Option<&str>) -> Vec<(Option<u8>, Vec<String>)> {
        self.sends
            .iter()
            .filter(|(id, s)| s.in_flight() && Some(id.as_str()) != except)
            .map(|(_, s)| self.place(s))
            .collect()
    }
    fn conv_busy(&self, conv: &str, except: Option<&str>) -> bool {
        self.places(except)
            .iter()
            .any(|(_, c)| c.iter().any(|c| c == conv))
    }
    /// What a claim under `lease_id` takes: `None` when nothing may go now.
    fn claimable(&self, lease_id: &str) -> Option<String> {
        let lease = self.lease(lease_id)?;
        let places = self.places(None);
        if self.limit_holds()
            || places.len() >= self.cap
            || places.iter().any(|(t, _)| *t == Some(lease.tab))
        {
            return None;
        }
        self.order
            .iter()
            .find(|id| {
                let s = &self.sends[*id];
                // A send for a conversation no live tab shows is taken by any tab, which
                // goes there first (in_flight::next_for).
                let shown = |c: &String| {
                    self.leases
                        .iter()
                        .any(|l| !l.ended && l.conv.as_ref() == Some(c))
                };
                // A new-chat lease whose send got its conversation claims only what the
                // tab's next lease takes over there.
                let here = lease.conv.clone().or_else(|| lease.new_chat.clone());
                let fits = s.conv.is_none()
                    || s.conv == here
                    || (lease.new_chat.is_none() && s.conv.as_ref().is_some_and(|c| !shown(c)));
                let conv = s.conv.clone().or_else(|| here.clone());
                s.state == SendState::Queued
                    && fits
                    && conv.is_none_or(|c| !self.conv_busy(&c, None))
            })
            .cloned()
    }
    fn limit_holds(&self) -> bool {
        self.limit
            .is_some_and(|until| until.is_none_or(|t| t > self.now))
    }
    fn lease_usable(&self, id: &str) -> bool {
        !self.gate_closed && self.leases.iter().any(|l| l.id == id && !l.ended)
    }
    fn receipt_owner(&self, conv: &str, r: u8) -> Option<&String> {
        self.sends
            .iter()
            .find(|(_, s)| {
                s.receipt
                    .as_ref()
                    .is_some_and(|(c, n)| c == conv && *n == r)
            })
            .map(|(k, _)| k)
    }
    /// The send an op aims at: 0 the one in flight (else the newest), 1 the newest
    /// uncertain one, 7 an id the ledger never saw, otherwise one by age. Aiming at live
    /// sends keeps the random walk where the custody rules are.
    fn target(&self, op: u8) -> Option<String> {
        let newest = || self.order.last().cloned();
        match op {
            0 => self
                .order
                .iter()
                .find(|id| self.sends[*id].in_flight())
                .cloned()
                .or_else(newest),
            1 => self
                .order
                .iter()
                .rev()
                .find(|id| self.sends[*id].state == SendState::Uncertain)
                .cloned()
                .or_else(newest),
            7 => Some("op-never-queued".into()),
            k => {
                (!self.order.is_empty()).then(|| self.order[k as usize % self.order.len()].clone())
            }
        }
    }

    /// 0 the newest lease, otherwise an older one (possibly ended).
    /// A lease ends: what it had claimed is rejected (no grant can be asked under it).
    fn end_lease(&mut self, id: &str) {
        for l in self.leases.iter_mut().filter(|l| l.id == id) {
            l.ended = true;
        }
        for s in self.sends.values_mut() {
            if s.state == SendState::Claimed && s.lease.as_deref() == Some(id) {
                s.go(SendState::Rejected);
            }
        }
    }
    fn lease_id(&self, i: u8) -> Option<String> {
        let n = self.leases.len();
        (n > 0).then(|| self.leases[n - 1 - i as usize % n].id.clone())
    }
}

struct Run {
    fx: Fixture,
    ledger: Option<Ledger>,
    model: Model,
    dispatched_at_seen: BTreeMap<String, Millis>,
}

impl Run {
    fn new(cap: u32) -> Self {
        let fx = Fixture::new();
        let mut ledger = fx.open();
        ledger.set_max_in_flight(cap).unwrap();
        let now = fx.clock_now();
        Self {
            fx,
            ledger: Some(ledger),
            model: Model {
                now,
                cap: cap as usize,
                ..Model::default()
            },
            dispatched_at_seen: BTreeMap::new(),
        }
    }

    /// The page's error for an accepted send (`refused: None`), or the server's refusal
    /// (`Some(status)`) of a dispatched send's request: → page_error, the gate per `limit`.
    fn page_says_no(&mut self, op: u8, limit: u8, refused: Option<u16>) {
        let m = &mut self.model;
        let Some(id) = m.target(op) else { return };
        let until = [None, Some(Some(m.now + 60_000)), Some(None)][limit as usize];
        let error = sendledger::ledger::PageError {
            message: "the page said no".into(),
            limit: until.map(|until_ms| sendledger::ledger::LimitHold { until_ms }),
        };
        let ledger = self.ledger.as_mut().unwrap();
        let (got, from) = match refused {
            None => (ledger.page_error(&id, &error, "model"), SendState::Accepted),
            Some(status) => (
                ledger.refused(&id, status, &error, "model"),
                SendState::Dispatched,
            ),
        };
        let state = m.sends.get(&id).map(|s| s.state);
        assert_eq!(
            got.is_ok(),
            state == Some(from) || state == Some(SendState::PageError),
            "{op} {refused:?}: {got:?}"
        );
        if state == Some(from) {
            m.sends.get_mut(&id).unwrap().go(SendState::PageError);
            // The stronger hold wins while the gate holds: until a person > a later time.
            let stronger = match (until, m.limit) {
                (None, _) => false,
                (Some(_), _) if !m.limit_holds() => true,
                (Some(_), Some(None)) => false,
                (Some(new), Some(Some(held))) => new.is_none_or(|n| n > held),
                (Some(_), None) => true,
            };
            if stronger {
                m.limit = until;
            }
        }
    }

    /// Applies `op` to both; panics (with the step) when they disagree.
    fn step(&mut self, op: &Op) {
        let m = &mut self.model;
        match *op {
            Op::Queue { op, variant, conv } => {
                let id = op_id(op); // queue names its own ids
                let text = format!("text {op} v{variant}");
                let conv = named(conv);
                let got = self.ledger.as_mut().unwrap().queue(
                    &QueueRequest {
                        op_id: Some(id.clone()),
                        text: text.clone(),
                        conversation_id: conv.clone(),
                        ..Default::default()
                    },
                    "model",
                );
                let expect = match m.sends.get(&id) {
                    Some(s) if s.text == text && s.conv == conv => Some(false),
                    Some(_) => None,
                    None if m.gate_closed => None,
                    None => Some(true),
                };
                assert_eq!(
                    got.as_ref().ok().map(|(_, created)| *created),
                    expect,
                    "{op:?}: {got:?}"
                );
                if expect == Some(true) {
                    m.queued(id, text, conv);
                }
            }
            Op::Lease { tab } => {
                let got = self
                    .ledger
                    .as_mut()
                    .unwrap()
                    .lease(&sendledger::ledger::TabBinding {
                        conversation_id: shown(tab),
                        ..support::tab(&format!("tab-{tab}"))
                    });
                assert_eq!(got.is_ok(), !m.gate_closed, "{op:?}: {got:?}");
                if let Ok(lease) = got {
                    let old: Vec<String> = m
                        .leases
                        .iter()
                        .filter(|l| l.tab == tab && !l.ended)
                        .map(|l| l.id.clone())
                        .collect();
                    // Leasing the tab again ends its old lease but spares the claims that
                    // fit the new binding (a tab shows the same place each time here):
                    // they move to the new lease (nothing was clicked) — unless another
                    // send is in flight in the conversation they would take on there.
                    for l in m.leases.iter_mut().filter(|l| old.contains(&l.id)) {
                        l.ended = true;
                    }
                    m.leases.push(MLease {
                        id: lease.lease_id.clone(),
                        tab,
                        conv: shown(tab),
                        ended: false,
                        new_chat: None,
                    });
                    let tab_leases: Vec<String> = m
                        .leases
                        .iter()
                        .filter(|l| l.tab == tab && l.id != lease.lease_id)
                        .map(|l| l.id.clone())
                        .collect();
                    let now = m.now;
                    let moving: Vec<String> = m
                        .order
                        .iter()
                        .filter(|id| {
                            let s = &m.sends[*id];
                            s.state == SendState::Claimed
                                && s.lease.as_ref().is_some_and(|l| tab_leases.contains(l))
                        })
                        .cloned()
                        .collect();
                    // A claim naming a conversation the tab does not show is rejected with
                    // the old lease (it was taken to go there; the tab leased again elsewhere).
                    let (moving, stranded): (Vec<String>, Vec<String>) =
                        moving.into_iter().partition(|id| {
                            let named = &m.sends[id].conv;
                            named.is_none() || *named == shown(tab)
                        });
                    for id in stranded {
                        m.sends.get_mut(&id).unwrap().go(SendState::Rejected);
                    }
                    for id in moving {
                        let conv = m.sends[&id].conv.clone().or_else(|| shown(tab));
                        let busy = conv.is_some_and(|c| m.conv_busy(&c, Some(&id)));
                        let s = m.sends.get_mut(&id).unwrap();
                        if busy {
                            s.go(SendState::Rejected);
                        } else {
                            s.lease = Some(lease.lease_id.clone());
                            s.claimed_at = Some(now);
                        }
                    }
                }
            }
            Op::Release { lease } => {
                let Some(lease_id) = m.lease_id(lease) else {
                    return;
                };
                let got = self
                    .ledger
                    .as_mut()
                    .unwrap()
                    .end_lease(&lease_id, "the tab closed");
                assert!(got.is_ok(), "{op:?}: {got:?}");
                m.end_lease(&lease_id);
            }
            Op::Claim { lease } => {
                let Some(lease_id) = m.lease_id(lease) else {
                    return;
                };
                let got = self.ledger.as_mut().unwrap().claim_next(&lease_id);
                let expect = if !m.lease_usable(&lease_id) {
                    None
                } else {
                    Some(m.claimable(&lease_id))
                };
                assert_eq!(
                    got.as_ref()
                        .ok()
                        .map(|s| s.as_ref().map(|s| s.op_id.clone())),
                    expect,
                    "{op:?}: {got:?}"
                );
                if let Some(Some(id)) = expect {
                    let now = m.now;
                    let s = m.sends.get_mut(&id).unwrap();
                    s.go(SendState::Claimed);
                    s.lease = Some(lease_id);
                    s.claimed_at = Some(now);
                }
            }
            Op::Dispatch { op, lease } => {
                let Some(lease_id) = m.lease_id(lease) else {
                    return;
                };
                let Some(id) = m.target(op) else { return };
                // The tab confirms what it shows for a send naming a conversation; for a
                // new chat it confirms nothing (an extension that predates confirmations,
                // typing where it stands: why a claimed new chat counts as in the
                // conversation its tab shows).
                let confirmed = m.sends.get(&id).and_then(|s| s.conv.as_ref()).map(|_| {
                    sendledger::destination::Confirmation {
                        conversation_id: m.lease(&lease_id).and_then(|l| l.conv.clone()),
                        ..Default::default()
                    }
                });
                let got = self
                    .ledger
                    .as_mut()
                    .unwrap()
                    .dispatch_confirmed(&id, &lease_id, confirmed.as_ref())
                    .map(|g| matches!(g, sendledger::ledger::Grant::Granted(_)));
                let asked = m.sends.get(&id).is_some_and(|s| {
                    s.state == SendState::Claimed && s.lease.as_deref() == Some(lease_id.as_str())
                }) && m.lease_usable(&lease_id);
                // Refused, the send rejected, nothing clicked: a limit that closed after the
                // claim, or a tab not showing the conversation the send names.
                let shows = m.lease(&lease_id).and_then(|l| l.conv.clone());
                let refused = asked
                    && (m.limit_holds()
                        || m.sends[&id]
                            .conv
                            .as_ref()
                            .is_some_and(|c| Some(c) != shows.as_ref()));
                let ok = asked && !refused;
                assert_eq!(got.as_ref().is_ok_and(|g| *g), ok, "{op:?}: {got:?}");
                if refused {
                    m.sends.get_mut(&id).unwrap().go(SendState::Rejected);
                }
                if ok {
                    let now = m.now;
                    let s = m.sends.get_mut(&id).unwrap();
                    s.go(SendState::Dispatched);
                    s.dispatched_at = Some(now);
                }
            }
            Op::Fail { op } => {
                let Some(id) = m.target(op) else { return };
                let got = self
                    .ledger
                    .as_mut()
                    .unwrap()
                    .fail(&id, "witnessed", "model");
                let to = match m.sends.get(&id).map(|s| s.state) {
                    Some(SendState::Claimed) => Some(SendState::Rejected),
                    Some(SendState::Dispatched) => Some(SendState::Uncertain),
                    _ => None,
                };
                assert_eq!(got.is_ok(), to.is_some(), "{op:?}: {got:?}");
                if let Some(to) = to {
                    m.sends.get_mut(&id).unwrap().go(to);
                }
            }
            Op::Accept { op, receipt } => {
                let Some(id) = m.target(op) else { return };
                // The page names the send's own conversation; for a new chat a fresh one,
                // never one another send is in flight in (that would be another chat).
                let conv = m
                    .sends
                    .get(&id)
                    .and_then(|s| s.conv.clone())
                    .unwrap_or_else(|| format!("new-{}", receipt % 2));
                let named = m.sends.get(&id).is_some_and(|s| s.conv.is_some());
                if !named && m.conv_busy(&conv, Some(&id)) {
                    return;
                }
                let got = self.ledger.as_mut().unwrap().accept(
                    &id,
                    &model_receipt(&conv, receipt),
                    "model",
                );
                let owner = m.receipt_owner(&conv, receipt).cloned();
                let this = (conv.clone(), receipt);
                let (ok, moves) = match m.sends.get(&id) {
                    None => (false, false),
                    Some(s) if s.receipt.is_some() => (s.receipt.as_ref() == Some(&this), false),
                    Some(s) if s.dispatched_at.is_none() => (false, false),
                    Some(_) if owner.is_some() => (false, false),
                    Some(s) => {
                        let ok = matches!(s.state, SendState::Dispatched | SendState::Uncertain);
                        (ok, ok)
                    }
                };
                assert_eq!(got.is_ok(), ok, "{op:?}: {got:?}");
                if moves {
                    let now = m.now;
                    let s = m.sends.get_mut(&id).unwrap();
                    s.go(SendState::Accepted);
                    s.receipt = Some(this);
                    s.observed_at = Some(now);
                    let lease = s.lease.clone();
                    if let Some(l) = m.leases.iter_mut().find(|l| Some(&l.id) == lease.as_ref()) {
                        if l.conv.is_none() && l.new_chat.is_none() {
                            l.new_chat = Some(conv);
                        }
                    }
                }
            }
            Op::Complete { op } => {
                let Some(id) = m.target(op) else { return };
                let got = self.ledger.as_mut().unwrap().complete(
                    &id,
                    &format!("answer-{id}"),
                    "answer",
                    "model",
                );
                let state = m.sends.get(&id).map(|s| s.state);
                assert_eq!(
                    got.is_ok(),
                    matches!(state, Some(SendState::Accepted | SendState::Completed)),
                    "{op:?}: {got:?}"
                );
                if state == Some(SendState::Accepted) {
                    let s = m.sends.get_mut(&id).unwrap();
                    s.go(SendState::Completed);
                    s.answered = true;
                }
            }
            Op::PageError { op, limit } => self.page_says_no(op, limit, None),
            Op::Refused { op, limit } => self.page_says_no(op, limit, Some(429)),
            Op::Resolve { op, decision } => {
                let Some(id) = m.target(op) else { return };
                let d =
                    [Decision::Confirmed, Decision::Abandoned, Decision::Resend][decision as usize];
                let r = Resolution {
                    decision: d,
                    by: "alice".into(),
                    evidence: "model".into(),
                };
                let got = self.ledger.as_mut().unwrap().resolve(&id, &r);
                let uncertain = m
                    .sends
                    .get(&id)
                    .is_some_and(|s| s.state == SendState::Uncertain);
                let ok = uncertain && !(d == Decision::Resend && m.gate_closed);
                assert_eq!(got.is_ok(), ok, "{op:?} on {id}: {got:?}");
                if let Ok(resolved) = got {
                    let to = if d == Decision::Confirmed {
                        SendState::Confirmed
                    } else {
                        SendState::Abandoned
                    };
                    let text = m.sends[&id].text.clone();
                    let conv = m.sends[&id].conv.clone();
                    m.sends.get_mut(&id).unwrap().go(to);
                    match (d, resolved.resent_as) {
                        (Decision::Resend, Some(new)) => {
                            assert_eq!(new.resend_of.as_deref(), Some(id.as_str()));
                            m.queued(new.op_id, text, conv);
                        }
                        (Decision::Resend, None) => panic!("a resend queues a new operation"),
                        (_, extra) => assert!(extra.is_none()),
                    }
                }
            }
            Op::Stop => {
                self.ledger
                    .as_mut()
                    .unwrap()
                    .stop("alice")
                    .expect("stop is always accepted");
                for s in m.sends.values_mut() {
                    if matches!(s.state, SendState::Queued | SendState::Claimed) {
                        s.go(SendState::Stopped);
                    }
                }
                m.gate_closed = true;
            }
            Op::Resume => {
                let got = self.ledger.as_mut().unwrap().resume("alice").unwrap();
                assert_eq!(
                    got,
                    m.gate_closed || m.limit_holds(),
                    "resume reports whether a gate held sends back"
                );
                m.limit = None;
                if m.gate_closed {
                    m.gate_closed = false;
                    m.leases.iter_mut().for_each(|l| l.ended = true);
                }
            }
            Op::Expire { advance_ms } => {
                self.fx.clock.advance(advance_ms);
                m.now += advance_ms;
                // The model's tabs are never let go for silence (that bound has its own
                // test, `a_lease_whose_tab_stopped_answering_…` in ledger_deadlines).
                let b = Bounds {
                    lease_silence_ms: i64::MAX / 4,
                    ..Bounds::default()
                };
                self.ledger.as_mut().unwrap().expire(&b).unwrap();
                let now = m.now;
                for s in m.sends.values_mut() {
                    match s.state {
                        SendState::Claimed if s.claimed_at.unwrap() <= now - b.claim_ms => {
                            s.go(SendState::Rejected)
                        }
                        SendState::Dispatched if s.dispatched_at.unwrap() <= now - b.receipt_ms => {
                            s.go(SendState::Uncertain)
                        }
                        SendState::Accepted
                            if !s.answered
                                && !s.not_observed
                                && s.observed_at.unwrap() <= now - b.answer_ms =>
                        {
                            s.not_observed = true
                        }
                        _ => {}
                    }
                }
            }
            Op::Restart => {
                drop(self.ledger.take());
                self.ledger = Some(self.fx.open());
                for s in m.sends.values_mut() {
                    match s.state {
                        SendState::Queued => s.go(SendState::Rejected),
                        SendState::Claimed | SendState::Dispatched => s.go(SendState::Uncertain),
                        _ => {}
                    }
                }
                m.leases.iter_mut().for_each(|l| l.ended = true);
            }
        }
        self.check(op);
    }

    fn check(&mut self, op: &Op) {
        let ledger = self.ledger.as_ref().unwrap();
        let conn = ledger.raw_connection();
        // Model bins == ledger bins, and each send's transition events == its history.
        let mut stmt = conn
            .prepare("SELECT op_id, state, dispatched_at FROM sends ORDER BY seq")
            .unwrap();
        let rows: Vec<(String, String, Option<Millis>)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            rows.len(),
            self.model.sends.len(),
            "after {op:?}: the same sends"
        );
        for (id, state, dispatched_at) in rows {
            let s = &self.model.sends[&id];
            assert_eq!(state, s.state.as_str(), "after {op:?}: bin of {id}");
            let chain = transitions(conn, &id);
            let mut expected_from = None;
            for (i, (from, to)) in chain.iter().enumerate() {
                assert_eq!(
                    from, &expected_from,
                    "after {op:?}: {id}'s events form one chain"
                );
                let to_state: SendState = to.parse().unwrap();
                assert_eq!(
                    Some(to_state),
                    s.history.get(i).copied(),
                    "after {op:?}: {id} event {i}"
                );
                if let Some(f) = from {
                    assert!(
                        design_allows(f.parse().unwrap(), to_state),
                        "illegal edge {f} -> {to}"
                    );
                } else {
                    assert_eq!(to_state, SendState::Queued, "admitted as queued");
                }
                expected_from = Some(to.clone());
            }
            assert_eq!(
                chain.len(),
                s.history.len(),
                "after {op:?}: one event per state change of {id}"
            );
            // Dispatched at most once: the time is written once, one dispatch event.
            if let Some(at) = dispatched_at {
                let first = *self.dispatched_at_seen.entry(id.clone()).or_insert(at);
                assert_eq!(
                    first, at,
                    "after {op:?}: {id}'s dispatch time never changes"
                );
            } else {
                assert!(
                    !self.dispatched_at_seen.contains_key(&id),
                    "a dispatch time is never cleared"
                );
            }
            assert!(
                dispatch_events(conn, &id) <= 1,
                "after {op:?}: {id} dispatched twice"
            );
        }
        // No receipt on two sends, and the model agrees on who owns which.
        let receipts: Vec<(String, String, String)> = conn
            .prepare("SELECT op_id, conversation_id, user_message_id FROM receipts")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let mut owners = BTreeMap::new();
        for (id, conv, msg) in &receipts {
            assert!(
                owners
                    .insert((conv.clone(), msg.clone()), id.clone())
                    .is_none(),
                "receipt {conv}/{msg} on two sends"
            );
            assert_eq!(
                self.model.sends[id]
                    .receipt
                    .as_ref()
                    .map(|(c, r)| (c.clone(), format!("user-{r}"))),
                Some((conv.clone(), msg.clone()))
            );
        }
        // Never two in flight in one conversation or one tab; never more than the cap.
        // One exception, by design: a send reobserved from uncertain becomes accepted
        // (awaiting its answer) even if another send was handed out meanwhile; the
        // reobservation grants nothing, so no claim follows it. It is left out here.
        let reobserved: Vec<&String> = self
            .model
            .sends
            .iter()
            .filter(|(_, s)| {
                s.in_flight()
                    && s.history
                        .windows(2)
                        .any(|w| w == [SendState::Uncertain, SendState::Accepted])
            })
            .map(|(id, _)| id)
            .collect();
        let places = in_flight_places(conn, &reobserved);
        assert_never_two_in_flight_in_one_conversation_or_tab_nor_past_the_cap(
            &places,
            self.model.cap,
            op,
        );
        assert_eq!(ledger.status().unwrap().gate_closed, self.model.gate_closed);
        assert_eq!(
            ledger.limit_gate().unwrap().holds_at(self.model.now),
            self.model.limit_holds(),
            "after {op:?}: the limit gate holds exactly when the model's does"
        );
    }
}

/// Each send in flight but `skip`: (op id, tab, conversation), as the ledger's own view
/// `in_flight_places` says.
fn in_flight_places(
    conn: &rusqlite::Connection,
    skip: &[&String],
) -> Vec<(String, Option<String>, Option<String>)> {
    conn.prepare("SELECT op_id, tab_id, conversation_id FROM in_flight_places")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<Vec<(String, Option<String>, Option<String>)>>>()
        .unwrap()
        .into_iter()
        .filter(|(id, _, _)| !skip.contains(&id))
        .collect()
}

/// The invariant of issue 27's parallel conversations.
fn assert_never_two_in_flight_in_one_conversation_or_tab_nor_past_the_cap(
    places: &[(String, Option<String>, Option<String>)],
    cap: usize,
    op: &Op,
) {
    let sends: std::collections::BTreeSet<&String> = places.iter().map(|(id, _, _)| id).collect();
    assert!(
        sends.len() <= cap,
        "after {op:?}: {} sends in flight, max_in_flight is {cap}: {places:?}",
        sends.len()
    );
    let mut convs = BTreeMap::new();
    let mut tabs = BTreeMap::new();
    for (id, tab, conv) in places {
        if let Some(c) = conv {
            if let Some(other) = convs.insert(c.clone(), id.clone()).filter(|o| o != id) {
                panic!("after {op:?}: {other} and {id} both in flight in conversation {c}");
            }
        }
        if let Some(t) = tab {
            if let Some(other) = tabs.insert(t.clone(), id.clone()).filter(|o| o != id) {
                panic!("after {op:?}: {other} and {id} both in flight in tab {t}");
            }
        }
    }
}

/// How many random runs: 128, or `SENDLEDGER_MODEL_CASES` when set. The Windows run
/// (scripts/test-windows.sh) sets 32: under Wine one run costs about 3.5 times what it costs
/// on Linux, the model's rules are the same SQL on both, and the Linux run keeps all 128.
/// A value that is not a whole number from 1 fails the test, naming it (a typo never runs
/// fewer or more runs than asked without a word).
fn model_cases() -> u32 {
    match std::env::var("SENDLEDGER_MODEL_CASES") {
        Err(_) => 128,
        Ok(v) => match v.trim().parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => panic!(
                "SENDLEDGER_MODEL_CASES is {v:?}: give a whole number of random runs, 1 or \
                 more (or unset it for 128)"
            ),
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: model_cases(),
        max_shrink_iters: 2_000,
        ..ProptestConfig::default()
    })]

    #[test]
    fn ledger_matches_the_reference_model_and_keeps_every_custody_invariant(
        cap in 1..4u32,
        ops in prop::collection::vec(op_strategy(), 16..96)
    ) {
        let mut run = Run::new(cap);
        for op in &ops {
            run.step(op);
        }
    }
}
