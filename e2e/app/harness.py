"""Drives the real tray app for the end-to-end tests: tauri-driver + WebKitWebDriver for the
window (WebDriver over http.client), the CLI for sends, a fake extension speaking the real
bridge routes for in-flight sends, and D-Bus for the tray menu and notifications.

Every wait polls a condition with a bound; nothing sleeps for an event.
"""
import base64
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import dbus

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.path.join(ROOT, "target", "debug", "sendledger")
APP = os.environ.get("SENDLEDGER_APP_BINARY", os.path.join(ROOT, "target", "debug", "sendledger-app"))
# The tray process (the profile's owner): the window binary starts the one beside it.
TRAY = os.path.join(os.path.dirname(APP), "sendledger-tray")
SHOTS = os.path.join(ROOT, "target", "e2e-screenshots", "app")
EXTENSION_ORIGIN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
# The project's own captured-format fixtures of chatgpt.com's traffic.
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures", "chatgpt")
BOUND = 20.0  # seconds: the longest any single wait may take
W3C_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class Timeout(AssertionError):
    pass


def wait_until(fn, what, bound=BOUND):
    """Polls fn() until it returns a truthy value (returned), or fails after `bound` s."""
    deadline = time.monotonic() + bound
    last_err = None
    while time.monotonic() < deadline:
        try:
            v = fn()
            if v:
                return v
        except Exception as e:  # the condition is not met yet
            last_err = e
        time.sleep(0.05)
    raise Timeout(f"timed out after {bound:.0f} s waiting for {what}" + (f" (last error: {last_err})" if last_err else ""))


def os_user():
    """Who the app records a person's act as (its default "who"): $USER, $LOGNAME, else
    the account name of this uid, as the app reads it."""
    import pwd
    return os.environ.get("USER") or os.environ.get("LOGNAME") or pwd.getpwuid(os.getuid()).pw_name


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- profiles and the CLI --------------------------------------------------------------


