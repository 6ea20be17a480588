"""A real OpenSSH server on loopback and `ssh -N -L` tunnels through it (issue 38): the
one sshd helper of every suite that proves a client on another machine (the MCP suite,
tests/mcp/test_mcp_tunnel.py; the OpenAI suite, e2e/openai/test_tunnel.py).

The server is Debian's openssh-server (`scripts/setup.sh --test` installs it), started by
the test on a free loopback port with a host key and an authorised client key made at
run time in the test's own folder (`StrictModes no`: the folder is a temporary one; no
PAM, no password, local forwarding only). Nothing listens beyond 127.0.0.1. A tunnel is
`ssh -N -L 127.0.0.1:LOCAL:127.0.0.1:OWNER_PORT`: a client dials LOCAL as it would on
another machine, and the owner sees what `ssh -L` presents (Host `127.0.0.1:LOCAL`).
Readiness is read from each program's own log line, never waited out.
"""

import getpass
import os
import queue
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

BOUND = 30.0
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
# sshd refuses to start without its privilege separation folder (made by the package's
# service, which no test starts).
PRIVSEP = Path("/run/sshd")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _lines_until(proc, marker: str, what: str, log: list) -> None:
    """Reads `proc`'s standard error into `log` until a line holds `marker`; raises with
    the log when the program ends first or the bound passes."""
    lines: queue.Queue = queue.Queue()

    def pump():
        for line in proc.stderr:
            log.append(line)
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + BOUND
    while True:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            raise RuntimeError(f"{what} was not ready within {BOUND} s: {''.join(log)}")
        if line is None:
            raise RuntimeError(f"{what} ended before it was ready: {''.join(log)}")
        if marker in line:
            return


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
                   check=True, stdin=subprocess.DEVNULL)


class Sshd:
    """`sshd -D -e` on 127.0.0.1 with its own keys in `folder`; `close()` ends it."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        if not os.access(SSHD, os.X_OK):
            raise RuntimeError(f"no sshd at {SSHD}: install openssh-server (scripts/setup.sh --test)")
        if not PRIVSEP.is_dir():
            PRIVSEP.mkdir(mode=0o755, parents=True)  # as root; otherwise sshd says why below
        self.host_key, self.client_key = self.folder / "host_key", self.folder / "client_key"
        _keygen(self.host_key)
        _keygen(self.client_key)
        authorized = self.folder / "authorized_keys"
        authorized.write_text(Path(f"{self.client_key}.pub").read_text())
        self.port = free_port()
        self.user = getpass.getuser()
        config = self.folder / "sshd_config"
        config.write_text("\n".join([
            f"Port {self.port}", "ListenAddress 127.0.0.1", f"HostKey {self.host_key}",
            f"AuthorizedKeysFile {authorized}", "PidFile none", "StrictModes no", "UsePAM no",
            "PasswordAuthentication no", "KbdInteractiveAuthentication no",
            "PubkeyAuthentication yes", "PermitRootLogin prohibit-password",
            "AllowTcpForwarding local", "GatewayPorts no", "X11Forwarding no", "PermitTTY no",
            "AllowAgentForwarding no", "LogLevel INFO", ""]))
        self.log: list[str] = []
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        _lines_until(self.proc, f"Server listening on 127.0.0.1 port {self.port}", "sshd", self.log)

    def tunnel(self, owner_port: int) -> "Tunnel":
        """A tunnel from a free local port to the owner's `owner_port`, open."""
        return Tunnel(self, owner_port)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=BOUND)


class Tunnel:
    """`ssh -N -L 127.0.0.1:LOCAL:127.0.0.1:OWNER_PORT` through an [`Sshd`]; `kill()` is
    SIGKILL (a tunnel that drops), `start()` opens it again on the same local port."""

    def __init__(self, sshd: Sshd, owner_port: int):
        self.sshd, self.owner_port = sshd, owner_port
        self.local_port = free_port()
        self.proc = None
        self.start()

    @property
    def url(self) -> str:
        """What a client on the other machine names the owner by."""
        return f"http://127.0.0.1:{self.local_port}"

    def start(self):
        s = self.sshd
        self.log: list[str] = []
        self.proc = subprocess.Popen(
            ["ssh", "-v", "-N", "-L", f"127.0.0.1:{self.local_port}:127.0.0.1:{self.owner_port}",
             "-p", str(s.port), "-i", str(s.client_key), "-o", "IdentitiesOnly=yes",
             "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
             "-o", "BatchMode=yes", "-o", "ExitOnForwardFailure=yes",
             "-F", "/dev/null", f"{s.user}@127.0.0.1"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        # The forward listens once the login is done; the session starts after it.
        _lines_until(self.proc, "Entering interactive session", "the ssh tunnel", self.log)

    def kill(self):
        """The tunnel drops: SIGKILL, reaped."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=BOUND)

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.kill()
