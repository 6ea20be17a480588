"""End-to-end tests of the real tray app: the real binary under Xvfb, driven through its
window (tauri-driver + WebKitWebDriver), its tray menu (D-Bus) and the CLI, with sends
made through the real bridge. Run by run.py inside xvfb-run + dbus-run-session."""
import json
import os
import shlex
import signal
import socket
import subprocess
import time

from harness import (APP, TRAY, App, DirectApp, FakeExtension, Profile, Tray, X, bridge_get, colour_share, kill,
                     os_user, pid_alive, wait_until, xembed_tray)

# Each test gets the fake desktop (tray host + notification recorder) from run.py.


def last_event(profile, op_id):
    return profile.show(op_id)["timeline"][-1]


def test_rows_appear_for_queued_uncertain_and_stopped_sends(desktop):
    p = Profile()
    app = App(p)
    try:
        app.shot("01-empty")
        p.cli("send", "What is the capital of Australia?", "--id", "uncertain-1")
        app.wait_row("uncertain-1", "pending")
        FakeExtension(p).make_uncertain("uncertain-1")
        app.wait_row("uncertain-1", "uncertain")
        assert app.js("return document.querySelector('[data-count=uncertain]').textContent") == "1"

        p.cli("send", "Please summarise the meeting notes from Tuesday", "--id", "queued-1")
        app.wait_row("queued-1", "pending")
        app.shot("02-pending-and-uncertain")

        p.cli("send", "Draft a reply to the landlord", "--id", "stopped-1")
        app.wait_row("stopped-1", "pending")
        p.cli("stop", "--by", "cli-user")
        app.wait_row("stopped-1", "stopped")
        app.wait_row("queued-1", "stopped")
        app.wait_js("return document.querySelector('#gate').classList.contains('closed')", "the gate shown closed")
        app.shot("04-stopped")
    finally:
        app.close()


def test_a_clicked_sends_row_shows_what_became_of_the_stop_of_its_answer(desktop):
    p = Profile()
    app = App(p)
    try:
        p.cli("send", "Write the long report on every county", "--id", "clicked-1")
        app.wait_row("clicked-1", "pending")
        ext = FakeExtension(p)
        lease = ext.dispatch("clicked-1")
        app.click("#stop")
        line = "return (document.querySelector('[data-op=\"clicked-1\"] .answer-stop') || {}).textContent || ''"
        app.wait_js(line + ".startsWith('Stop of its answer: asked by')", "the row to say its answer's stop was asked")
        ext.remote_stop(lease, "clicked-1", "dispatched")
        ext.remote_stop(lease, "clicked-1", "uncertain", "the stop button was still there after the click")
        app.wait_js(line + ".includes('not known whether the answer stopped: the stop button was still there')",
                    "the row to say the stop is uncertain, with what the tab saw")
        assert app.js("return document.querySelector('[data-op=\"clicked-1\"] .answer-stop').dataset.phase") == "uncertain"
        app.shot("05-answer-stop-uncertain")
        shown = p.show("clicked-1")
        assert shown["remote_stop"]["phase"] == "uncertain", shown
        assert any((e.get("evidence") or "").startswith("remote stop uncertain") for e in shown["timeline"]), shown
    finally:
        app.close()


def png_of(width, height, rgb):
    """A real PNG (one colour, no compression library needed beyond zlib)."""
    import struct, zlib
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_an_answers_generated_image_shows_as_a_thumbnail_and_save_never_replaces_a_file(desktop):
    """The answer's generated files reach the row (the owner's feed pushes the row when a
    file settles); the thumbnail is the stored image; Save writes it byte-identical into
    the Downloads folder the person's user-dirs name, and a second Save takes a new name;
    the file the page refused is named with the page's words."""
    p = Profile()
    downloads = os.path.join(p.home, "Saved files")
    os.makedirs(os.path.join(p.home, ".config"))
    os.makedirs(downloads)
    with open(os.path.join(p.home, ".config", "user-dirs.dirs"), "w") as f:
        f.write('XDG_DOWNLOAD_DIR="$HOME/Saved files"\n')
    app = App(p, extra_env={"XDG_CONFIG_HOME": os.path.join(p.home, ".config")})
    try:
        p.cli("send", "Draw a ledger book with a quill beside it.", "--id", "drawn-1")
        app.wait_row("drawn-1", "pending")
        png = png_of(96, 64, (15, 118, 110))
        refused = "The file could not be downloaded. Try again later."
        FakeExtension(p).answer_with_images("drawn-1", "ledger-book.png", png, refused)
        app.wait_row("drawn-1", "history")
        lost = "(document.querySelector('[data-op=\"drawn-1\"] .files [data-state=unavailable]') || {}).textContent || ''"
        app.wait_js(f"return {lost}.includes({json.dumps(refused)})", "the row to say which file could not be fetched, in the page's words")
        thumb = "document.querySelector('[data-op=\"drawn-1\"] .files img.thumb')"
        app.wait_js(f"return !!{thumb} && {thumb}.naturalWidth === 96", "the row's thumbnail of the generated image")
        assert app.js(f"return {thumb}.src.startsWith('data:image/png;base64,')")
        app.shot("09-generated-image")
        for expected in ("ledger-book.png", "ledger-book (2).png"):
            app.click('[data-op="drawn-1"] .files button.save')
            saved = "(document.querySelector('[data-op=\"drawn-1\"] .files .saved') || {}).textContent || ''"
            app.wait_js(f"return {saved}.includes({json.dumps(expected)})", f"the row to say it saved {expected}")
            said = app.js(f"return {saved}")
            assert os.path.exists(os.path.join(downloads, expected)), \
                f"the row says {said!r}, the folder holds {sorted(os.listdir(downloads))}"
            with open(os.path.join(downloads, expected), "rb") as f:
                assert f.read() == png, f"{expected} is not the generated image"
        assert sorted(os.listdir(downloads)) == ["ledger-book (2).png", "ledger-book.png"]
        app.shot("10-generated-image-saved")
    finally:
        app.close()


def test_check_this_page_from_the_window_shows_the_facts_on_the_tab_line_and_saves_the_report(desktop):
    """The window's Check this page asks the leased tab through the owner (the fake
    extension answers from its long-poll as report.js does); the tab line says the result
    in words with every fact under All facts; Save page report writes the tab's report into
    the Downloads folder, never over another file."""
    import threading
    p = Profile()
    downloads = os.path.join(p.home, "Saved files")
    os.makedirs(os.path.join(p.home, ".config"))
    os.makedirs(downloads)
    with open(os.path.join(p.home, ".config", "user-dirs.dirs"), "w") as f:
        f.write('XDG_DOWNLOAD_DIR="$HOME/Saved files"\n')
    app = App(p, extra_env={"XDG_CONFIG_HOME": os.path.join(p.home, ".config")})
    check = {"at": 1, "took_ms": 2, "results": [
        {"id": "composer.present", "needs": "every", "state": "holds", "shows": {"found": 1}},
        {"id": "send_button.present", "needs": "every", "state": "fails", "shows": {"found": 0}}]}
    report = {"kind": "sendledger-page-report", "version": 1, "check": check, "layout": {"root": "body", "nodes": [{"depth": 0, "tag": "body"}]}}
    ext = FakeExtension(p)
    lease = ext.post("/v1/ext/lease", {"tab_id": "7"})["lease_id"]
    stop = threading.Event()

    def tab():  # the tab's loop: each ask handed with a long-poll's answer is answered
        while not stop.is_set():
            ask = ext.post("/v1/ext/next", {"lease_id": lease, "wait_ms": 2000}).get("page_check")
            if ask:
                body = {"lease_id": lease, "request_id": ask["request_id"], "check": check}
                if ask["report"]:
                    body["report"] = report
                ext.post("/v1/ext/page-check", body)

    t = threading.Thread(target=tab, daemon=True)
    t.start()
    try:
        app.wait_js("return !document.getElementById('page-line').hidden", "the tab line once a tab is leased")
        app.click("#check-page")
        words = "document.getElementById('page-words').textContent"
        app.wait_js(f"return {words} === 'page: 1 fact holds, 1 fails: send_button.present'", "the tab line to say the check")
        assert app.js("return document.getElementById('page-words').dataset.fails") == "true"
        facts = app.js("return [...document.querySelectorAll('#page-facts li')].map(li => li.textContent)")
        assert facts == ['composer.present: holds {"found":1}', 'send_button.present: fails {"found":0}'], facts
        app.shot("11-page-check")
        app.click("#save-page-report")
        said = "document.getElementById('page-said').textContent"
        app.wait_js(f"return {said}.includes('Report saved to')", "the tab line to say where the report went")
        saved = os.listdir(downloads)
        assert saved == ["sendledger-page-report.json"], saved
        with open(os.path.join(downloads, saved[0])) as f:
            assert json.load(f) == report
    finally:
        stop.set()
        app.close()
        t.join(timeout=10)


def test_withdraw_takes_back_one_queued_send_and_the_others_stay_queued(desktop):
    p = Profile()
    app = App(p)
    try:
        p.cli("send", "Send the wrong draft to the whole team", "--id", "w-1")
        p.cli("send", "The right draft", "--id", "w-2")
        app.wait_row("w-1", "pending")
        app.wait_row("w-2", "pending")
        app.shot("06-pending-with-withdraw")
        app.click('[data-op="w-1"] button[data-withdraw]')
        app.wait_row("w-1", "stopped")
        # The second click of a double-click lands on the row that moved up: ignored (a
        # withdrawal disables its button at once, before it asks the owner).
        pressed = app.js("const b = document.querySelector('[data-op=\"w-2\"] button[data-withdraw]');"
                         "b.dispatchEvent(new MouseEvent('click', {bubbles: true, detail: 2}));"
                         "return b.disabled")
        assert pressed is False, "the second click of a double-click withdrew the next row"
        shown = p.show("w-1")["send"]
        assert shown["state"] == "stopped" and shown["actor"] == os_user(), shown
        assert shown["evidence"].startswith(f"withdrawn by {os_user()} before it was clicked"), shown
        assert p.show("w-2")["send"]["state"] == "queued", "the other send stays queued"
        assert not p.status()["gate_closed"], "no Stop: the gate stays open"
        # It can be queued again from the Stopped section.
        app.click('[data-op="w-1"] button[data-requeue]')
        app.wait_js("return [...document.querySelectorAll('[data-op]')].some(r => r.dataset.op !== 'w-1' && r.dataset.op !== 'w-2')",
                    "the send queued again as a new row")
    finally:
        app.close()