class Profile:
    """A fresh profile directory (bridge on any free port) with optional app settings."""

    made = []  # every profile of this run, so a failure can show its logs

    def __init__(self, stale_uncertain_ms=None, home_in=None, name="profile"):
        """`home_in`: a folder to make the person's home in (the package test's users live
        in /home, where the package's removal looks); else inside the profile's folder.
        `name`: the profile folder's own name (one with a space tests quoting)."""
        self.root = tempfile.mkdtemp(prefix="sendledger-e2e-")
        Profile.made.append(self)
        self.dir = os.path.join(self.root, name)
        os.makedirs(self.dir, mode=0o700)
        with open(os.path.join(self.dir, "config.json"), "w") as f:
            json.dump({"port": 0}, f)
        if stale_uncertain_ms is not None:
            with open(os.path.join(self.dir, "app.json"), "w") as f:
                json.dump({"stale_uncertain_ms": stale_uncertain_ms}, f)
        if home_in:
            self.home = tempfile.mkdtemp(prefix="sendledger-e2e-", dir=home_in)
        else:
            self.home = os.path.join(self.root, "home")
            os.makedirs(self.home)

    def log_tails(self, lines=25):
        """The last `lines` of each log of this profile (tray and window), for a failure's
        report (logs never hold a message's text)."""
        logs = os.path.join(self.home, ".local/share/org.sendledger.app/logs")
        paths = [os.path.join(logs, n) for n in sorted(os.listdir(logs))] if os.path.isdir(logs) else []
        # What the WebDriver (and the app it started) or a directly started app printed.
        paths += [p for p in (os.path.join(self.root, n) for n in ("driver.log", "app.log")) if os.path.exists(p)]
        out = []
        for path in paths:
            with open(path, encoding="utf-8", errors="replace") as f:
                out.append(f"--- {os.path.basename(path)} (last {lines} lines)\n" + "".join(f.readlines()[-lines:]))
        return "\n".join(out)

    def end_a_tray_left_running(self):
        """Ends this profile's tray if a test left it running (a failure before its own
        clean-up): one test's owner never outlives it. Returns its pid, or None."""
        pid = profile_pid(self)
        try:
            with open(f"/proc/{pid}/comm") as f:
                ours = f.read().strip() == "sendledger-tray"
        except (OSError, TypeError):
            return None
        if not (ours and pid_alive(pid)):
            return None
        kill(pid)
        return pid

    def cli(self, *args, check=True):
        """Runs `sendledger --profile DIR --json ARGS`; returns the parsed JSON answer."""
        p = subprocess.run(
            [CLI, "--profile", self.dir, "--json", *args],
            capture_output=True, text=True, timeout=30,
        )
        if check and p.returncode != 0:
            raise AssertionError(f"sendledger {' '.join(args)} exited {p.returncode}: {p.stderr.strip()} {p.stdout.strip()}")
        out = p.stdout.strip()
        try:
            return json.loads(out) if out else None
        except json.JSONDecodeError:
            return out

    def status(self):
        s = self.cli("status")
        return s.get("status", s)

    def show(self, op_id):
        return self.cli("show", op_id)

    def bridge(self):
        with open(os.path.join(self.dir, "bridge.json")) as f:
            return json.load(f)

    def client(self, method, path, body=None):
        """One request to the owner's bridge as a local client (`client.token`, as the CLI
        sends it); the JSON answer, or an AssertionError naming the refusal."""
        host, port = self.bridge()["address"].rsplit(":", 1)
        with open(os.path.join(self.dir, "client.token")) as f:
            token = f.read().strip()
        c = http.client.HTTPConnection(host, int(port), timeout=30)
        c.request(method, path, body=json.dumps(body) if body is not None else None,
                  headers={"authorization": f"Bearer {token}", "content-type": "application/json"})
        r = c.getresponse()
        answer = r.read()
        c.close()
        if r.status >= 300:
            raise AssertionError(f"{method} {path} answered {r.status}: {answer.decode()}")
        return json.loads(answer) if answer else {}

    def seed(self, pending=0, stopped=0, history=0, prefix="seed"):
        """A heavy user's queue through the owner's own routes, ids PREFIX-h-N, PREFIX-s-N,
        PREFIX-p-N: `history` sends clicked by a fake tab, lost after the click (uncertain)
        and confirmed by a person (History); `stopped` queued and withdrawn (Stopped);
        `pending` queued last (no tab claims them: the fake tab's lease is let go). Texts
        are distinct sentences of ordinary length."""
        if history:
            ext = FakeExtension(self)
            lease = ext.post("/v1/ext/lease", {"tab_id": "1"})["lease_id"]
            for i in range(history):
                op = f"{prefix}-h-{i:04}"
                self.client("POST", "/v1/sends", {"op_id": op, "text": f"History {i}: summarise the notes of meeting {i} in three lines"})
                got = ext.post("/v1/ext/next", {"lease_id": lease, "wait_ms": 5000})["send"]
                assert got and got["op_id"] == op, f"expected to claim {op}, got {got}"
                assert ext.post("/v1/ext/dispatch", {"lease_id": lease, "op_id": op})["granted"]
                ext.post("/v1/ext/fail", {"lease_id": lease, "op_id": op, "stage": "after_dispatch",
                                          "reason": "the page stopped answering after the click"})
                self.client("POST", f"/v1/sends/{op}/resolve",
                            {"decision": "confirmed", "by": "seed", "evidence": f"seen in the chat, message {i}"})
            ext.post("/v1/ext/release", {"lease_id": lease, "reason": "seeded"})
        for i in range(stopped):
            op = f"{prefix}-s-{i:04}"
            self.client("POST", "/v1/sends", {"op_id": op, "text": f"Stopped {i}: ask about the invoice number {i} again"})
            self.client("POST", f"/v1/sends/{op}/withdraw", {"by": "seed"})
        for i in range(pending):
            self.client("POST", "/v1/sends", {"op_id": f"{prefix}-p-{i:04}",
                                               "text": f"Pending {i}: draft a short reply to message {i} and keep it polite"})


# ---- a fake extension over the real bridge routes ----------------------------------------


