//! What the CLI prints, and what happens when nobody reads it: a reader that went away
//! (`sendledger status | head -c1`) ends a one-shot command quietly, never in a panic, and
//! never takes `serve` (the owner) down; a stderr that cannot be written loses lines, not
//! a refusal's exit code or the owner's answers; `keys create` names the base URL a
//! companion needs, with the port the owner really listens on, and a key whose secret
//! could not be written out does not stay live.

#[path = "support/bridge.rs"]
mod harness;

use harness::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// `sendledger --profile PROFILE ARGS…` with no input; the caller sets stdout and stderr.
fn sendledger(profile: &std::path::Path, args: &[&str]) -> Command {
    let mut c = Command::new(binary());
    c.arg("--profile")
        .arg(profile)
        .args(args)
        .stdin(Stdio::null());
    c
}

/// A pipe whose reading end is already closed: writing to it fails with EPIPE.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    writer
}

#[test]
fn a_closed_stdout_ends_a_one_shot_command_quietly_not_in_a_panic() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    serve.client().queue("op-epipe", "hello");
    for args in [&["status"][..], &["--json", "status"], &["list"]] {
        let out = sendledger(&profile, args)
            .stdout(closed_pipe())
            .output()
            .expect("the CLI runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("panicked"),
            "a reader that went away is not a crash ({args:?}): {err}"
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "nothing went wrong but the reader leaving ({args:?}): {err}"
        );
    }
}

#[test]
fn serve_keeps_owning_the_profile_when_its_stdout_closes() {
    let (_tmp, profile) = profile_dir();
    let mut serve = sendledger(&profile, &["serve", "--port", "0"])
        .env("SENDLEDGER_LOG", "info")
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    // Its log says it serves only after it wrote its address to the closed stdout: a panic
    // there ends stderr without that line.
    let log = BufReader::new(serve.stderr.take().expect("piped"));
    let mut seen = Vec::new();
    for line in log.lines() {
        let line = line.expect("a log line");
        let serving = line.contains("serving until SIGTERM");
        seen.push(line);
        if serving {
            break;
        }
    }
    assert!(
        seen.last()
            .is_some_and(|l| l.contains("serving until SIGTERM")),
        "serve ended because nobody read its first lines: {seen:?}"
    );
    let (code, v) = cli_json(&profile, &["send", "hello"]);
    assert_eq!(code, 0, "the owner still takes sends: {v}");
    // SAFETY: kill(2) on our own child, not yet reaped.
    unsafe { libc::kill(serve.id() as libc::pid_t, libc::SIGTERM) };
    let status = serve.wait().expect("serve ends");
    assert!(status.success(), "and quits cleanly on SIGTERM: {status}");
}

