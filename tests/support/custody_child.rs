//! `sendledger-custody-child PROFILE STEP...`: a test-only owner process for the kill
//! tests. It performs each scripted ledger call (see `script.rs`), prints `ready <step>`
//! once the call has returned (its transaction committed), and after the last step
//! blocks reading stdin, so the test can SIGKILL it at an exact durable point.
//! On a refused step it prints `error <step> <code>: <message>` and exits with 3.

mod script;

use script::{binding_for, receipt_for, text_for, Step};
use sendledger::clock::SystemClock;
use sendledger::ledger::{Ledger, LedgerError, QueueRequest};
use sendledger::profile::Profile;
use std::io::{Read, Write};
use std::sync::Arc;

fn run(
    ledger: &mut Option<Ledger>,
    lease: &mut Option<String>,
    profile: &Profile,
    step: &Step,
) -> Result<(), LedgerError> {
    if *step == Step::Open {
        *ledger = Some(Ledger::open(profile, Arc::new(SystemClock))?.0);
        return Ok(());
    }
    let l = ledger.as_mut().expect("the script opens the ledger first");
    let lease_id = || lease.clone().expect("the script leases a tab first");
    match step {
        Step::Open => unreachable!("handled above"),
        Step::Queue(op) => {
            let req = QueueRequest {
                op_id: Some(op.clone()),
                text: text_for(op),
                conversation_id: None,
                ..Default::default()
            };
            l.queue(&req, "child")?;
        }
        Step::Lease(tab) => *lease = Some(l.lease(&binding_for(tab))?.lease_id),
        Step::Claim => {
            l.claim_next(&lease_id())?
                .expect("the script claims only when a send is queued");
        }
        Step::Dispatch(op) => {
            l.dispatch(op, &lease_id())?;
        }
        Step::Accept(op) => {
            l.accept(op, &receipt_for(op), "child")?;
        }
        Step::Complete(op) => {
            l.complete(op, &format!("answer-{op}"), "the answer", "child")?;
        }
        Step::Fail(op) => {
            l.fail(op, "the child witnessed a failure", "child")?;
        }
        Step::Stop => {
            l.stop("child")?;
        }
        Step::Withdraw(op) => {
            l.withdraw(op, "child")?;
        }
        Step::ToolAdmit(call) => {
            l.tool_admit(call)?;
        }
        Step::ToolStart(call) => {
            l.tool_start(call)?;
        }
        Step::ToolSettle(call) => {
            l.tool_settle(call, "done")?;
        }
        Step::Prune(batch) => {
            let mut out = std::io::stdout();
            writeln!(out, "pruning").expect("stdout is open");
            out.flush().expect("stdout is open");
            while l.prune_retention(*batch)?.more {}
        }
        Step::Race(n) => {
            let lease = l.lease(&binding_for("race"))?.lease_id;
            let mut out = std::io::stdout();
            for i in 0..*n {
                let op = format!("race-{i}");
                let req = QueueRequest {
                    op_id: Some(op.clone()),
                    text: text_for(&op),
                    conversation_id: None,
                    ..Default::default()
                };
                l.queue(&req, "child")?;
                l.claim_next(&lease)?;
                writeln!(out, "claimed {op}").expect("stdout is open");
                out.flush().expect("stdout is open");
                l.dispatch(&op, &lease)?;
                writeln!(out, "dispatched {op}").expect("stdout is open");
                out.flush().expect("stdout is open");
                l.accept(&op, &receipt_for(&op), "child")?;
                l.complete(&op, &format!("answer-{op}"), "the answer", "child")?;
            }
        }
    }
    Ok(())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let profile = args
        .next()
        .expect("usage: sendledger-custody-child PROFILE STEP...");
    let profile = Profile::at(profile).expect("the profile directory is usable");
    let mut ledger = None;
    let mut lease = None;
    let mut out = std::io::stdout();
    for arg in args {
        let step = Step::parse(&arg).expect("a known step");
        if let Err(e) = run(&mut ledger, &mut lease, &profile, &step) {
            let _ = writeln!(out, "error {arg} {}: {e}", e.code());
            let _ = out.flush();
            std::process::exit(3);
        }
        writeln!(out, "ready {arg}").expect("stdout is open");
        out.flush().expect("stdout is open");
    }
    // Block until the test kills us (or closes stdin for a clean exit).
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
}