class FakeExtension:
    """Pairs with the owner's bridge like the extension does, and drives a send to
    `uncertain`: lease → next → dispatch (granted) → fail after dispatch."""

    def __init__(self, profile, code=None):
        """Pairs with `code` (e.g. one the window shows), else a new one from `sendledger pair`."""
        self.profile = profile
        addr = profile.bridge()["address"]
        self.host, port = addr.rsplit(":", 1)
        self.port = int(port)
        code = code or profile.cli("pair")["code"]
        self.token = self.post("/v1/pair", {"code": code}, token=False)["token"]

    def post_bytes(self, path, data, mime):
        """POSTs raw bytes (a file the tab fetched) with the extension's token."""
        return self.request("POST", path, data, mime)

    def get(self, path):
        return self.request("GET", path)

    def answer_with_images(self, op_id, name, png, refused_words):
        """Clicks `op_id` and answers it as the page would with the project's own fixtures
        (tests/fixtures/chatgpt: a new chat whose answer generated two images), then hands
        the owner the first image's bytes as the tab does after fetching them from the page,
        and the page's refusal of the second (`refused_words`)."""
        lease = self.dispatch(op_id)
        read = lambda f: open(os.path.join(FIXTURES, f)).read()
        url = "https://chatgpt.com/backend-api/f/conversation"
        for o in ({"kind": "request", "stream_id": "s1", "url": url, "body": read("request_image.json")},
                  {"kind": "stream_chunk", "stream_id": "s1", "seq": 0, "chunk": read("stream_delta_image.sse")},
                  {"kind": "stream_end", "stream_id": "s1"}):
            self.post("/v1/ext/observations", {"lease_id": lease, "op_id": op_id, **o})
        wanted = self.get(f"/v1/ext/artifacts?lease_id={lease}&wait_ms=5000")["artifacts"]
        assert [(a["op_id"], a["n"]) for a in wanted] == [(op_id, 0), (op_id, 1)], wanted
        self.post_bytes(f"/v1/ext/artifacts/{op_id}/0?lease_id={lease}&name={name}", png, "image/png")
        self.post(f"/v1/ext/artifacts/{op_id}/1/unavailable", {"lease_id": lease, "words": refused_words})
        return lease

    def post(self, path, body, token=True):
        return self.request("POST", path, json.dumps(body), "application/json", token)

    def request(self, method, path, data=None, mime=None, token=True):
        """One request as the extension makes it (its Origin; its token unless `token` is
        false); the JSON answer, or an AssertionError with the refusal."""
        c = http.client.HTTPConnection(self.host, self.port, timeout=30)
        headers = {"origin": EXTENSION_ORIGIN, "host": f"127.0.0.1:{self.port}"}
        if mime:
            headers["content-type"] = mime
        if token:
            headers["authorization"] = f"Bearer {self.token}"
        c.request(method, path, body=data, headers=headers)
        r = c.getresponse()
        answer = r.read()
        c.close()
        if r.status >= 300:
            raise AssertionError(f"{method} {path} answered {r.status}: {answer.decode()}")
        return json.loads(answer) if answer else {}

    def make_uncertain(self, op_id):
        lease = self.post("/v1/ext/lease", {"tab_id": "1"})["lease_id"]
        try:
            got = self.post("/v1/ext/next", {"lease_id": lease, "wait_ms": 5000})["send"]
            assert got and got["op_id"] == op_id, f"expected to claim {op_id}, got {got}"
            assert self.post("/v1/ext/dispatch", {"lease_id": lease, "op_id": op_id})["granted"]
            self.post("/v1/ext/fail", {"lease_id": lease, "op_id": op_id, "stage": "after_dispatch",
                                       "reason": "the page stopped answering after the click"})
        finally:
            self.post("/v1/ext/release", {"lease_id": lease, "reason": "test done"})


    def dispatch(self, op_id):
        """Leases a tab, claims `op_id` and is granted its click: the send is `dispatched`
        and the lease is kept (it reports on the send's remote stop). Returns the lease."""
        lease = self.post("/v1/ext/lease", {"tab_id": "1"})["lease_id"]
        got = self.post("/v1/ext/next", {"lease_id": lease, "wait_ms": 5000})["send"]
        assert got and got["op_id"] == op_id, f"expected to claim {op_id}, got {got}"
        assert self.post("/v1/ext/dispatch", {"lease_id": lease, "op_id": op_id})["granted"]
        return lease

    def remote_stop(self, lease, op_id, phase, evidence=None):
        body = {"lease_id": lease, "phase": phase}
        if evidence is not None:
            body["evidence"] = evidence
        return self.post(f"/v1/ext/remote-stops/{op_id}", body)