def test_stop_button_closes_the_gate_and_resume_is_a_persons_decision(desktop):
    p = Profile()
    app = App(p)
    try:
        p.cli("send", "Book the table for Friday", "--id", "q-1")
        app.wait_row("q-1", "pending")
        app.click("#stop")
        # The click's command commits before it answers; the CLI reads the ledger itself.
        wait_until(lambda: p.status()["gate_closed"], "sendledger status to show the gate closed")
        assert p.show("q-1")["send"]["state"] == "stopped"
        assert p.show("q-1")["send"]["actor"] == os.environ.get("USER", "root")
        app.wait_row("q-1", "stopped")
        app.wait_js("return !document.querySelector('#resume').hidden", "Resume to be offered")
        gate = app.js("return document.querySelector('#gate').textContent")
        assert gate.startswith(f"Sends are stopped by {os_user()}, "), f"who stopped, and when: {gate}"
        # Queue again is off while stopped, and says why in words a person sees (not a tooltip).
        again = "document.querySelector('article[data-op=\"q-1\"] .again')"
        app.wait_js(f"return {again}.querySelector('button').disabled && !{again}.querySelector('.why').hidden"
                    f" && {again}.querySelector('.why').textContent.startsWith('Resume first')",
                    "Queue again off, with why beside it")
        app.shot("04b-queue-again-while-stopped")
        code = subprocess.run([p_cli(), "--profile", p.dir, "send", "after stop", "--id", "late-1"],
                              capture_output=True, text=True, timeout=30)
        assert code.returncode == 1 and "epoch stopped" in code.stderr, code.stderr

        app.click("#resume")
        app.wait_js("return document.querySelector('#resume-dialog').open", "the Resume dialog")
        app.type("#resume-form input[name=by]", "dana")
        app.shot("05-resume-dialog")
        app.click("#resume-form button[value=resume]")
        wait_until(lambda: not p.status()["gate_closed"], "the gate to open again")
        gate = app.wait_js("const g = document.querySelector('#gate').textContent;"
                           "return g.startsWith('Sending allowed') && g", "the header to say sending is allowed")
        assert gate.startswith("Sending allowed (resumed by dana, "), f"who resumed, and when: {gate}"
        assert app.js("return document.querySelector('article[data-op=\"q-1\"]').closest('.rows').dataset.section") == "stopped", \
            "resuming queues nothing again by itself"
        app.wait_js(f"return !{again}.querySelector('button').disabled && {again}.querySelector('.why').hidden",
                    "Queue again offered again, its why gone")
    finally:
        app.close()


def p_cli():
    from harness import CLI
    return CLI


def test_confirm_abandon_and_resend_record_who_and_evidence(desktop):
    p = Profile()
    app = App(p)
    try:
        ext = None
        for op in ("c-1", "a-1", "r-1"):
            p.cli("send", f"Message {op} for the decisions test", "--id", op)
            ext = ext or FakeExtension(p)
            ext.make_uncertain(op)
        for op in ("c-1", "a-1", "r-1"):
            app.wait_row(op, "uncertain")
        app.shot("06-three-uncertain")

        def decide(op, who, evidence, decision):
            row = f"article[data-op='{op}']"
            app.type(f"{row} input[name=by]", who)
            app.type(f"{row} input[name=evidence]", evidence)
            app.pointer_click(f"{row} button[data-decision={decision}]")

        decide("c-1", "erin", "I see it in the chat at 10:02", "confirmed")
        app.wait_row("c-1", "history")
        e = last_event(p, "c-1")
        assert (e["to"], e["actor"], e["evidence"]) == ("confirmed", "erin", "I see it in the chat at 10:02"), e

        decide("a-1", "frank", "not in the chat; will not send", "abandoned")
        app.wait_row("a-1", "history")
        e = last_event(p, "a-1")
        assert (e["to"], e["actor"], e["evidence"]) == ("abandoned", "frank", "not in the chat; will not send"), e

        decide("r-1", "gwen", "the chat shows nothing after 10:05", "resend")
        app.wait_row("r-1", "history")
        e = last_event(p, "r-1")
        assert e["to"] == "abandoned" and e["actor"] == "gwen" and "the chat shows nothing after 10:05" in e["evidence"], e
        new = wait_until(lambda: app.js(
            "const el = [...document.querySelectorAll('[data-section=pending] article')]"
            ".find(a => a.querySelector('.link').title.includes('copy of r-1')); return el && el.dataset.op"),
            "the resend as a new pending row")
        assert p.show(new)["send"]["resend_of"] == "r-1"
        links = app.js("return [...document.querySelectorAll('.link:not([hidden])')].map(l => l.textContent).join(' ')")
        assert "r-1" not in links and new not in links, f"ids stay out of the row's words: {links}"
        app.js("document.querySelectorAll('[data-section=history] details').forEach(d => d.open = true)")
        app.shot("07-decided-history")
    finally:
        app.close()


def test_a_decision_needs_evidence(desktop):
    p = Profile()
    app = App(p)
    try:
        p.cli("send", "Check the evidence rule", "--id", "u-1")
        FakeExtension(p).make_uncertain("u-1")
        app.wait_row("u-1", "uncertain")
        app.type("article[data-op='u-1'] input[name=evidence]", " ")
        app.pointer_click("article[data-op='u-1'] button[data-decision=confirmed]")
        msg = app.wait_js("const e = document.querySelector(\"article[data-op='u-1'] .decide .error\");"
                          "return !e.hidden && e.textContent", "the evidence error")
        assert "short note" in msg, msg
        assert p.show("u-1")["send"]["state"] == "uncertain", "nothing was decided"
        app.shot("08-evidence-required")
    finally:
        app.close()


def test_keyboard_alone_confirms_an_uncertain_send(desktop):
    p = Profile()
    app = App(p)
    try:
        p.cli("send", "Keyboard only", "--id", "k-1")
        FakeExtension(p).make_uncertain("k-1")
        app.wait_row("k-1", "uncertain")
        app.js("document.activeElement && document.activeElement.blur(); document.body.focus();")
        seen = []
        # Tab from the top of the page until the evidence field has the focus.
        for _ in range(30):
            app.keys("\ue004")  # Tab
            name = app.js("const a = document.activeElement; return a ? (a.name || a.id || a.textContent.trim()) : ''")
            seen.append(name)
            if name == "evidence":
                break
        assert seen[-1] == "evidence", f"Tab never reached the evidence field: {seen}"
        assert "Stop sends" in seen or "stop" in seen, f"the Stop button is reachable by Tab: {seen}"
        ring = app.js("return getComputedStyle(document.activeElement).outlineStyle")
        assert ring != "none", "the focused field shows a focus ring"
        app.shot("09-keyboard-focus")
        for ch in "seen in chat":
            app.keys(ch)
        app.keys("\ue007")  # Enter in the field picks no decision (test_decisions.py)
        app.keys("\ue004")  # Tab to Confirm sent
        assert app.js("return document.activeElement.dataset.decision") == "confirmed"
        app.keys("\ue007")  # Enter on the button confirms, after its grace
        app.wait_row("k-1", "history")
        e = last_event(p, "k-1")
        assert (e["to"], e["evidence"]) == ("confirmed", "seen in chat"), e
    finally:
        app.close()


