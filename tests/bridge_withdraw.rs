//! Withdraw through the owner: `sendledger withdraw` (and `POST /v1/sends/{op}/withdraw`)
//! takes back a send its tab is typing; the tab's grant is refused, nothing is clicked,
//! and the next send goes out without a Stop.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use serde_json::json;

#[test]
fn a_send_withdrawn_while_its_tab_types_it_is_never_granted_and_the_next_one_goes_out() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let client = serve.client();
    let ext = serve.pair();
    let lease = ext.lease("tab-1");
    client.queue("op-typing", "the tab is typing this one");
    client.queue("op-next", "this one goes out");
    assert_eq!(
        ext.next(&lease, 5_000).expect("claimed")["op_id"],
        "op-typing"
    );

    let out = cli(&profile, &["withdraw", "op-typing", "--by", "alice"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        said.contains(
            "op-typing is stopped: withdrawn by alice before it was clicked: nothing was sent"
        ),
        "{said}"
    );
    let late = ext.dispatch(&lease, "op-typing");
    assert_ne!(
        late.status, 200,
        "no grant for a withdrawn send: {}",
        late.body
    );
    let shown = client.show("op-typing");
    assert_eq!(shown["send"]["state"], "stopped", "{shown}");
    assert_eq!(shown["send"]["actor"], "alice");
    assert_eq!(
        events_of(&profile, "op-typing")
            .iter()
            .filter(|(_, to, _)| to == "dispatched")
            .count(),
        0,
        "never dispatched"
    );
    // No Stop: the gate is open and the next send is handed out.
    assert_eq!(
        client.get("/v1/status").body["status"]["gate_closed"],
        false
    );
    assert_eq!(
        ext.next(&lease, 5_000).expect("the next send")["op_id"],
        "op-next"
    );
    assert_eq!(ext.dispatch(&lease, "op-next").status, 200);

    // A clicked send cannot be withdrawn: the refusal says why, over HTTP and the CLI.
    let r = client.post("/v1/sends/op-next/withdraw", &json!({ "by": "alice" }));
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(r.code(), "wrong_state");
    let out = cli(&profile, &["withdraw", "op-next", "--by", "alice"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("only a send not yet clicked is: a clicked send went out"),
        "{err}"
    );
    assert_eq!(client.state("op-next"), "dispatched");
    // A malformed body changes nothing.
    let r = client.post("/v1/sends/op-next/withdraw", &json!({ "who": "alice" }));
    assert_eq!(r.status, 400, "{}", r.body);
}