def bridge_get(profile, path, bearer):
    """GET `path` on the owner's bridge as a local client (no Origin) with `bearer` as the
    API key; returns (status, headers as a lower-cased dict, parsed JSON body)."""
    host, port = profile.bridge()["address"].rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    c.request("GET", path, headers={"authorization": f"Bearer {bearer}", "host": f"127.0.0.1:{port}"})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, (json.loads(data) if data else None)


# ---- the fake desktop (notifications + tray host) -------------------------------------


class Desktop:
    """Runs fake_desktop.py on the session bus and reads what it recorded."""

    def __init__(self, tray_host=True):
        fd, self.log = tempfile.mkstemp(prefix="sendledger-desktop-", suffix=".jsonl")
        os.close(fd)
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(os.path.dirname(__file__), "fake_desktop.py"), self.log]
            + ([] if tray_host else ["--no-tray-host"]),
            stdout=subprocess.PIPE, text=True,
        )
        line = self.proc.stdout.readline()
        assert line.strip() == "ready", f"fake desktop did not start: {line!r}"

    def records(self, kind):
        with open(self.log) as f:
            return [r for r in map(json.loads, f) if r["kind"] == kind]

    def notifications(self):
        return self.records("notify")

    def invoke(self, nid, action):
        bus = dbus.SessionBus()
        obj = bus.get_object("org.freedesktop.Notifications", "/org/freedesktop/Notifications", introspect=False)
        obj.Invoke(dbus.UInt32(nid), action, dbus_interface="org.sendledger.Test", timeout=10)

    def close(self):
        self.proc.terminate()
        self.proc.wait(10)


# ---- the tray over D-Bus (StatusNotifierItem + dbusmenu) --------------------------------


class Tray:
    """The app's tray item as a tray host sees it."""

    def __init__(self, desktop, pid):
        bus = dbus.SessionBus()
        dbus_obj = bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus", introspect=False)

        def mine():
            for rec in reversed(desktop.records("tray_item")):
                owner_pid = dbus_obj.GetConnectionUnixProcessID(rec["service"], dbus_interface="org.freedesktop.DBus", timeout=5)
                if owner_pid == pid:
                    return rec
            return None

        rec = wait_until(mine, "the app's tray item to register with the tray host")
        self.item = bus.get_object(rec["service"], rec["path"], introspect=False)
        props = dbus.Interface(self.item, dbus.PROPERTIES_IFACE)
        menu_path = props.Get("org.kde.StatusNotifierItem", "Menu", timeout=10)
        self.props = props
        self.menu = bus.get_object(rec["service"], menu_path, introspect=False)

    def prop(self, name):
        return self.props.Get("org.kde.StatusNotifierItem", name, timeout=10)

    def entries(self):
        """[(id, label, enabled)] of the menu's entries, separators left out."""
        _rev, layout = self.menu.GetLayout(0, -1, dbus.Array([], signature="s"),
                                           dbus_interface="com.canonical.dbusmenu", timeout=10)
        out = []
        for child in layout[2]:
            cid, cprops = int(child[0]), child[1]
            if cprops.get("type") == "separator":
                continue
            label = str(cprops.get("label", "")).replace("_", "")
            out.append((cid, label, bool(cprops.get("enabled", True))))
        return out

    def entry(self, label):
        for e in self.entries():
            if e[1] == label:
                return e
        raise AssertionError(f"no tray entry {label!r} in {self.entries()}")

    def click(self, label):
        cid = self.entry(label)[0]
        self.event(cid, "clicked")

    def event(self, cid, name):
        self.menu.Event(cid, name, dbus.String("", variant_level=1), dbus.UInt32(int(time.time())),
                        dbus_interface="com.canonical.dbusmenu", timeout=10)

    def open_menu(self):
        """What a StatusNotifier host does as it shows the menu: AboutToShow, then "opened"."""
        self.menu.AboutToShow(0, dbus_interface="com.canonical.dbusmenu", timeout=10)
        self.event(0, "opened")

    def close_menu(self):
        self.event(0, "closed")


# ---- WebDriver (tauri-driver + WebKitWebDriver) ---------------------------------------


