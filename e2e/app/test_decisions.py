"""End-to-end tests of a person's decision on an uncertain send in the real window (issue
25): it lands on the send the person was looking at, or nowhere — a double-click decides
one send, a row that moved under the pointer is never decided, Enter picks no decision,
and a decision can be taken back during its grace (ui/app.js, GRACE_S)."""
import os
import sqlite3
import time

from harness import App, FakeExtension, Profile, wait_until

DECISIONS = ("confirmed", "abandoned", "resend")
TO = {"confirmed": "confirmed", "abandoned": "abandoned", "resend": "abandoned"}


def uncertain(p, app, *ops):
    ext = FakeExtension(p)
    for op in ops:
        p.cli("send", f"Message {op} for the decisions test", "--id", op)
        ext.make_uncertain(op)
    for op in ops:
        app.wait_row(op, "uncertain")


def trail(p, op):
    return [(e["to"], e.get("evidence")) for e in p.show(op)["timeline"]]


def held_words(app, op):
    return app.js("const h = document.querySelector(`article[data-op='${arguments[0]}'] .held`);"
                  "return h && !h.hidden ? h.textContent.trim() : null", op)


def test_a_double_click_on_each_decision_decides_only_the_clicked_send(desktop):
    p = Profile()
    app = App(p)
    try:
        for d in DECISIONS:
            first, second = f"{d}-first", f"{d}-second"
            uncertain(p, app, first, second)
            for op in (first, second):
                app.type(f"article[data-op='{op}'] input[name=evidence]", f"typed on {op}")
            before = trail(p, second)
            app.double_click(f"article[data-op='{first}'] button[data-decision={d}]")
            if d == "abandoned":
                app.shot("30-decision-held-with-undo")
            # The first click holds the decision (Undo where the buttons were); the second
            # click, on Undo, undoes nothing.
            assert held_words(app, first), "the first click holds the decision"
            assert held_words(app, second) is None, "the row below was not decided"
            app.wait_row(first, "history")
            assert p.show(first)["send"]["state"] == TO[d]
            assert any(f"typed on {first}" in (ev or "") for _, ev in trail(p, first)), trail(p, first)
            # The second row moved up into the first one's place under a pointer that stayed
            # still: a click there now decides nothing and says why.
            moved = app.js(
                "const b = document.querySelector(`article[data-op='${arguments[0]}'] button[data-decision=${arguments[1]}]`);"
                "b.dispatchEvent(new MouseEvent('click', {bubbles: true, detail: 1}));"
                "const e = b.closest('.decide').querySelector('.error');"
                "return [!b.closest('.decide').querySelector('.held').hidden, e.hidden ? '' : e.textContent]",
                second, d)
            assert moved[0] is False and "just moved" in moved[1], moved
            if d == "abandoned":
                app.shot("31-moved-row-not-decided")
            assert p.show(second)["send"]["state"] == "uncertain", "only the clicked send is decided"
            assert trail(p, second) == before, "nothing was written on the other send"
            # Decide the second too (with the keyboard: the pointer has not moved), so the
            # next round starts with an empty section. Resend comes last: its new send
            # stays queued.
            app.js(f"document.querySelector(\"article[data-op='{second}'] button[data-decision=abandoned]\").focus()")
            app.keys("\ue007")
            app.wait_row(second, "history")
    finally:
        app.close()


def test_enter_in_the_evidence_field_picks_no_decision(desktop):
    p = Profile()
    app = App(p)
    try:
        uncertain(p, app, "e-1")
        field = "article[data-op='e-1'] input[name=evidence]"
        app.type(field, "I don't see it in the chat, drop it")
        app.click(field)
        app.keys("\ue007")  # Enter
        assert held_words(app, "e-1") is None, "Enter held no decision"
        assert app.js("return document.querySelector(arguments[0]).value", field) == \
            "I don't see it in the chat, drop it", "what was typed stays"
        # The person then picks Abandon with the keyboard: Tab to it, Enter.
        app.js("document.querySelector(\"article[data-op='e-1'] button[data-decision=abandoned]\").focus()")
        app.keys("\ue007")
        assert held_words(app, "e-1").startswith("Abandoning"), "the button pressed is the decision"
        app.wait_row("e-1", "history")
        e = p.show("e-1")["timeline"][-1]
        assert (e["to"], e["evidence"]) == ("abandoned", "I don't see it in the chat, drop it"), e
        assert not any(s == "confirmed" for s, _ in trail(p, "e-1")), "never confirmed"
    finally:
        app.close()