#[test]
fn keys_create_names_the_base_url_with_the_owners_real_port() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    let out = cli(&profile, &["keys", "create", "companion"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the key is made: {text}");
    let want = format!("base URL http://127.0.0.1:{}/v1", serve.port);
    assert!(
        text.contains(&want) && !text.contains("<port>"),
        "a companion's settings need the real address ({want}): {text}"
    );
    let (code, v) = cli_json(&profile, &["keys", "create", "second"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v["base_url"],
        format!("http://127.0.0.1:{}/v1", serve.port),
        "the JSON names it too: {v}"
    );
}

/// A key whose secret could not be written out (a reader that left: EPIPE) is a live key
/// nobody has: it is revoked at once, the command says so and ends with 74, and the name
/// can be made again.
#[test]
fn a_new_key_nobody_could_see_is_revoked_at_once() {
    let (_tmp, profile) = profile_dir();
    let _serve = Serve::start(&profile, &[]);
    for json in [false, true] {
        let mut args = vec!["keys", "create", "to-nobody"];
        if json {
            args.insert(0, "--json");
        }
        let out = sendledger(&profile, &args)
            .stdout(closed_pipe())
            .output()
            .expect("the CLI runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(74), "json {json}: {err}");
        assert!(
            err.contains("could not be shown") && err.contains("revoked at once"),
            "json {json}: says what happened and what to do: {err}"
        );
    }
    let (code, v) = cli_json(&profile, &["keys", "list"]);
    assert_eq!(code, 0, "{v}");
    let keys = v["keys"].as_array().expect("keys");
    assert_eq!(keys.len(), 2, "{v}");
    assert!(
        keys.iter().all(|k| !k["revoked_at"].is_null()),
        "neither unseen key is live: {v}"
    );
    let (code, v) = cli_json(&profile, &["keys", "create", "to-nobody"]);
    assert_eq!(code, 0, "the name can be made again: {v}");
}

/// An output that goes nowhere from the start is refused before any key is made: a device
/// that is not a terminal (/dev/null, /dev/full, /dev/zero), a closed stdout (`>&-`, which
/// the process sees as /dev/null) or one open only for reading; with `--json` too, and
/// then the refusal is also said on stderr, since its JSON goes nowhere.
#[test]
fn keys_create_makes_no_key_when_its_output_goes_nowhere() {
    let (tmp, profile) = profile_dir();
    let _serve = Serve::start(&profile, &[]);
    let read_only = tmp.path().join("read-only");
    std::fs::write(&read_only, "").unwrap();
    let target = |what: &str| match what {
        "/dev/null" => Stdio::null(),
        "a file open for reading" => Stdio::from(std::fs::File::open(&read_only).unwrap()),
        device => Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open(device)
                .expect("a device"),
        ),
    };
    let mut outs = Vec::new();
    for what in [
        "/dev/null",
        "/dev/full",
        "/dev/zero",
        "a file open for reading",
    ] {
        for args in [
            &["keys", "create", "nowhere"][..],
            &["--json", "keys", "create", "nowhere"],
        ] {
            let out = sendledger(&profile, args)
                .stdout(target(what))
                .output()
                .expect("the CLI runs");
            outs.push((format!("{what} {args:?}"), out));
        }
    }
    let closed = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" --profile \"$1\" keys create into-closed >&-")
        .arg(binary())
        .arg(&profile)
        .output()
        .expect("sh runs");
    outs.push(("closed".into(), closed));
    for (what, out) in outs {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(
            err.contains("nobody would see the key, so none was made"),
            "{what}: {err}"
        );
    }
    let (_, v) = cli_json(&profile, &["keys", "list"]);
    assert_eq!(v["keys"], serde_json::json!([]), "no key was made: {v}");
}

/// The revocation of an unseen key is of that key only: a key made under the same name
/// meanwhile (after someone revoked the first) stays live.
#[test]
fn an_unseen_keys_revocation_never_revokes_a_newer_key_of_its_name() {
    use std::io::Write;
    let (_tmp, profile) = profile_dir();
    let _serve = Serve::start(&profile, &[]);
    // A pipe already full: the first `keys create` blocks writing its key out.
    let (reader, mut writer) = std::io::pipe().expect("a pipe");
    writer.write_all(&[b'.'; 65_536]).expect("the pipe fills");
    let first = sendledger(&profile, &["keys", "create", "victim"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the CLI runs");
    let live = |v: &serde_json::Value| {
        v["keys"]
            .as_array()
            .map(|ks| ks.iter().filter(|k| k["revoked_at"].is_null()).count())
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while live(&cli_json(&profile, &["keys", "list"]).1) != Some(1) {
        assert!(
            std::time::Instant::now() < deadline,
            "the first key is made"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(cli_json(&profile, &["keys", "revoke", "victim"]).0, 0);
    let (code, second) = cli_json(&profile, &["keys", "create", "victim"]);
    assert_eq!(code, 0, "{second}");
    drop(reader); // the first one's write fails now: EPIPE
    let out = first.wait_with_output().expect("it ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(74), "{err}");
    assert!(err.contains("already revoked by then"), "{err}");
    let (_, v) = cli_json(&profile, &["keys", "list"]);
    assert_eq!(live(&v), Some(1), "the second key stays live: {v}");
}

#[test]
fn a_refusal_keeps_its_exit_code_when_its_output_cannot_be_written() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    serve.client().queue("op-known", "hello");
    let wanted = cli(&profile, &["show", "op-unknown"]).status.code();
    assert!(
        wanted.is_some_and(|c| c != 0 && c != 101),
        "a refusal's own code: {wanted:?}"
    );
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    for stderr in [Stdio::from(closed_pipe()), Stdio::from(full)] {
        let out = sendledger(&profile, &["show", "op-unknown"])
            .stdout(Stdio::null())
            .stderr(stderr)
            .status()
            .expect("the CLI runs");
        assert_eq!(
            out.code(),
            wanted,
            "the same refusal, not a panic (101), when nobody can read why"
        );
    }
    let out = sendledger(&profile, &["--json", "show", "op-unknown"])
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .output()
        .expect("the CLI runs");
    assert_eq!(
        out.status.code(),
        wanted,
        "a refusal in JSON keeps its code when nobody reads the JSON"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("op-unknown"),
        "and a person can still read it on stderr: {err}"
    );
}

#[test]
fn serve_answers_every_request_when_its_stderr_cannot_be_written() {
    let (_tmp, profile) = profile_dir();
    let mut serve = sendledger(&profile, &["serve", "--port", "0"])
        .env("SENDLEDGER_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(closed_pipe())
        .spawn()
        .expect("serve starts");
    let said = BufReader::new(serve.stdout.take().expect("piped"));
    let port = said
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("port ").map(|p| p.parse::<u16>().unwrap()))
        .unwrap_or_else(|| {
            panic!(
                "serve ended at start because its stderr is closed: {:?}",
                serve.try_wait()
            )
        });
    // Refusals are logged: each must still be answered.
    let stranger = Http::new(port, Some("not-the-token".into()), None);
    for _ in 0..3 {
        let a = stranger.get("/v1/status");
        assert_eq!(a.status, 401, "a refusal answered, not dropped: {}", a.body);
    }
    let token = std::fs::read_to_string(profile.join("client.token")).unwrap();
    let client = Http::new(port, Some(token.trim().to_string()), None);
    assert_eq!(client.queue("op-logged", "hello")["state"], "queued");
    assert!(matches!(serve.try_wait(), Ok(None)), "the owner still runs");
    let _ = serve.kill();
    let _ = serve.wait();
}

/// `YYYY-MM-DD HH:MM:SS.mmm` somewhere in `line`.
fn has_local_time(line: &str) -> bool {
    let shape = "dddd-dd-dd dd:dd:dd.ddd";
    line.as_bytes().windows(shape.len()).any(|w| {
        w.iter().zip(shape.bytes()).all(|(c, s)| match s {
            b'd' => c.is_ascii_digit(),
            s => *c == s,
        })
    })
}

#[test]
fn people_read_times_as_local_dates_and_scripts_as_ms() {
    let (_tmp, profile) = profile_dir();
    let serve = Serve::start(&profile, &[]);
    serve.client().queue("op-time", "hello");
    let out = cli(&profile, &["show", "op-time"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("→ queued"))
        .unwrap_or_else(|| panic!("a timeline line: {text}"));
    assert!(has_local_time(line), "a date a person reads: {line}");
    assert!(
        text.contains("means      on its way: do not send it again"),
        "show says what the state means, from the one table: {text}"
    );
    cli(&profile, &["keys", "create", "bot"]);
    let listed = String::from_utf8_lossy(&cli(&profile, &["keys", "list"]).stdout).into_owned();
    assert!(has_local_time(&listed), "made when: {listed}");
    let (_, v) = cli_json(&profile, &["show", "op-time"]);
    assert!(
        v["timeline"][0]["at"].is_i64(),
        "--json keeps ms since the epoch: {v}"
    );
}