class Driver:
    """A tauri-driver for one app run (the app inherits its environment)."""

    def __init__(self, env, log_path=os.devnull):
        self.port = free_port()
        native = free_port()
        self.log = open(log_path, "a")  # its output and the app's stderr, for a failure's report
        self.proc = subprocess.Popen(
            ["tauri-driver", "--port", str(self.port), "--native-port", str(native),
             "--native-driver", "/usr/bin/WebKitWebDriver"],
            stdout=self.log, stderr=subprocess.STDOUT, env=env,
        )

        def up(port):
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True

        # tauri-driver accepts before WebKitWebDriver (the native driver) listens; a
        # session asked for in between is dropped.
        wait_until(lambda: up(self.port), "tauri-driver to listen")
        wait_until(lambda: up(native), "WebKitWebDriver to listen")

    def apps(self):
        """Pids of the processes WebKitWebDriver started (the app under test)."""
        return [a for d in children(self.proc.pid) for a in children(d)]

    def close(self, apps=()):
        """Ends the driver, once the processes in `apps` (what `apps()` gave before the
        session was deleted) have ended. WebKitWebDriver ends the app it started (SIGKILL)
        after it answers the session's DELETE; a driver ended before that leaves the app
        running, an orphan, still holding its profile's window name."""
        try:
            wait_until(lambda: not any(pid_alive(a) for a in apps), "WebKitWebDriver to end the app it started", bound=10)
        except Timeout:
            for a in apps:
                print(f"        (ended app {a}: WebKitWebDriver left it running 10 s after the session ended)", flush=True)
                kill(a)
        self.proc.terminate()
        self.proc.wait(10)
        self.log.close()