def test_a_decision_taken_back_during_its_grace_records_nothing(desktop):
    p = Profile()
    app = App(p)
    try:
        uncertain(p, app, "u-1")
        row = "article[data-op='u-1']"
        app.type(f"{row} input[name=evidence]", "wrong row, oops")
        app.pointer_click(f"{row} button[data-decision=resend]")
        assert held_words(app, "u-1").startswith("Abandoning and queuing"), held_words(app, "u-1")
        app.click(f"{row} button[data-undo]")
        assert held_words(app, "u-1") is None, "Undo puts the decision buttons back"
        assert app.js(f"return document.querySelector(\"{row} input[name=evidence]\").value") == "wrong row, oops"
        app.shot("32-decision-undone")
        # The decision the person then makes is the only one recorded: had the resend not
        # been taken back, its grace (started first) would have ended first.
        app.type(f"{row} input[name=evidence]", "seen in the chat at 10:02")
        app.pointer_click(f"{row} button[data-decision=confirmed]")
        app.wait_row("u-1", "history")
        states = [s for s, _ in trail(p, "u-1")]
        assert states[-1] == "confirmed" and "abandoned" not in states, states
        sends = p.cli("list")
        linked = [s for s in (sends.get("sends", sends) if isinstance(sends, dict) else sends)
                  if s.get("resend_of") == "u-1"]
        assert linked == [], f"nothing was queued again: {linked}"
    finally:
        app.close()


def seed_completed(profile, n):
    """Seeds `n` completed sends straight into the ledger file while no owner runs, in one
    transaction through the schema's own triggers (queued → … → completed, one at a time)."""
    db = sqlite3.connect(os.path.join(profile.dir, "ledger.sqlite3"), isolation_level=None)
    now = int(time.time() * 1000)
    db.execute("BEGIN IMMEDIATE")
    gen = db.execute("SELECT generation FROM gate").fetchone()[0]
    db.execute("INSERT INTO leases(lease_id, tab_id, generation, epoch, created_at) "
               "VALUES ('seed-lease', 'seed-tab', ?, 'seed-epoch', ?)", (gen, now))
    for i in range(n):
        op = f"later-{i:06d}"
        db.execute("INSERT INTO sends(op_id, text, epoch, created_at, state, updated_at, actor) "
                   "VALUES (?, ?, 'seed-epoch', ?, 'queued', ?, 'seed')", (op, f"later send {i}", now + i, now + i))
        for to, sets in (("claimed", "lease_id = 'seed-lease', claimed_at = ?2"), ("dispatched", "dispatched_at = ?2"),
                         ("accepted", "updated_at = ?2"),
                         ("completed", "answer_message_id = 'm-' || ?1, answer_text = 'An answer.', answered_at = ?2")):
            db.execute(f"UPDATE sends SET state = '{to}', {sets} WHERE op_id = ?1", (op, now + i))
    db.execute("UPDATE leases SET ended_at = ?, ended_reason = 'seeded' WHERE lease_id = 'seed-lease'", (now + n,))
    db.execute("COMMIT")
    db.close()


def test_the_old_uncertain_send_is_still_listed_after_ten_thousand_and_one_later_sends(desktop):
    p = Profile()
    app = App(p)
    try:
        uncertain(p, app, "old-1")
    finally:
        app.close()
    seed_completed(p, 10_001)
    app = App(p)
    try:
        app.wait_row("old-1", "uncertain")
        assert app.js("return document.querySelector('[data-count=uncertain]').textContent") == "1"
        # History holds its first page (the rows out of view have no element: ui/visible.js).
        assert app.js("return document.querySelector('[data-count=history]').textContent") == "200"
        assert app.js("return !document.querySelector('#older').hidden"), "older sends are a click away"
        app.shot("33-old-uncertain-after-10001-sends")
        app.click("#older")
        app.wait_js("return document.querySelector('[data-count=history]').textContent === '400'",
                    "the next page of History below the first")
        app.js("document.querySelector('#older').scrollIntoView({block: 'center'})")
        app.shot("34-history-show-older")
    finally:
        app.close()


TESTS = [
    test_the_old_uncertain_send_is_still_listed_after_ten_thousand_and_one_later_sends,
    test_a_double_click_on_each_decision_decides_only_the_clicked_send,
    test_enter_in_the_evidence_field_picks_no_decision,
    test_a_decision_taken_back_during_its_grace_records_nothing,
]