def test_queue_again_for_a_send_rejected_at_restart(desktop):
    p = Profile()
    # Queued while an owner ran that then died (SIGKILL): the app's recovery rejects it (it
    # never left the host). With no owner at all, `send` refuses instead (exit code 6).
    serve = subprocess.Popen([p_cli(), "--profile", p.dir, "serve", "--port", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        wait_until(lambda: serve.stdout.readline().startswith("port "), "serve to listen")
        p.cli("send", "Queued while the app was not running", "--id", "old-1")
    finally:
        serve.kill()
        serve.wait(timeout=30)
    app = App(p)
    try:
        app.wait_row("old-1", "stopped")
        assert p.show("old-1")["send"]["state"] == "rejected"
        assert app.js("return document.querySelectorAll('[data-section=pending] article').length") == 0, \
            "recovery queues nothing again by itself"
        app.click("article[data-op='old-1'] button[data-requeue]")
        new = wait_until(lambda: app.js(
            "const el = document.querySelector('[data-section=pending] article'); return el && el.dataset.op"),
            "the send queued again")
        sent = p.show(new)["send"]
        assert sent["resend_of"] == "old-1" and sent["state"] == "queued", sent
        app.wait_js("return document.querySelector(\"article[data-op='old-1'] .again\").hidden",
                    "Queue again to disappear once used")
        app.shot("10-queued-again")
    finally:
        app.close()


def test_stale_uncertain_send_is_notified_exactly_once(desktop):
    p = Profile(stale_uncertain_ms=1000)
    app = App(p)
    try:
        p.cli("send", "A private message text that must not leave the ledger", "--id", "stale-1")
        ext = FakeExtension(p)
        ext.make_uncertain("stale-1")
        # A notification names the send by its text (issue 25), the log only by its id.
        named = {"stale-1": "A private message text that must not leave the ledger",
                 "stale-2": "Second stale message"}
        mine = lambda op: [n for n in desktop.notifications() if named[op] in n["body"]]
        wait_until(lambda: mine("stale-1"), "a notification for stale-1")
        n = mine("stale-1")[0]
        assert n["app_name"] == "sendledger"
        assert "stale-1" not in n["body"], "named by its text, not a random id"
        logs = os.path.join(p.home, ".local/share/org.sendledger.app/logs")
        for name in os.listdir(logs):
            with open(os.path.join(logs, name), errors="replace") as f:
                assert "private message" not in f.read(), f"the text never reaches a log ({name})"
        assert "default" in n["actions"], "clicking the notification opens the queue"
        wait_until(lambda: p.show("stale-1")["send"]["notified_at"], "the notification recorded in the ledger")
        app.wait_js("return document.querySelector(\"article[data-op='stale-1'] .link\").textContent.includes('notified')",
                    "the row to say you were notified")
        app.shot("11-notified")
    finally:
        app.close()
    # A restart must not notify again: a second stale send is notified after the restart,
    # and by then the sweep has passed over stale-1 as well.
    app = App(p)
    try:
        p.cli("send", "Second stale message", "--id", "stale-2")
        FakeExtension(p).make_uncertain("stale-2")
        wait_until(lambda: mine("stale-2"), "a notification for stale-2 after the restart")
        assert len(mine("stale-1")) == 1, f"stale-1 notified once, not {len(mine('stale-1'))} times"
        assert len(mine("stale-2")) == 1
    finally:
        app.close()


def test_closing_the_window_keeps_the_app_in_the_tray(desktop):
    p = Profile(stale_uncertain_ms=1000)
    app = DirectApp(p)
    x = X()
    try:
        win = wait_until(lambda: x.shown(), "the queue window to show")[0]
        x.close(win)
        wait_until(lambda: not x.shown(), "the window to close")
        assert app.proc.wait(20) == 0, "the window's process ends with its window"
        assert app.alive(), "closing the window keeps the tray running"
        assert p.status() is not None and p.bridge()["pid"] == app.pid, "the owner still runs"
        tray = Tray(desktop, app.pid)
        tray.click("Open queue")
        win = wait_until(lambda: x.shown(), "Open queue to open the window again")[0]

        # A notification's click opens the window too.
        x.close(win)
        wait_until(lambda: not x.shown(), "the window to close again")
        p.cli("send", "Click the notification", "--id", "click-1")
        FakeExtension(p).make_uncertain("click-1")
        n = wait_until(lambda: [m for m in desktop.notifications() if "Click the notification" in m["body"]], "the notification")[0]
        # The app starts listening for the click just after the notification shows; a
        # click in between is not seen, so click until the window opens (as a person would).
        def click_and_look():
            desktop.invoke(n["id"], "default")
            return wait_until(lambda: x.shown(), "the window", bound=1.0)

        wait_until(click_and_look, "clicking the notification to open the window")
    finally:
        app.close()


def test_hidden_launch_goes_to_the_tray_only(desktop):
    p = Profile()
    app = DirectApp(p, args=["--hidden"])
    x = X()
    try:
        assert app.proc.wait(20) == 0, "--hidden starts the tray and leaves"
        tray = Tray(desktop, app.pid)
        assert tray.entry("Open queue")[2]
        assert not x.shown(), "--hidden (autostart) opens no window"
        # A launch from the desktop menu opens a window on the running tray's profile.
        env = {**os.environ, "HOME": p.home}
        env.pop("TAURI_WEBVIEW_AUTOMATION", None)
        second = subprocess.Popen([APP, "--profile", p.dir], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        try:
            win = wait_until(lambda: x.shown(), "the launch to open a window")[0]
            assert app.alive() and p.bridge()["pid"] == app.pid, "the tray keeps the profile"
            x.close(win)
            assert second.wait(20) == 0, second.stderr.read()
        finally:
            if second.poll() is None:
                kill(second.pid)
    finally:
        app.close()


def test_tray_menu_over_dbus_and_stop_from_the_tray(desktop):
    p = Profile()
    app = App(p)
    try:
        tray = Tray(desktop, app.pid)
        labels = [e[1] for e in tray.entries()]
        assert labels[1:] == ["Open queue", "Stop sends", "Resume…", "Pair extension…", "Quit"], labels
        # A few words, never the window's long sentence (issue 25): no tab is leased yet.
        assert labels[0] == "No tab", labels[0]
        assert tray.entry("Stop sends")[2] and not tray.entry("Resume…")[2]

        p.cli("send", "Stop me from the tray", "--id", "t-1")
        wait_until(lambda: tray.entries()[0][1] == "No tab · 1 pending", "the tray counts to show the queued send")
        tray.click("Stop sends")
        wait_until(lambda: p.status()["gate_closed"], "Stop from the tray to close the gate")
        assert p.show("t-1")["send"]["state"] == "stopped"
        wait_until(lambda: tray.entries()[0][1] == "Stopped", "the tray to show the gate closed")
        # Each entry is its own dbusmenu update: the counts may show before the buttons change.
        wait_until(lambda: not tray.entry("Stop sends")[2] and tray.entry("Resume…")[2],
                   "Stop greyed and Resume… offered")
        app.wait_row("t-1", "stopped")
        app.wait_js("return document.querySelector('#gate').classList.contains('closed')", "the window to show Stop")

        tray.click("Resume…")
        app.wait_js("return document.querySelector('#resume-dialog').open", "Resume… to ask in the window")
        app.click("#resume-form button[data-close]")

        tray.click("Pair extension…")
        code = app.wait_js("const d = document.querySelector('#pair-dialog');"
                           "return d.open && document.querySelector('#pair-code').textContent", "a pairing code")
        assert len(code) == 9 and code[4] == "-", code
        app.shot("12-pairing-code")
        app.click("#pair-dialog button[value=done]")

        p.cli("resume", "--by", "henry")
        p.cli("send", "Uncertain for the tray", "--id", "t-2")
        FakeExtension(p).make_uncertain("t-2")
        wait_until(lambda: tray.entries()[0][1].startswith("1 needs you"), "the tray to count the uncertain send")

        tray.click("Quit")
        wait_until(lambda: not app.alive() or open(f"/proc/{app.pid}/stat").read().split()[2] == "Z", "Quit to end the app")
        assert not os.path.exists(os.path.join(p.dir, "bridge.json")), "Quit shuts the owner down cleanly"
    finally:
        app.close()


def test_second_launch_hands_over_to_the_first(desktop):
    p = Profile()
    app = App(p)
    try:
        env = {**os.environ, "HOME": p.home}
        second = subprocess.run([APP, "--profile", p.dir], env=env, capture_output=True, text=True, timeout=30)
        assert second.returncode == 0, second.stderr
        assert app.alive(), "the first instance keeps running"
        assert p.bridge()["pid"] == app.pid, "the first instance still owns the profile"
    finally:
        app.close()


def test_the_app_refuses_a_profile_another_owner_holds(desktop):
    p = Profile()
    serve = subprocess.Popen([p_cli(), "--profile", p.dir, "serve"], stdout=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: "listening" in serve.stdout.readline(), "sendledger serve to start")
        env = {**os.environ, "HOME": p.home}
        r = subprocess.run([APP, "--profile", p.dir, "--hidden"], env=env, capture_output=True, text=True, timeout=30)
        assert r.returncode == 3, (r.returncode, r.stderr)
        assert "owned by another process" in r.stderr, r.stderr
        assert f"{serve.pid}" in r.stderr, "the message names the owner's pid"
    finally:
        kill(serve.pid)
        serve.wait(10)


def test_dark_theme(desktop):
    p = Profile()
    # Queued while an owner ran that then died (SIGKILL): rejected at the app's start. With
    # no owner at all `send` refuses (exit code 6), as in the queue-again test.
    serve = subprocess.Popen([p_cli(), "--profile", p.dir, "serve", "--port", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        wait_until(lambda: serve.stdout.readline().startswith("port "), "serve to listen")
        p.cli("send", "Queued before start, rejected at start", "--id", "d-0")
    finally:
        serve.kill()
        serve.wait(timeout=30)
    app = App(p, extra_env={"GTK_THEME": "Adwaita:dark"})
    try:
        p.cli("send", "Shown in the dark theme", "--id", "d-1")
        FakeExtension(p).make_uncertain("d-1")
        p.cli("send", "Pending in the dark", "--id", "d-2")
        app.wait_row("d-1", "uncertain")
        app.wait_row("d-2", "pending")
        dark = app.js("return matchMedia('(prefers-color-scheme: dark)').matches")
        bg = app.js("return getComputedStyle(document.body).backgroundColor")
        app.shot("13-dark-theme")
        assert dark, f"GTK's dark theme reaches the page (background {bg})"
        app.click("#open-connect")
        app.type("#key-name", "dark-companion")
        app.click("#key-form button[type=submit]")
        app.wait_js("return !document.querySelector('#new-key').hidden", "a key made in the dark theme")
        app.js("window.scrollTo(0, 0)")
        app.shot("13b-dark-theme-connect")
    finally:
        app.close()


def test_settings_threshold_and_autostart_with_a_space_in_the_profile_path(desktop):
    # A profile folder with a space: the log-in entry's Exec line must keep it one argument.
    p = Profile(name="my profile")
    app = App(p)
    # One entry per profile (issue 25): `sendledger-<16 hex of the profile's window id>`.
    import hashlib
    hexid = hashlib.sha256(os.fsencode(p.dir)).digest()[:8].hex()
    entry = os.path.join(p.home, ".config", "autostart", f"sendledger-{hexid}.desktop")
    try:
        app.click("#open-settings")
        app.wait_js("return document.querySelector('#settings-dialog').open", "the settings dialog")
        assert app.js("return document.querySelector('#settings-form').elements.stale_minutes.value") == "5", \
            "5 minutes by default"
        assert not app.js("return document.querySelector('#settings-form').elements.autostart.checked"), \
            "autostart is off by default"
        assert not os.path.exists(entry)
        app.type("#settings-form input[name=stale_minutes]", "2")
        app.click("#settings-form input[name=autostart]")
        app.shot("14-settings")
        app.click("#settings-form button[value=save]")
        app.wait_js("return !document.querySelector('#settings-dialog').open", "the dialog to close on save")
        with open(os.path.join(p.dir, "app.json")) as f:
            assert json.load(f)["stale_uncertain_ms"] == 120000
        text = open(entry).read()
        exec_line = next(line for line in text.splitlines() if line.startswith("Exec="))
        # The desktop entry's Exec quoting is a subset of the shell's: shlex reads it back.
        assert shlex.split(exec_line[len("Exec="):])[1:] == ["--hidden", f"--profile={p.dir}"], text

        app.click("#open-settings")
        app.wait_js("return document.querySelector('#settings-form').elements.autostart.checked", "autostart shown on")
        app.click("#settings-form input[name=autostart]")
        app.click("#settings-form button[value=save]")
        wait_until(lambda: not os.path.exists(entry), "autostart to be switched off")
    finally:
        app.close()


def test_the_default_destination_and_max_in_flight_are_set_in_the_window_and_the_header_says_where(desktop):
    p = Profile()
    app = App(p)
    form = "document.querySelector('#settings-form')"
    try:
        app.wait_js("return !document.querySelector('#default-destination').hidden", "the header's destination")
        assert app.js("return document.querySelector('#default-destination').textContent") == \
            "New sends without a place go to a new chat each time.", "a new chat until a person chooses"
        app.click("#open-settings")
        app.wait_js(f"return {form}.elements.max_in_flight.value === '1'", "one at a time by default")
        assert app.js(f"return {form}.elements.place.value") == "new_chat"
        assert app.js(f"return {form}.elements.place_id.disabled"), "a new chat takes no address"
        app.click("#settings-form input[name=place][value=project]")
        app.type("#settings-form input[name=place_id]", "https://chatgpt.com/g/g-p-0123abcd-ledgers/project")
        app.type("#settings-form input[name=max_in_flight]", "9")
        app.click("#settings-form button[value=save]")
        app.wait_js("return !document.querySelector('#settings-form .error').hidden", "the refusal of 9")
        said = app.js("return document.querySelector('#settings-form .error').textContent")
        assert "from 1 to 8" in said, said
        config = os.path.join(p.dir, "config.json")
        assert not os.path.exists(config) or "max_in_flight" not in json.load(open(config)), "nothing written"
        app.type("#settings-form input[name=max_in_flight]", "2")
        app.wait_js("return document.querySelector('#settings-form .error').hidden", "editing takes the refusal away")
        app.shot("15-settings-destination")
        app.click("#settings-form button[value=save]")
        app.wait_js("return !document.querySelector('#settings-dialog').open", "the dialog to close on save")
        shown = app.js("return document.querySelector('#default-destination').textContent")
        assert shown == "New sends without a place go to a new chat in Project g-p-0123abcd.", shown
        assert p.cli("destination", "show")["default_destination"]["project_id"] == "g-p-0123abcd", \
            "the CLI reads what the window saved"
        assert p.cli("max-in-flight")["max_in_flight"] == 2
        app.shot("16-header-destination")
    finally:
        app.close()


def test_sigterm_sigint_and_sighup_shut_the_owner_down_cleanly(desktop):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        p = Profile()
        app = DirectApp(p, binary=TRAY)
        Tray(desktop, app.pid)  # up and in the tray
        os.kill(app.pid, sig)
        assert app.proc.wait(20) == 0, (sig, app.stderr())
        assert not os.path.exists(os.path.join(p.dir, "bridge.json")), f"bridge.json removed on {sig!r}"
        assert p.cli("status")["owner"] is None, "the profile is free again"
        app.close()


def test_two_launches_at_once_share_one_tray_and_neither_is_refused(desktop):
    p = Profile()
    env = {**os.environ, "HOME": p.home}
    launches = [subprocess.Popen([APP, "--profile", p.dir, "--hidden"], env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        codes = [(l.wait(30), l.stderr.read()) for l in launches]
        assert all(c == 0 for c, _ in codes), codes
        pid = p.bridge()["pid"]
        assert pid_alive(pid)
        assert not [n for n in desktop.notifications() if "could not start" in n["summary"]], \
            "a launch that found the other's tray raises no refusal"
    finally:
        kill(p.bridge()["pid"])


def children(pid):
    """{pid: name} of the processes whose parent is `pid`."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out[int(entry)] = name
    return out


def descendants(pid):
    """{pid: name} of every live process below `pid`."""
    out, todo = {}, [pid]
    while todo:
        for c, n in children(todo.pop()).items():
            out[c] = n
            todo.append(c)
    return out


def test_closing_the_window_ends_its_process_and_every_web_process(desktop):
    p = Profile()
    app = DirectApp(p, args=["--hidden"])
    x = X()
    try:
        Tray(desktop, app.pid).click("Open queue")
        win = wait_until(lambda: x.shown(), "the queue window to show")[0]
        wait_until(lambda: any(n.startswith("WebKitWebProces") for n in descendants(app.pid).values()),
                   "the window's web process")
        window = descendants(app.pid)
        assert any(n == "sendledger-app" for n in window.values()), window
        x.close(win)
        wait_until(lambda: not x.shown(), "the window to close")
        wait_until(lambda: not any(pid_alive(c) for c in window),
                   "every process of the window (its own, WebKit's web and network processes) to exit")
        assert app.alive() and p.bridge()["pid"] == app.pid, "the owner stays in the tray"
        assert not descendants(app.pid), f"nothing of the window is left: {descendants(app.pid)}"
    finally:
        app.close()


def test_the_windows_stop_gets_through_a_tray_that_does_not_answer(desktop):
    p = Profile()
    app = App(p)
    try:
        p.cli("send", "Must not go out while the tray is stuck", "--id", "stuck-1")
        app.wait_row("stuck-1", "pending")
        os.kill(app.pid, signal.SIGSTOP)
        try:
            app.click("#stop")
            wait_until(lambda: p.status()["gate_closed"], "the window's Stop to commit the fence beside the stuck tray")
            app.wait_js("return document.querySelector('#gate').classList.contains('closed')",
                        "the window to show the gate closed at once")
        finally:
            os.kill(app.pid, signal.SIGCONT)
        assert p.show("stuck-1")["send"]["state"] == "stopped"
        app.wait_row("stuck-1", "stopped")
    finally:
        app.close()


def window_pids(profile):
    """Pids of the window processes (`sendledger-app`) on `profile`."""
    out = subprocess.run(["pgrep", "-f", f"sendledger-app --profile {profile.dir}"], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def tray_gone_shown(app):
    return app.js("const b = document.querySelector('#tray-gone');"
                  "return b && !b.hidden ? b.textContent.replace(/\\s+/g, ' ').trim() : null")


def test_a_window_whose_tray_is_killed_says_so_and_starts_it_again(desktop):
    p = Profile()
    app = App(p)
    try:
        p.cli("send", "Queued when the tray died", "--id", "killed-1")
        app.wait_row("killed-1", "pending")
        assert tray_gone_shown(app) is None, "nothing said while the tray runs"
        windows = wait_until(lambda: window_pids(p), "the window's process")
        killed = app.pid
        os.kill(killed, signal.SIGKILL)
        wait_until(lambda: not pid_alive(killed), "the tray to die")
        said = wait_until(lambda: tray_gone_shown(app), "the window to say its tray stopped")
        assert "stopped running" in said and "nothing is sent" in said, said
        assert all(pid_alive(w) for w in windows), "the window stays, saying so"
        assert app.js("return document.querySelector('main').inert"), "rows cannot be acted on meanwhile"
        assert app.js("return document.querySelector('#gate').textContent") == "Not running: nothing is sent."
        app.shot("60-tray-gone")
        app.click("#start-tray")
        app.pid = wait_until(lambda: (pid := app._pid()) != killed and pid, "a new tray to own the profile")
        wait_until(lambda: tray_gone_shown(app) is None, "the window to follow the new tray")
        assert not app.js("return document.querySelector('main').inert"), "the rows can be acted on again"
        # The new tray's recovery binned the queued send (never sends it); the window shows
        # it from the new tray's feed, and follows that feed's next commit too.
        app.wait_row("killed-1", "stopped")
        assert p.show("killed-1")["send"]["state"] == "rejected", "recovery bins a queued send, never sends it"
        p.cli("send", "Queued after the tray came back", "--id", "after-1")
        app.wait_row("after-1", "pending")
        assert len(p.cli("list")["sends"]) == 2, "nothing lost, nothing added"
        app.shot("61-tray-started-again")
    finally:
        app.close()


def test_a_snapshot_after_a_tray_restart_keeps_the_older_pages_shown_and_what_was_typed(desktop):
    """A snapshot (the whole queue) comes again whenever the window's feed opens anew: a
    tray started again, a feed that broke, or a first feed late under load after the page
    already read the queue. The window takes it without undoing what a person did: the
    older pages of History they opened stay shown, and what they typed in an uncertain
    send's decision stays while the send still asks the same question."""
    p = Profile()
    app = App(p)
    try:
        p.seed(history=300, prefix="late")
        p.cli("send", "Was this one sent before the tray died?", "--id", "typed-1")
        FakeExtension(p).make_uncertain("typed-1")
        app.wait_row("typed-1", "uncertain")
        count = "return document.querySelector(`[data-count=${arguments[0]}]`).textContent"
        app.wait_js(count + " === '200'", "the first page of History", "history")
        app.wait_js("return !document.querySelector('#older').disabled", "Show older ready")
        app.js("document.querySelector('#older').click()")  # as in rows_in_view_as_it_scrolls
        app.wait_js(count + " === '300'", "every row of History, by Show older", "history")
        row = "article[data-op='typed-1']"
        app.js("window.scrollTo(0, 0)")  # Show older scrolled History into view
        app.wait_js(f"return document.querySelector(\"{row}\") !== null", "the uncertain row in view")
        app.type(f"{row} input[name=by]", "gina")
        app.type(f"{row} input[name=evidence]", "not in the chat at 14:10")
        killed = app.pid
        os.kill(killed, signal.SIGKILL)
        wait_until(lambda: tray_gone_shown(app), "the window to say its tray stopped")
        app.click("#start-tray")
        app.pid = wait_until(lambda: (pid := app._pid()) != killed and pid, "a new tray to own the profile")
        wait_until(lambda: tray_gone_shown(app) is None, "the window to take the new tray's snapshot")
        assert app.js(count, "history") == "300", "the older page a person opened stays shown"
        typed = app.js(f"return [document.querySelector(\"{row} input[name=by]\").value, "
                       f"document.querySelector(\"{row} input[name=evidence]\").value]")
        assert typed == ["gina", "not in the chat at 14:10"], f"what was typed stays: {typed}"
        app.shot("62-snapshot-kept-what-was-typed")
    finally:
        app.close()


def test_a_tray_that_quits_closes_its_window(desktop):
    p = Profile()
    app = App(p)
    try:
        windows = wait_until(lambda: window_pids(p), "the window's process")
        kill(app.pid)
        wait_until(lambda: not any(pid_alive(w) for w in windows), "the window to end with a tray that quit")
    finally:
        app.close(tray=False)


def test_stop_from_the_tray_while_the_window_is_closed(desktop):
    p = Profile()
    app = DirectApp(p, args=["--hidden"])
    x = X()
    try:
        tray = Tray(desktop, app.pid)
        tray.click("Open queue")
        win = wait_until(lambda: x.shown(), "the queue window to show")[0]
        x.close(win)
        wait_until(lambda: not x.shown(), "the window to close")
        p.cli("send", "Stop me while the window is closed", "--id", "closed-1")
        wait_until(lambda: "1 pending" in tray.entries()[0][1], "the tray to count the queued send")
        tray.click("Stop sends")
        wait_until(lambda: p.status()["gate_closed"], "Stop from the tray to close the gate")
        assert p.show("closed-1")["send"]["state"] == "stopped"
        wait_until(lambda: tray.entries()[0][1] == "Stopped", "the tray to show the gate closed")
        assert not x.shown(), "Stop from the tray opens no window"
    finally:
        app.close()


def logged(profile, text, log="sendledger-tray.log"):
    """How many lines of the tray's log (or the window's: sendledger.log) contain `text`."""
    path = os.path.join(profile.home, ".local/share/org.sendledger.app/logs", log)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return sum(text in line for line in f)
    except FileNotFoundError:
        return 0


KEPT = "the menu's close came due: the prepared window stays"


def window_processes(tray_pid):
    """Pids of the tray's window processes (`sendledger-app`)."""
    return sorted(c for c, n in descendants(tray_pid).items() if n == "sendledger-app")


def test_the_window_prepared_while_the_menu_is_open_is_the_one_open_queue_shows(desktop):
    p = Profile()
    app = DirectApp(p, args=["--hidden"])
    x = X()
    try:
        tray = Tray(desktop, app.pid)
        tray.open_menu()
        prepared = wait_until(lambda: window_processes(app.pid), "a window process prepared while the menu is open")
        wait_until(lambda: any(n.startswith("WebKitWebProces") for n in descendants(app.pid).values()),
                   "the prepared window's web process")
        assert not x.shown(), "a prepared window is not shown before it is asked for"
        # Closed and opened again at once (a person re-opening the menu): the close seen
        # first no longer ends it.
        tray.close_menu()
        tray.open_menu()
        wait_until(lambda: logged(p, KEPT), "the close's grace to come due")
        assert window_processes(app.pid) == prepared, "the menu opened again keeps the prepared window"
        tray.click("Open queue")
        tray.close_menu()
        win = wait_until(lambda: x.shown(), "Open queue to show the prepared window")[0]
        assert window_processes(app.pid) == prepared, "the prepared process shows it: no second window process"
        # Shown, it is no longer the tray's to let go: the menu's close ends nothing.
        assert x.shown() and window_processes(app.pid) == prepared, "a shown window outlives the menu"
        x.close(win)
        wait_until(lambda: not descendants(app.pid), "the window's processes to exit when it closes")
    finally:
        app.close()


def test_a_menu_closed_without_open_queue_or_stopped_from_leaves_no_window_process(desktop):
    p = Profile()
    app = DirectApp(p, args=["--hidden"])
    x = X()
    try:
        tray = Tray(desktop, app.pid)
        tray.open_menu()
        wait_until(lambda: any(n.startswith("WebKitWebProces") for n in descendants(app.pid).values()),
                   "a window prepared while the menu is open, with its web process")
        tray.close_menu()
        wait_until(lambda: not descendants(app.pid), "the prepared window and WebKit's processes to exit",
                   bound=10.0)  # it would end by itself only after 20 s
        assert not x.shown(), "a menu closed without Open queue shows no window"
        # Stop from the menu: the prepared window is killed at once, and the gate closes.
        tray.open_menu()
        wait_until(lambda: window_processes(app.pid), "a window prepared for the menu opened again")
        tray.click("Stop sends")
        wait_until(lambda: p.status()["gate_closed"], "Stop from the tray to close the gate")
        wait_until(lambda: not window_processes(app.pid), "Stop to end the prepared window before the menu closes",
                   bound=10.0)  # it would end by itself only after 20 s
        tray.close_menu()
        assert not x.shown()
    finally:
        app.close()


# Holds a profile's single-instance name as a window that is closing does, and drops the
# first hand-over without an answer (exits), as that window's ending does; with "refuse",
# answers every hand-over with an error and stays.
CLOSING_WINDOW = r"""
import os, sys, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = sys.argv[1]
mode = sys.argv[2] if len(sys.argv) > 2 else "drop"
class Closing(dbus.service.Object):
    @dbus.service.method("org.SingleInstance.DBus", in_signature="ass", out_signature="",
                         async_callbacks=("ok", "err"))
    def ExecuteCallback(self, argv, cwd, ok, err):
        print(mode, flush=True)
        if mode == "refuse":
            err(dbus.exceptions.DBusException("org.sendledger.Test.Refused"))
        elif mode == "take-and-go":
            # Takes the launch, then ends at once: its close was already on its way.
            ok()
            bus.flush()
            GLib.timeout_add(20, lambda: os._exit(0))
        elif mode == "drop":
            os._exit(0)
        # "silent": never answers (a window stuck on its main loop).
held = dbus.service.BusName(name, bus, do_not_queue=True)
Closing(bus, "/" + name.replace(".", "/").replace("-", "_"))
print("holding", flush=True)
GLib.MainLoop().run()
"""


_unread = {}


def line_within(stream, seconds):
    """The next line of a child's stdout without its line break, or None after `seconds`
    (read from the descriptor, so lines that arrive together are all seen)."""
    import select
    fd, deadline = stream.fileno(), time.monotonic() + seconds
    while b"\n" not in _unread.get(fd, b""):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 4096)
        if not chunk:
            return None
        _unread[fd] = _unread.get(fd, b"") + chunk
    line, _, rest = _unread[fd].partition(b"\n")
    _unread[fd] = rest
    return line.decode()


def window_bus_name(profile):
    """The profile's single-instance name (`Profile::window_bus_id` + the plugin's suffix)."""
    import hashlib
    digest = hashlib.sha256(os.path.realpath(profile.dir).encode()).hexdigest()[:16]
    return f"org.sendledger.app.profile_{digest}.SingleInstance"


class NameHolder:
    """The profile's single-instance name held by a stand-in window (CLOSING_WINDOW) that
    treats a launch's hand-over as `mode` says, beside a running tray."""

    def __init__(self, mode):
        self.profile = Profile()
        self.app = DirectApp(self.profile, args=["--hidden"])
        self.proc = subprocess.Popen(["/usr/bin/python3", "-c", CLOSING_WINDOW, window_bus_name(self.profile),
                                      mode], stdout=subprocess.PIPE, text=True)
        assert line_within(self.proc.stdout, 10) == "holding"

    def launch(self, **kw):
        p = self.profile
        return subprocess.Popen([APP, "--profile", p.dir], env={**os.environ, "HOME": p.home}, **kw)

    def run_launch(self, timeout):
        p = self.profile
        return subprocess.run([APP, "--profile", p.dir], env={**os.environ, "HOME": p.home},
                              capture_output=True, text=True, timeout=timeout)

    def close(self, *procs):
        for proc in (self.proc, *procs):
            if proc and proc.poll() is None:
                proc.kill()
                proc.wait(10)
        self.app.close()


def launch_opens_its_own_window(mode):
    """A launch beside a stand-in in `mode` that lets go of the name opens the window
    itself, with no panic. Returns what the stand-in printed when it was handed the launch."""
    held = NameHolder(mode)
    x = X()
    launch = None
    try:
        err = open(os.path.join(held.profile.root, "launch.err"), "w+")
        launch = held.launch(stdout=subprocess.DEVNULL, stderr=err, text=True)
        win = wait_until(lambda: x.shown(), "the launch to open the window once the closing one is gone")[0]
        said = line_within(held.proc.stdout, 1)
        assert held.proc.wait(10) == 0, "the closing window was handed the launch first"
        assert x.pid_of(win) == launch.pid, "the launch itself is the window"
        x.close(win)
        assert launch.wait(20) == 0
        err.seek(0)
        assert "panicked" not in err.read()
        return said
    finally:
        held.close(launch)


def test_a_launch_whose_hand_over_a_closing_window_drops_opens_the_window_itself(desktop):
    """A launch as the profile's window closes hands over to it; the closing window may drop
    the hand-over unanswered (seen under load: the launch panicked and no window opened).
    The launch starts again and, the name now free, is the window."""
    assert launch_opens_its_own_window("drop") == "drop"


def test_a_launch_the_running_window_keeps_refusing_says_so_and_exits(desktop):
    """Starting again is bounded: a window that answers every hand-over with an error gets
    three tries, then the launch says what happened and what to do, with no panic."""
    held = NameHolder("refuse")
    try:
        launch = held.run_launch(timeout=30)
        assert launch.returncode == 4, (launch.returncode, launch.stderr)
        said = launch.stderr.strip().splitlines()[-1]
        assert said.startswith("sendledger could not open its window: the profile's window did not take the launch"), said
        assert "3 times; open it again from the tray" in said, said
        assert "panicked" not in launch.stderr
        assert [line_within(held.proc.stdout, 10) for _ in range(3)] == ["refuse"] * 3, "three tries in all"
        assert line_within(held.proc.stdout, 1) is None, "no fourth try"
    finally:
        held.close()


def test_a_launch_the_running_window_never_answers_says_so_within_its_bound(desktop):
    """A window that holds the profile's name but never answers (stuck) does not make a
    launch hang: within the answer bound (5 s) it says what to do, naming the process."""
    held = NameHolder("silent")
    try:
        began = time.monotonic()
        launch = held.run_launch(timeout=60)
        took = time.monotonic() - began
        # A bound, not a speed: without one the launch waits for the bus's own 25 s.
        assert took < 20, f"the launch took {took:.1f} s to give up"
        assert launch.returncode == 4, (launch.returncode, launch.stderr)
        said = launch.stderr.strip().splitlines()[-1]
        assert "the profile's window did not answer within 5 s" in said, said
        assert f"kill {held.proc.pid}" in said, said
        assert line_within(held.proc.stdout, 1) == "silent", "it was asked once"
    finally:
        held.close()


def test_a_launch_taken_by_a_window_that_closes_at_once_opens_a_window_itself(desktop):
    """A close and a launch at the same instant: the window takes the launch, then its
    close (already on its way) ends it. The launch sees the window go and opens its own."""
    assert launch_opens_its_own_window("take-and-go") == "take-and-go"


def test_the_xembed_icons_menu_prepares_the_window_too(desktop):
    """No StatusNotifier host: the menu pops up on the XEmbed icon in a real tray (trayer),
    clicked and driven with the keyboard as a person would."""
    trayer = xembed_tray()
    p = Profile()
    app = DirectApp(p, args=["--hidden"])
    x = X()
    try:
        # One right click, once the icon is in the tray: a second click could land on the
        # popped-up menu's first entry (Open queue) and show the window.
        wait_until(lambda: icon_in_xembed_tray(x, TEAL), "the tray's icon to be embedded in the XEmbed tray")
        x.xembed_menu()
        wait_until(lambda: window_processes(app.pid),
                   "a right click on the XEmbed icon to pop up the menu and prepare a window")
        assert not x.shown(), "a prepared window is not shown"
        x.key("Escape")
        wait_until(lambda: not descendants(app.pid), "the prepared window to exit once the menu closed",
                   bound=10.0)  # it would end by itself only after 20 s
        x.xembed_menu()
        prepared = wait_until(lambda: window_processes(app.pid), "a window prepared for the menu popped up again")
        x.key("Down")  # the first entry that can be chosen: Open queue
        x.key("Return")
        win = wait_until(lambda: x.shown(), "Open queue to show the prepared window")[0]
        assert window_processes(app.pid) == prepared, "the prepared process shows it"
        x.close(win)
        wait_until(lambda: not descendants(app.pid), "the window's processes to exit when it closes")
    finally:
        app.close()
        trayer.terminate()
        trayer.wait(10)


test_the_xembed_icons_menu_prepares_the_window_too.desktop = {"tray_host": False}


def test_a_menu_opened_over_an_open_window_prepares_nothing_and_resume_still_asks(desktop):
    """A window that already runs is not raised by the menu opening (a prepared window
    would hand over to it), and Resume… chosen the instant the menu opens still asks."""
    p = Profile()
    app = App(p)
    try:
        p.cli("stop", "--by", "menu-test")
        app.wait_js("return !document.querySelector('#resume').hidden", "Resume to be offered")
        tray = Tray(desktop, app.pid)
        assert not window_processes(app.pid), "the WebDriver window is not the tray's child"
        tray.open_menu()
        tray.click("Resume…")
        tray.close_menu()
        app.wait_js("return document.querySelector('#resume-dialog').open",
                    "Resume… to ask who resumes in the window that was open")
        wait_until(lambda: logged(p, "a queue window of this profile runs: nothing prepared"),
                   "the tray to see the open window and prepare nothing")
        # The tray's launch for Resume… passes its intent to the open window, stays 250 ms
        # to see the window keep it, and exits.
        wait_until(lambda: not window_processes(app.pid),
                   "nothing prepared, nothing left: the open window took the intent")
    finally:
        app.close()


def test_stop_leaves_a_window_shown_by_a_desktop_launch_and_closes_spare_ones_once(desktop):
    """Stop lets go of a prepared window, but one a desktop launch showed meanwhile stays;
    a flood of menu "closed" events starts one timer, not a thread each."""
    p = Profile()
    app = DirectApp(p, args=["--hidden"])
    x = X()
    try:
        tray = Tray(desktop, app.pid)
        tray.open_menu()
        prepared = wait_until(lambda: window_processes(app.pid), "a window prepared while the menu is open")
        threads_before = len(os.listdir(f"/proc/{app.pid}/task"))
        most = threads_before
        for i in range(600):
            tray.event(0, "closed")
            if i % 50 == 0:
                most = max(most, len(os.listdir(f"/proc/{app.pid}/task")))
        assert most <= threads_before + 3, f"{most} threads after 600 closes (from {threads_before})"
        tray.open_menu()  # opened again: the closes no longer end it
        launch = DirectApp(p)  # the desktop's launcher: hands over to the prepared window
        win = wait_until(lambda: x.shown(), "the desktop launch to show the prepared window")[0]
        # The launch stays 250 ms to see the window keep it (a window closed sooner is one
        # whose close raced the launch, and the launch opens its own).
        assert launch.proc.wait(10) == 0
        assert window_processes(app.pid) == prepared
        tray.click("Stop sends")
        wait_until(lambda: p.status()["gate_closed"], "Stop from the tray to close the gate")
        tray.close_menu()
        wait_until(lambda: logged(p, "let go after it was shown: it stays", log="sendledger.log"),
                   "the window to hear the tray let go of it")
        assert x.shown() == [win], "the window a person opened stays after Stop"
        x.close(win)
        wait_until(lambda: not descendants(app.pid), "the window's processes to exit when it closes")
    finally:
        app.close()


def test_a_launch_as_the_menu_opens_shows_the_window_and_two_profiles_keep_their_own(desktop):
    """A desktop launch the moment a window is being prepared shows it (it was asked for
    while still being built); a window prepared for one profile never takes another
    profile's Open queue (one single-instance name per profile)."""
    p, q = Profile(), Profile()
    a = DirectApp(p, args=["--hidden"])
    b = DirectApp(q, args=["--hidden"])
    x = X()
    try:
        tray_a, tray_b = Tray(desktop, a.pid), Tray(desktop, b.pid)
        tray_a.open_menu()
        wait_until(lambda: window_processes(a.pid), "a window prepared for profile A")
        launch = DirectApp(p)  # the desktop's launcher, as the window is being built
        tray_a.close_menu()
        # Whichever takes the profile's window name first shows it: the prepared window (the
        # launch hands over and exits) or the launch (the prepared one hands over, and goes).
        win = wait_until(lambda: x.shown(), "the launch to show a window of profile A")[0]
        if x.pid_of(win) != launch.proc.pid:
            # Handed over: the launch stays 250 ms to see the window keep it (a window
            # closing that soon after taking a launch is one whose close raced the launch,
            # and the launch opens its own, on purpose).
            assert launch.proc.wait(10) == 0
        x.close(win)
        wait_until(lambda: launch.proc.poll() is not None and not descendants(a.pid),
                   "every window process of profile A to exit once its window closed")
        # Every window process has exited; the X server drops their windows as it reads
        # the closed connections (behind, under load).
        wait_until(lambda: not x.shown(), "no window left once every window process exited")
        # Profile A's menu prepares a window; profile B's Open queue opens B's own.
        tray_a.open_menu()
        prepared_a = wait_until(lambda: window_processes(a.pid), "a window prepared for profile A again")
        tray_b.click("Open queue")
        shown = wait_until(lambda: x.shown(), "profile B's window")[0]
        assert x.pid_of(shown) in window_processes(b.pid), "profile B's window is B's own process"
        assert len(x.shown()) == 1 and window_processes(a.pid) == prepared_a, "A's prepared window stays hidden"
        tray_a.close_menu()
    finally:
        a.close()
        b.close()


def test_a_tray_killed_while_a_window_is_prepared_leaves_no_window_process(desktop):
    p = Profile()
    app = DirectApp(p, args=["--hidden"])
    x = X()
    try:
        Tray(desktop, app.pid).open_menu()
        wait_until(lambda: any(n.startswith("WebKitWebProces") for n in descendants(app.pid).values()),
                   "a window prepared while the menu is open, with its web process")
        prepared = {c: n for c, n in descendants(app.pid).items()}
        os.kill(app.pid, signal.SIGKILL)
        wait_until(lambda: not any(pid_alive(c) for c in prepared),
                   "the prepared window and WebKit's processes to end with the tray",
                   bound=10.0)  # it would end by itself only after 20 s
        assert not x.shown(), "a tray killed mid-prepare shows no window"
    finally:
        app.close()


def test_a_prepared_window_nobody_asks_for_ends_by_itself(desktop):
    """`sendledger-app --prepared` reads at most 4 KiB of stdin and waits at most 20 s for
    its `show` line, whatever the process that started it does."""
    p = Profile()
    app = DirectApp(p, args=["--hidden"])
    x = X()
    env = {**os.environ, "HOME": p.home}
    env.pop("TAURI_WEBVIEW_AUTOMATION", None)
    started = []
    try:
        def prepared():
            w = subprocess.Popen([APP, "--profile", p.dir, "--from-tray", "--prepared"], env=env,
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            started.append(w)
            wait_until(lambda: any(n.startswith("WebKitWebProces") for n in descendants(w.pid).values()),
                       "the prepared window's web process")
            return w
        # Lines it does not know, then more than it reads: taken as the end of its input.
        chatty = prepared()
        chatty.stdin.write(b"hello\n" + b"x" * 5000)
        chatty.stdin.flush()
        wait_until(lambda: chatty.poll() is not None, "a prepared window fed 5,000 bytes and no show to exit",
                   bound=10.0)  # it would end by itself only after 20 s
        # Nothing at all, its stdin held open: it ends at its own bound.
        silent = prepared()
        wait_until(lambda: silent.poll() is not None, "a prepared window nobody asks for to exit by itself",
                   bound=30.0)  # its bound is 20 s from its start
        assert chatty.returncode == 0 and silent.returncode == 0
        assert not x.shown(), "neither was ever shown"
    finally:
        for w in started:
            if w.poll() is None:
                kill(w.pid)
        app.close()


def test_a_reopened_window_shows_live_rows(desktop):
    p = Profile()
    app = App(p)
    x = X()
    try:
        p.cli("send", "Seen before the window closed", "--id", "before-1")
        app.wait_row("before-1", "pending")
        x.close(wait_until(lambda: x.shown(), "the queue window")[0])
        wait_until(lambda: not x.shown(), "the window to close")
        p.cli("send", "Queued while the window was closed", "--id", "closed-2")
        Tray(desktop, app.pid).click("Open queue")
        x.close(wait_until(lambda: x.shown(), "Open queue to open the window again")[0])
        wait_until(lambda: not x.shown(), "the tray's window to close")
        # Opened again by a launch WebDriver drives: a new window process on the same tray.
        app.close(tray=False)
        again = App(p)
        try:
            assert again.pid == app.pid, "the same tray owns the profile"
            again.wait_row("closed-2", "pending")
            again.wait_row("before-1", "pending")
            # Live: a change committed after the window opened again is pushed to it.
            p.cli("stop", "--by", "reopen-test")
            again.wait_row("closed-2", "stopped")
            again.wait_row("before-1", "stopped")
        finally:
            again.close(tray=False)
    finally:
        app.close()


def test_no_file_outside_the_profile_holds_a_messages_text(desktop):
    """A message's text lives in the ledger and nowhere else: after the window showed it,
    no file under HOME (the app's logs, the web view's cache, cookies and storage) holds
    it, while the window is open and after it closed."""
    p = Profile()
    app = App(p)
    text = "A sentence that must stay in the ledger 7f3c"

    def files_holding_the_text():
        held = []
        for root, _dirs, files in os.walk(p.home):
            for name in files:
                path = os.path.join(root, name)
                try:
                    with open(path, "rb") as f:
                        data = f.read()
                    # UTF-8 (logs, JSON) or UTF-16 (WebKit keeps page storage that way).
                    if any(text.encode(c) in data for c in ("utf-8", "utf-16-le", "utf-16-be")):
                        held.append(path)
                except OSError:
                    pass  # a socket or a file gone meanwhile
        return held

    try:
        p.cli("send", text, "--id", "private-1")
        app.wait_row("private-1", "pending")
        assert text in app.js("return document.body.innerText"), "the window shows it"
        held = files_holding_the_text()
        assert held == [], f"while the window is open: {held}"
    finally:
        app.close()
    held = files_holding_the_text()
    assert held == [], f"after the app closed: {held}"


def text_of(app, css):
    return app.js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null", css)


def shown(app, css):
    """Whether the element is laid out (not hidden, not display: none)."""
    return app.js("const e = document.querySelector(arguments[0]); return !!e && e.getClientRects().length > 0", css)


def key_revoked_by(profile, name):
    """Who revoked key `name`, read from the ledger file itself (read-only)."""
    import sqlite3
    db = sqlite3.connect(f"file:{os.path.join(profile.dir, 'ledger.sqlite3')}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT revoked_by FROM api_keys WHERE name = ? ORDER BY seq DESC LIMIT 1", (name,)).fetchone()
    finally:
        db.close()
    return row and row[0]


def make_key_in_the_window(app, name):
    app.type("#key-name", name)
    app.click("#key-form button[type=submit]")


def test_a_key_made_in_the_connect_panel_opens_the_door_until_it_is_revoked_there(desktop):
    p = Profile()
    app = App(p)
    try:
        app.click("#open-connect")
        base = app.wait_js("const c = document.querySelector('#connect');"
                           "return !c.hidden && document.querySelector('#base-url').textContent.startsWith('http') &&"
                           " document.querySelector('#base-url').textContent", "the Connect panel with the base URL")
        assert base == f"http://{p.bridge()['address']}/v1", (base, p.bridge())
        assert not shown(app, "#pending"), "the panel stands in for the queue"

        make_key_in_the_window(app, "my-companion")
        secret = app.wait_js("return !document.querySelector('#new-key').hidden &&"
                             " document.querySelector('#new-secret').textContent", "the new key's secret")
        assert secret.startswith("sk-sl-") and len(secret) == 6 + 64, secret
        assert "will not be shown again" in text_of(app, "#new-key")
        app.wait_js("return !!document.querySelector(\"tr[data-key='my-companion'] button[data-revoke]\")",
                    "the key listed with a Revoke button")
        assert secret not in text_of(app, "table.keys"), "the list never shows a secret"
        for snippet in ("#snippet-python", "#snippet-node"):
            assert base in text_of(app, snippet) and secret in text_of(app, snippet), snippet

        status, _, body = bridge_get(p, "/v1/models", secret)
        assert status == 200 and body["data"][0]["id"] == "chatgpt-tab", (status, body)
        listed = p.cli("keys", "list")["keys"]
        assert [(k["name"], k["created_by"], k["last_used_at"] is not None) for k in listed] == \
            [("my-companion", os_user(), True)], listed
        app.js("window.scrollTo(0, 0)")
        app.shot("15-connect-key-made")
        app.js("document.querySelector('#snippet-mcp').scrollIntoView({block: 'end'})")
        app.shot("16-connect-snippets")

        # Refusals are the core's sentences, and write nothing.
        make_key_in_the_window(app, "my-companion")
        dup = app.wait_js("const e = document.querySelector('#key-error'); return !e.hidden && e.textContent",
                          "the duplicate-name refusal")
        assert "already named" in dup and "choose another name" in dup, dup
        make_key_in_the_window(app, "no spaces!")
        bad = app.wait_js("const e = document.querySelector('#key-error');"
                          "return !e.hidden && e.textContent.includes('malformed') && e.textContent",
                          "the malformed-name refusal")
        assert "1 to 64 letters" in bad, bad
        assert len(p.cli("keys", "list")["keys"]) == 1, "a refused name writes nothing"

        # Shown once: back to the queue and into the panel again, the secret is nowhere.
        app.click("#close-connect")
        app.wait_js("return document.querySelector('#connect').hidden", "the queue again")
        app.click("#open-connect")
        app.wait_js("return !!document.querySelector(\"tr[data-key='my-companion']\")", "the panel again")
        assert secret not in app.js("return document.documentElement.outerHTML"), "the secret is shown once"
        assert "sk-sl-…" in text_of(app, "#snippet-python"), "the snippets fall back to a placeholder"
        assert text_of(app, "tr[data-key='my-companion'] td:nth-child(4)") != "never", "the list shows its last use"

        app.click("tr[data-key='my-companion'] button[data-revoke]")
        app.wait_js("return document.querySelector('#revoke-dialog').open", "the Revoke dialog")
        assert "my-companion" in text_of(app, "#revoke-h")
        app.click("#revoke-form button[value=revoke]")
        app.wait_js("const r = document.querySelector(\"tr[data-key='my-companion']\");"
                    "return r && r.classList.contains('revoked') && !r.querySelector('button')",
                    "the key listed as revoked")
        assert key_revoked_by(p, "my-companion") == os_user(), "a revocation is the OS user's decision"
        status, headers, body = bridge_get(p, "/v1/models", secret)
        assert status == 401 and headers.get("x-should-retry") == "false", (status, headers, body)
        assert body["error"]["code"] == "invalid_api_key", body
    finally:
        app.close()


def test_the_connect_panel_makes_a_send_key_and_shows_the_ssh_line_and_settings_for_another_machine(desktop):
    p = Profile()
    app = App(p)
    try:
        app.click("#open-connect")
        app.wait_js("return document.querySelector('#ssh-line').textContent.startsWith('ssh ')",
                    "the ssh line")
        port = p.bridge()["address"].rsplit(":", 1)[1]
        ssh = text_of(app, "#ssh-line")
        assert ssh == f"ssh -N -L {port}:127.0.0.1:{port} {os_user()}@{socket.gethostname()}", ssh
        assert "SENDLEDGER_API_KEY=sk-sl-…" in text_of(app, "#remote-settings"), "a placeholder before a key"
        assert app.js("return document.querySelector('#key-scope').value") == "send", "send is the default"
        make_key_in_the_window(app, "build-server")
        secret = app.wait_js("return !document.querySelector('#new-key').hidden &&"
                             " document.querySelector('#new-secret').textContent", "the new key's secret")
        settings = text_of(app, "#remote-settings")
        assert f"SENDLEDGER_OWNER_URL=http://127.0.0.1:{port}" in settings, settings
        assert f"SENDLEDGER_API_KEY={secret}" in settings, settings
        app.wait_js("return !!document.querySelector(\"tr[data-key='build-server']\")", "the key listed")
        assert text_of(app, "tr[data-key='build-server'] td.key-scope") == "send"
        assert [(k["name"], k["scope"]) for k in p.cli("keys", "list")["keys"]] == [("build-server", "send")]
        status, _, body = bridge_get(p, "/v1/sends", secret)
        assert status == 200, "a send key reads sends: " + json.dumps(body)
        status, _, body = bridge_get(p, "/v1/keys", secret)
        assert (status, body["code"]) == (403, "wrong_scope") and "scope send" in body["message"], body
        app.js("document.querySelector('#remote').scrollIntoView({block: 'start'})")
        app.shot("17-connect-another-machine")
        app.js("document.querySelector('#key-scope').value = 'all'")
        make_key_in_the_window(app, "my-laptop")
        app.wait_js("return !!document.querySelector(\"tr[data-key='my-laptop']\")", "the second key listed")
        assert text_of(app, "tr[data-key='my-laptop'] td.key-scope") == "all"
    finally:
        app.close()


def test_the_connect_panels_snippets_parse_and_its_mcp_entry_is_what_mcp_config_prints(desktop):
    p = Profile()
    app = App(p)
    try:
        # Keyboard: Tab reaches the Connect button, Enter opens the panel.
        app.js("document.activeElement && document.activeElement.blur(); document.body.focus();")
        for _ in range(15):
            app.keys("\ue004")  # Tab
            if app.js("return document.activeElement.id") == "open-connect":
                break
        assert app.js("return document.activeElement.id") == "open-connect", "Tab reaches Connect"
        app.keys("\ue007")  # Enter
        app.wait_js("return document.querySelector('#snippet-mcp').textContent.includes('mcpServers')",
                    "the panel opened from the keyboard")
        mcp = json.loads(text_of(app, "#snippet-mcp"))
        printed = json.loads(subprocess.run([p_cli(), "--profile", p.dir, "mcp", "--config"], capture_output=True,
                                            text=True, timeout=30, check=True).stdout)
        assert mcp == printed, (mcp, printed)
        entry = mcp["mcpServers"]["sendledger"]
        assert os.access(entry["command"], os.X_OK) and entry["args"] == ["--profile", p.dir, "mcp"], entry

        python = text_of(app, "#snippet-python")
        compile(python, "snippet.py", "exec")
        node_file = os.path.join(p.root, "snippet.mjs")
        with open(node_file, "w") as f:
            f.write(text_of(app, "#snippet-node"))
        checked = subprocess.run(["node", "--check", node_file], capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, checked.stderr
        claude = text_of(app, "#connect-claude")
        assert all(w in claude for w in ('site: "claude"', '"claude-tab"', "claude.ai/chat/")), claude
        app.keys("\ue00c")  # Escape goes back to the queue
        app.wait_js("return document.querySelector('#connect').hidden && "
                    "document.activeElement.id === 'open-connect'", "Escape to close the panel")
    finally:
        app.close()


def test_the_first_run_guide_shows_folder_steps_and_a_code_until_a_tab_is_leased(desktop):
    p = Profile()
    app = App(p)
    try:
        code = app.wait_js("const c = document.querySelector('#guide-code').textContent;"
                           "return /^[A-Z0-9]{4}-[A-Z0-9]{4}$/.test(c) && c", "the pairing code inline")
        assert shown(app, "#first-run") and not shown(app, "#pending"), "the guide stands in for the queue"
        folder = text_of(app, "#extension-dir")
        assert os.path.isfile(os.path.join(folder, "manifest.json")), f"the guide names the extension folder: {folder}"
        steps = app.js("return [...document.querySelectorAll('#first-run ol.steps > li')].map(l => l.textContent)")
        assert len(steps) == 3, steps
        assert "chrome://extensions" in steps[0] and "Developer mode" in steps[0], steps
        assert "Load unpacked" in steps[1] and code in steps[2] and "Pair" in steps[2], steps
        assert "names no conversation starts a new chat" in text_of(app, "#first-run"), \
            "where a send goes by default (issue 27: a new chat)"
        app.click("#copy-dir")
        said = app.wait_js("return document.querySelector('#copied').textContent", "the Copy button to answer")
        assert said in ("copied", "selected: press Ctrl+C"), said
        app.shot("00-first-run")

        # The code shown is a real one: the extension pairs with it, and once its tab is
        # leased the guide turns into the queue.
        ext = FakeExtension(p, code=code)
        ext.post("/v1/ext/lease", {"tab_id": "1"})
        app.wait_js("return document.querySelector('#first-run').hidden", "the guide to give way once a tab is leased")
        assert shown(app, "#pending") and shown(app, "#uncertain"), "the queue shows"
        app.shot("00b-first-run-leased")
    finally:
        app.close()


TEAL, AMBER, RED = (0x0F, 0x76, 0x6E), (0xF5, 0x9E, 0x0B), (0xC8, 0x1E, 0x1E)


def icon_in_xembed_tray(x, rgb, name="xembed-tray"):
    """Whether the `xembed_tray()` in the top-right corner shows an icon of colour `rgb`."""
    box = (64, 48, x.root.get_geometry().width - 64, 0)
    return colour_share(x.shot(name), box, rgb) > 0.15


def test_tray_icon_shows_each_state_in_a_real_tray(desktop):
    # A real XEmbed system tray (trayer) in the top-right corner; the app's indicator falls
    # back to it because this desktop has no StatusNotifier host.
    trayer = xembed_tray()
    p = Profile()
    app = DirectApp(p, args=["--hidden"])
    x = X()

    def showing(name, rgb):
        wait_until(lambda: icon_in_xembed_tray(x, rgb, name), f"the tray to show the {name} icon")

    try:
        showing("20-tray-normal", TEAL)
        p.cli("send", "Make me uncertain", "--id", "i-1")
        FakeExtension(p).make_uncertain("i-1")
        showing("21-tray-needs-attention", AMBER)
        p.cli("resolve", "i-1", "--abandoned", "--by", "ivy", "--evidence", "tray test")
        p.cli("stop", "--by", "ivy")
        showing("22-tray-stopped", RED)
    finally:
        app.close()
        trayer.terminate()
        trayer.wait(10)


test_tray_icon_shows_each_state_in_a_real_tray.desktop = {"tray_host": False}


def test_the_packages_prerm_ends_the_tray_and_window_and_removes_their_log_in_entries(desktop):
    """packaging/prerm.sh (the .deb's pre-removal script), run against this build's binaries
    and this test's home: the running tray and window end, the log-in entry that starts the
    window is removed, another program's entry stays (issue 25: after `apt remove` the tray
    kept running and the entry pointed at a deleted binary)."""
    p = Profile()
    app = App(p)
    bin_dir = os.path.dirname(os.path.abspath(APP))
    autostart = os.path.join(p.home, ".config", "autostart")
    os.makedirs(autostart, exist_ok=True)
    ours = os.path.join(autostart, "sendledger-0123456789abcdef.desktop")
    other = os.path.join(autostart, "other.desktop")
    with open(ours, "w") as f:
        f.write(f"[Desktop Entry]\nType=Application\nExec={bin_dir}/sendledger-app --hidden --profile={p.dir}\n")
    with open(other, "w") as f:
        f.write("[Desktop Entry]\nType=Application\nExec=/usr/bin/true\n")
    try:
        def exe(pid):
            try:
                return os.readlink(f"/proc/{pid}/exe")
            except OSError:
                return None
        window = [pid for pid in os.listdir("/proc")
                  if pid.isdigit() and exe(pid) == os.path.join(bin_dir, "sendledger-app")]
        assert window, "the window runs"
        root = os.path.join(os.path.dirname(__file__), "..", "..")
        out = subprocess.run(["sh", os.path.join(root, "packaging", "prerm.sh"), "remove"],
                             env={**os.environ, "SENDLEDGER_BIN_DIR": bin_dir, "SENDLEDGER_HOMES": p.home},
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        wait_until(lambda: not app.alive(), "the tray to end")
        wait_until(lambda: not any(pid_alive(int(w)) for w in window), "the window to end")
        assert not os.path.exists(os.path.join(p.dir, "bridge.json")), "the tray quit cleanly (SIGTERM)"
        assert not os.path.exists(ours), "the log-in entry of the removed binary is gone"
        assert os.path.exists(other), "another program's entry stays"
    finally:
        app.close()


def rows_in_page(app):
    """(how many row elements the page holds, the op ids of those in view, top to bottom)."""
    return app.js("const all = [...document.querySelectorAll('article.row')];"
                  "const seen = all.filter(el => { const r = el.getBoundingClientRect();"
                  "  return r.bottom > 0 && r.top < window.innerHeight; });"
                  "return [all.length, seen.map(el => el.dataset.op)];")


def test_the_page_holds_only_the_rows_in_view_with_300_pending_and_1000_of_history(desktop):
    """Issue 39: a heavy user's queue costs the page a few dozen row elements, not one per
    send. A window opened on 300 pending, 20 stopped and 1,000 of history (all of History
    shown with Show older) holds at most MAX_ROWS_SHOWN (ui/visible.js) row elements
    wherever it is scrolled; the rows in view are the right ones, in order; the counts say
    every row, and no section whose rows are out of view says it is empty."""
    p = Profile()
    tray = DirectApp(p, args=["--hidden"])
    try:
        assert tray.proc.wait(20) == 0, "--hidden starts the tray and leaves"
        empty = App(p)
        empty.shot("39-01-empty")
        empty.close(tray=False)
        # The next window must be a process of its own: a launch while this one is still
        # ending would hand itself over to it (single instance) and WebDriver would wait
        # for a window that never comes.
        wait_until(lambda: not window_pids(p), "the first window's process to end")
        p.seed(pending=300, stopped=20, history=1000)
        app = App(p)
        try:
            rows_in_view_as_it_scrolls(app)
        finally:
            app.close(tray=False)
    finally:
        tray.close()


def rows_in_view_as_it_scrolls(app):
    count = "return document.querySelector(`[data-count=${arguments[0]}]`).textContent"
    for section, n in (("pending", 300), ("stopped", 20), ("history", 200)):
        app.wait_js(count + f" === '{n}'", f"{n} {section} rows counted", section)
    for shown in (400, 600, 800, 1000):  # Show older, until History holds every send
        app.wait_js("return !document.querySelector('#older').disabled", "Show older ready for the next page")
        # The button's own click: WebDriver's scrolls it into view and clicks where it was,
        # and the rows then measured below the view can move it before the click lands.
        app.js("document.querySelector('#older').click()")
        app.wait_js(count + f" === '{shown}'", f"{shown} rows of History", "history")
    bound = app.js("return MAX_ROWS_SHOWN")
    held, _ = rows_in_page(app)
    assert 0 < held <= bound, f"the page holds {held} row elements (bound {bound}) by Show older"
    app.js("window.scrollTo(0, 0)")  # clicking Show older scrolled it into view
    wait_until(lambda: rows_in_page(app)[1][:1] == ["seed-p-0000"], "the oldest pending send first in view at the top")
    held, _ = rows_in_page(app)
    assert held <= bound, f"the page holds {held} row elements (bound {bound}) at the top"
    app.shot("39-02-top-300-pending")

    # Into the middle of Pending: the rows there, in order, and the first is gone.
    app.js("window.scrollTo(0, document.querySelector('#pending').offsetTop + 150 * 100)")
    wait_until(lambda: (lambda h, s: s and s[0].startswith("seed-p-") and s[0] > "seed-p-0050")(*rows_in_page(app)),
               "the middle of Pending in view")
    held, seen = rows_in_page(app)
    assert held <= bound, f"the page holds {held} row elements (bound {bound}) mid-Pending"
    assert seen == sorted(seen), f"pending rows in view are in queue order: {seen}"
    assert not app.js("return document.querySelector('[data-op=\"seed-p-0000\"]') !== null"), \
        "a row far above the view has no element"
    app.shot("39-03-pending-300-scrolled")

    # To the end of History: its oldest send is in view, and Pending does not say it is empty.
    app.js("window.scrollTo(0, document.documentElement.scrollHeight)")
    wait_until(lambda: "seed-h-0000" in rows_in_page(app)[1], "History's oldest send in view at the end")
    held, _ = rows_in_page(app)
    assert held <= bound, f"the page holds {held} row elements (bound {bound}) at the end"
    assert app.js("return getComputedStyle(document.querySelector('#pending .empty')).display") == "none", \
        "Pending, all of it out of view, still does not say it is empty"
    app.shot("39-04-history-1000-end")


def test_a_send_that_needs_a_person_never_leaves_the_queue_view_205_stopped_sends_show_older(desktop):
    """docs/invariants.md, "A send that needs a person never leaves the queue view": the
    queue view holds the newest 200 stopped sends (issue 39), and the window still reaches
    every one. With 205 stopped sends the Stopped section's count says 205 from the first
    snapshot, and its Show older brings the oldest one into the window, where a person can
    scroll to it and queue it again."""
    p = Profile()
    tray = DirectApp(p, args=["--hidden"])
    try:
        assert tray.proc.wait(20) == 0, "--hidden starts the tray and leaves"
        p.seed(stopped=205)
        app = App(p)
        try:
            count = "return document.querySelector('[data-count=stopped]').textContent"
            app.wait_js(count + " === '205'", "the Stopped count says every stopped send")
            assert not app.js("return rows.has('seed-s-0000')"), "the first snapshot holds the newest 200 only"
            # The button's own click (see rows_in_view_as_it_scrolls: rows measured after
            # WebDriver's scroll can move the button before its click lands).
            app.js("document.querySelector('#older-stopped').scrollIntoView()")
            app.js("document.querySelector('#older-stopped').click()")
            app.wait_js("return rows.has('seed-s-0000')", "Show older read the oldest stopped send")
            app.wait_js("return document.querySelector('#older-stopped').hidden", "nothing older is left to show")
            assert app.js(count) == "205", "the count still says 205 with every row shown"
            app.js("document.querySelector('#stopped .older-line').scrollIntoView({block: 'end'})")
            wait_until(lambda: "seed-s-0000" in rows_in_page(app)[1], "the oldest stopped send in view")
            assert app.row_section("seed-s-0000") == "stopped"
            app.js("document.querySelector('[data-op=\"seed-s-0000\"]').scrollIntoView({block: 'center'})")
            app.shot("39-05-stopped-205-oldest")
        finally:
            app.close(tray=False)
    finally:
        tray.close()


TESTS = [
    test_rows_appear_for_queued_uncertain_and_stopped_sends,
    test_an_answers_generated_image_shows_as_a_thumbnail_and_save_never_replaces_a_file,
    test_check_this_page_from_the_window_shows_the_facts_on_the_tab_line_and_saves_the_report,
    test_the_default_destination_and_max_in_flight_are_set_in_the_window_and_the_header_says_where,
    test_the_packages_prerm_ends_the_tray_and_window_and_removes_their_log_in_entries,
    test_a_clicked_sends_row_shows_what_became_of_the_stop_of_its_answer,
    test_withdraw_takes_back_one_queued_send_and_the_others_stay_queued,
    test_the_first_run_guide_shows_folder_steps_and_a_code_until_a_tab_is_leased,
    test_a_key_made_in_the_connect_panel_opens_the_door_until_it_is_revoked_there,
    test_the_connect_panels_snippets_parse_and_its_mcp_entry_is_what_mcp_config_prints,
    test_the_connect_panel_makes_a_send_key_and_shows_the_ssh_line_and_settings_for_another_machine,
    test_stop_button_closes_the_gate_and_resume_is_a_persons_decision,
    test_confirm_abandon_and_resend_record_who_and_evidence,
    test_a_decision_needs_evidence,
    test_keyboard_alone_confirms_an_uncertain_send,
    test_queue_again_for_a_send_rejected_at_restart,
    test_stale_uncertain_send_is_notified_exactly_once,
    test_closing_the_window_keeps_the_app_in_the_tray,
    test_closing_the_window_ends_its_process_and_every_web_process,
    test_stop_from_the_tray_while_the_window_is_closed,
    test_the_window_prepared_while_the_menu_is_open_is_the_one_open_queue_shows,
    test_a_menu_closed_without_open_queue_or_stopped_from_leaves_no_window_process,
    test_the_xembed_icons_menu_prepares_the_window_too,
    test_a_prepared_window_nobody_asks_for_ends_by_itself,
    test_a_tray_killed_while_a_window_is_prepared_leaves_no_window_process,
    test_a_menu_opened_over_an_open_window_prepares_nothing_and_resume_still_asks,
    test_stop_leaves_a_window_shown_by_a_desktop_launch_and_closes_spare_ones_once,
    test_a_launch_as_the_menu_opens_shows_the_window_and_two_profiles_keep_their_own,
    test_a_launch_whose_hand_over_a_closing_window_drops_opens_the_window_itself,
    test_a_launch_the_running_window_keeps_refusing_says_so_and_exits,
    test_a_launch_the_running_window_never_answers_says_so_within_its_bound,
    test_a_launch_taken_by_a_window_that_closes_at_once_opens_a_window_itself,
    test_a_window_whose_tray_is_killed_says_so_and_starts_it_again,
    test_a_snapshot_after_a_tray_restart_keeps_the_older_pages_shown_and_what_was_typed,
    test_a_tray_that_quits_closes_its_window,
    test_the_windows_stop_gets_through_a_tray_that_does_not_answer,
    test_a_reopened_window_shows_live_rows,
    test_the_page_holds_only_the_rows_in_view_with_300_pending_and_1000_of_history,
    test_a_send_that_needs_a_person_never_leaves_the_queue_view_205_stopped_sends_show_older,
    test_no_file_outside_the_profile_holds_a_messages_text,
    test_hidden_launch_goes_to_the_tray_only,
    test_tray_menu_over_dbus_and_stop_from_the_tray,
    test_second_launch_hands_over_to_the_first,
    test_the_app_refuses_a_profile_another_owner_holds,
    test_dark_theme,
    test_settings_threshold_and_autostart_with_a_space_in_the_profile_path,
    test_sigterm_sigint_and_sighup_shut_the_owner_down_cleanly,
    test_two_launches_at_once_share_one_tray_and_neither_is_refused,
    test_tray_icon_shows_each_state_in_a_real_tray,
]