def children(pid):
    """Pids of `pid`'s child processes (Linux: /proc/PID/task/PID/children)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except (OSError, ValueError):
        return []


class App:
    """The real window binary, launched by WebKitWebDriver, on `profile`; it starts the tray
    (`sendledger-tray`, the owner) when none runs. `pid` is the tray's."""

    def __init__(self, profile, extra_env=None, args=()):
        self.profile = profile
        # WebKitWebDriver starts the app with tauri-driver's environment; HOME keeps the
        # app's own files (log, window state, autostart entry) inside the test's folder.
        self.driver = Driver({**os.environ, "HOME": profile.home, **(extra_env or {})},
                             log_path=os.path.join(profile.root, "driver.log"))
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "wry",
            "tauri:options": {"application": APP, "args": ["--profile", profile.dir, *args]},
        }}}
        try:
            v = self.request("POST", "/session", caps)
        except Exception:
            self.driver.close()
            raise
        self.sid = v["sessionId"]
        self.pid = wait_until(lambda: self._pid(), "the app to own the profile (bridge.json)")
        wait_until(lambda: self.js("return document.body.dataset.ready === 'true'"), "the queue to load")

    def _pid(self):
        try:
            return self.profile.bridge()["pid"]
        except (OSError, ValueError, KeyError):
            return None

    def request(self, method, path, body=None):
        c = http.client.HTTPConnection("127.0.0.1", self.driver.port, timeout=60)
        c.request(method, path, body=json.dumps(body) if body is not None else None,
                  headers={"content-type": "application/json"})
        r = c.getresponse()
        data = json.loads(r.read() or b"{}")
        c.close()
        if r.status >= 300:
            raise AssertionError(f"WebDriver {method} {path} answered {r.status}: {data}")
        return data.get("value")

    def s(self, path):
        return f"/session/{self.sid}{path}"

    def js(self, script, *args):
        return self.request("POST", self.s("/execute/sync"), {"script": script, "args": list(args)})

    def find(self, css):
        return self.request("POST", self.s("/element"), {"using": "css selector", "value": css})[W3C_ELEMENT]

    def click(self, css):
        self.request("POST", self.s(f"/element/{self.find(css)}/click"), {})

    def pointer_click(self, css, clicks=1):
        """What a person's mouse does (W3C pointer actions): moves onto `css`, then clicks
        `clicks` times. WebDriver's element click moves no pointer, so the window's guard
        against rows that moved under a still pointer (ui/app.js) would ignore it."""
        el = self.find(css)
        actions = [{"type": "pointerMove", "duration": 0, "origin": {W3C_ELEMENT: el}, "x": 0, "y": 0}]
        for _ in range(clicks):
            actions += [{"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]
        self.request("POST", self.s("/actions"), {"actions": [
            {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]})
        self.request("DELETE", self.s("/actions"))

    def double_click(self, css):
        """A real double-click on `css`."""
        self.pointer_click(css, clicks=2)

    def type(self, css, text, clear=True):
        el = self.find(css)
        if clear:
            self.request("POST", self.s(f"/element/{el}/clear"), {})
        self.request("POST", self.s(f"/element/{el}/value"), {"text": text})

    def keys(self, *keys):
        """Presses keys on whatever has the focus (W3C actions)."""
        actions = []
        for k in keys:
            actions += [{"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]
        self.request("POST", self.s("/actions"), {"actions": [{"type": "key", "id": "kbd", "actions": actions}]})

    def wait_js(self, script, what, *args):
        return wait_until(lambda: self.js(script, *args), what)

    def row_section(self, op_id):
        return self.js(
            "const el = document.querySelector(`article[data-op='${arguments[0]}']`);"
            "return el ? el.closest('.rows').dataset.section : null;", op_id)

    def wait_row(self, op_id, section):
        return wait_until(lambda: self.row_section(op_id) == section, f"row {op_id} in {section}")

    def shot(self, name):
        """Saves the window as target/e2e-screenshots/app/NAME.png (two frames later, so
        the latest DOM change is painted)."""
        self.js("return await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
        png = base64.b64decode(self.request("GET", self.s("/screenshot")))
        os.makedirs(SHOTS, exist_ok=True)
        path = os.path.join(SHOTS, f"{name}.png")
        with open(path, "wb") as f:
            f.write(png)
        return path

    def alive(self):
        """Whether the tray (the owner) still runs."""
        return pid_alive(self.pid)

    def close(self, tray=True):
        """Ends the WebDriver session (and the window's process), then the tray unless
        `tray` is false."""
        apps = self.driver.apps()
        try:
            self.request("DELETE", self.s(""))
        except Exception:
            pass  # the app or the driver is gone already; whatever still runs is ended below
        if tray:
            kill(self.pid)
        self.driver.close(apps)


def pid_alive(pid):
    """Whether `pid` runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def kill(pid):
    """Ends the app (SIGTERM) and waits for it to go."""
    if pid is None:
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return

    def gone():
        try:
            os.kill(pid, 0)
            # a zombie of ours counts as gone
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split()[2] == "Z"
        except (ProcessLookupError, FileNotFoundError):
            return True

    wait_until(gone, f"pid {pid} to exit")


# ---- the app without WebDriver, and its X windows ---------------------------------------


class DirectApp:
    """A binary started as a person would (no WebDriver), on `profile`: the window binary
    by default (which starts the tray: `pid` is the tray's; `proc` is the window's, or the
    launcher's that exits at once with --hidden), or the tray itself (`binary=TRAY`)."""

    def __init__(self, profile, args=(), extra_env=None, binary=APP):
        self.profile = profile
        env = {**os.environ, "HOME": profile.home, **(extra_env or {})}
        env.pop("TAURI_WEBVIEW_AUTOMATION", None)
        self.log = open(os.path.join(profile.root, "app.log"), "w+")
        self.proc = subprocess.Popen([binary, "--profile", profile.dir, *args], env=env,
                                     stdout=subprocess.DEVNULL, stderr=self.log, text=True)
        self.pid = wait_until(lambda: profile_pid(profile), "the tray to own the profile (bridge.json)")
        if binary == TRAY:
            assert self.pid == self.proc.pid, "the tray started is the owner"

    def alive(self):
        """Whether the tray (the owner) still runs."""
        return pid_alive(self.pid)

    def stderr(self):
        self.log.seek(0)
        return self.log.read()

    def close(self):
        if self.alive():
            kill(self.pid)
        if self.proc.poll() is None:
            kill(self.proc.pid)
        self.proc.wait(10)
        self.log.close()


def profile_pid(profile):
    try:
        return profile.bridge()["pid"]
    except (OSError, ValueError, KeyError):
        return None


QUEUE_TITLE = "sendledger — queue"


TRAYER = ["trayer", "--edge", "top", "--align", "right", "--widthtype", "pixel", "--width", "64", "--height", "48",
          "--transparent", "false", "--tint", "0xffffff", "--SetDockType", "true"]


def xembed_tray():
    """A real XEmbed system tray (trayer), 64×48 px in the top-right corner: where no
    StatusNotifier host runs, the app's indicator falls back to an icon in it."""
    return subprocess.Popen(TRAYER, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class X:
    """Top-level X windows, as a window manager sees them."""

    def __init__(self):
        from Xlib import display
        self.d = display.Display()
        self.root = self.d.screen().root
        self.utf8 = self.d.intern_atom("UTF8_STRING")
        self.net_name = self.d.intern_atom("_NET_WM_NAME")

    def click(self, px, py, button=1):
        """A real pointer click (XTest) at root coordinates."""
        from Xlib import X as XC
        from Xlib.ext import xtest
        xtest.fake_input(self.d, XC.MotionNotify, x=px, y=py)
        xtest.fake_input(self.d, XC.ButtonPress, button)
        xtest.fake_input(self.d, XC.ButtonRelease, button)
        self.d.sync()

    def key(self, name):
        """A real key press and release (XTest), by keysym name ("Down", "Return")."""
        from Xlib import X as XC, XK
        from Xlib.ext import xtest
        code = self.d.keysym_to_keycode(XK.string_to_keysym(name))
        xtest.fake_input(self.d, XC.KeyPress, code)
        xtest.fake_input(self.d, XC.KeyRelease, code)
        self.d.sync()

    def xembed_menu(self):
        """Pops up the tray's menu on its XEmbed icon in `xembed_tray()` (a right click)."""
        self.click(self.root.get_geometry().width - 32, 24, button=3)

    def pid_of(self, w):
        """The pid a window's client says it runs in (_NET_WM_PID), or None."""
        from Xlib import Xatom
        prop = w.get_full_property(self.d.intern_atom("_NET_WM_PID"), Xatom.CARDINAL)
        return int(prop.value[0]) if prop else None

    def title(self, w):
        try:
            p = w.get_full_property(self.net_name, self.utf8)
            if p:
                return p.value.decode() if isinstance(p.value, bytes) else str(p.value)
            name = w.get_wm_name()
            return name.decode() if isinstance(name, bytes) else name
        except Exception:
            return None

    def shown(self, title=QUEUE_TITLE):
        """Mapped windows with that title."""
        from Xlib import X as XC
        out = []
        for w in self.root.query_tree().children:
            try:
                if w.get_attributes().map_state == XC.IsViewable and self.title(w) == title:
                    out.append(w)
            except Exception:
                continue
        return out

    def close(self, w):
        """What a window manager's close button does: WM_DELETE_WINDOW."""
        from Xlib import X as XC
        from Xlib.protocol import event
        protocols = self.d.intern_atom("WM_PROTOCOLS")
        delete = self.d.intern_atom("WM_DELETE_WINDOW")
        ev = event.ClientMessage(window=w, client_type=protocols, data=(32, [delete, XC.CurrentTime, 0, 0, 0]))
        w.send_event(ev, event_mask=XC.NoEventMask)
        self.d.flush()

    def shot(self, name):
        """The whole screen (with the tray, when trayer runs) into the screenshots folder."""
        os.makedirs(SHOTS, exist_ok=True)
        path = os.path.join(SHOTS, f"{name}.png")
        subprocess.run(["import", "-window", "root", path], check=True, timeout=30)
        return path


def colour_share(png, box, rgb, tolerance=40):
    """Share of the pixels in `box` (w, h, x, y) of `png` within `tolerance` of `rgb`."""
    w, h, x, y = box
    out = subprocess.run(["convert", png, "-crop", f"{w}x{h}+{x}+{y}", "+repage", "-format", "%c", "histogram:info:-"],
                         capture_output=True, text=True, check=True, timeout=30).stdout
    total = near = 0
    for line in out.splitlines():
        count, _, rest = line.strip().partition(":")
        try:
            r, g, b = (int(float(v)) for v in rest.split("(")[1].split(")")[0].split(",")[:3])
        except (IndexError, ValueError):
            continue
        n = int(count)
        total += n
        if max(abs(r - rgb[0]), abs(g - rgb[1]), abs(b - rgb[2])) <= tolerance:
            near += n
    return near / total if total else 0.0
