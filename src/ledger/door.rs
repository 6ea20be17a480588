//! What the OpenAI-compatible doors keep (migration 0006): named API keys a person makes
//! for companions (only their SHA-256 is stored), and one row per send a door queued —
//! who asked, a hash of the body, and the fingerprint any client's retry is matched by.
//! The row is written in the transaction that queues the send, so a retry after an owner
//! restart still finds it. The HTTP side is `crate::bridge::openai`.
//!
//! **The attach rule** (docs/openai.md, "Retries attach"): a request without an
//! Idempotency-Key whose client and identity (what it asks to send, and where) match a
//! send a door queued *is* that send while the send is not settled (queued, claimed,
//! dispatched, accepted, uncertain) and for [`ATTACH_AFTER_SETTLED_MS`] after it settled —
//! whatever headers the request carries — except a send that never left this computer
//! (rejected) and that no person queued again: sending that again is what its error asks.
//! A send a person queued again (resend, requeue) is followed to its newest copy. The
//! match and the queuing are one immediate transaction, so two identical requests racing
//! each other are one send.

use super::error::{LedgerError, Result};
use super::record::Send;
use super::sends::{self, QueueRequest};
use super::Ledger;
use crate::clock::Millis;
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Live (unrevoked) keys a profile holds at most.
pub const MAX_LIVE_KEYS: i64 = 100;
/// `last_used_at` is rewritten at most this often per key, in ms (a use is a disk write).
pub const KEY_USE_RESOLUTION_MS: Millis = 60_000;
/// Prefix of every named key (`sk-sl-` and 64 hex digits).
pub const KEY_PREFIX: &str = "sk-sl-";
/// How long after its send settled a request with the same client and body still
/// attaches to it, in ms (5 min). The retry layers companions use back off for at most
/// 2 min between attempts (urllib3's `Retry.backoff_max`; the openai SDKs 8 s, the
/// Vercel AI SDK and LangChain's `with_retry` seconds); a retry in flight when the send
/// settles attaches anyway. Measured from the send's `updated_at` (its last transition or
/// note), so a note after settling only lengthens the window.
pub const ATTACH_AFTER_SETTLED_MS: Millis = 5 * 60_000;

/// What a named key opens (migration 0020; docs/bridge-api.md, "Keys and scopes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyScope {
    /// The OpenAI-compatible doors only: every key made before scopes existed (it keeps
    /// exactly the meaning it was made with). Not offered for new keys.
    Openai,
    /// The doors, and the native API's and MCP's sends and reads: no Stop, Resume,
    /// decision, withdrawal, settings, keys or pairing.
    Send,
    /// Every client route, as the profile's `client.token`.
    All,
}

impl KeyScope {
    /// The word stored and shown: `openai`, `send` or `all`.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyScope::Openai => "openai",
            KeyScope::Send => "send",
            KeyScope::All => "all",
        }
    }

    /// The scope a stored word names; `None` for a word this build does not know.
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "openai" => Some(KeyScope::Openai),
            "send" => Some(KeyScope::Send),
            "all" => Some(KeyScope::All),
            _ => None,
        }
    }
}

/// A named API key, as listed (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKey {
    /// The name a person gave it (1–64 letters, digits, `._-`).
    pub name: String,
    /// What it opens.
    pub scope: KeyScope,
    /// When it was made (ms).
    pub created_at: Millis,
    /// Who made it.
    pub created_by: String,
    /// Last request it opened (ms, to the minute); `None`: never used.
    pub last_used_at: Option<Millis>,
    /// When it was revoked (ms); `None`: live.
    pub revoked_at: Option<Millis>,
}

/// Successors a send is followed through at most (resend of a resend …).
const MAX_SUCCESSORS: usize = 16;

/// The door's record of one send it queued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoorRequest {
    /// The send.
    pub op_id: String,
    /// Who asked: `client-token` or `key:<SHA-256 of the key>` (a key made again under a
    /// revoked key's name is another client).
    pub client: String,
    /// SHA-256 (hex) of the request's identity: what it asks to send and where.
    pub body_sha256: String,
    /// SHA-256 (hex) of client and body: the automatic-retry match.
    pub fingerprint: String,
    /// Whether the operation id is the request's `Idempotency-Key`.
    pub keyed: bool,
    /// When it was queued (ms).
    pub created_at: Millis,
    /// The page's model slug, once the answer was observed.
    pub model: Option<String>,
}

/// The fingerprint of a request: SHA-256 of `client`, a NUL, and the body's hash.
pub fn fingerprint(client: &str, body_sha256: &str) -> String {
    let mut h = Sha256::new();
    h.update(client.as_bytes());
    h.update([0u8]);
    h.update(body_sha256.as_bytes());
    format!("{:x}", h.finalize())
}

/// Lowercase hex SHA-256 of a key's secret: how the profile keeps a key (never the
/// secret itself).
pub fn key_sha256(s: &str) -> String {
    format!("{:x}", Sha256::digest(s.as_bytes()))
}

fn validate_key_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(LedgerError::Invalid(format!(
            "key name {} is malformed: use 1 to 64 letters, digits or . _ -",
            super::error::quoted(name)
        )))
    }
}

fn key_from_row(r: &Row) -> rusqlite::Result<ApiKey> {
    let word: String = r.get(5)?;
    // The column's CHECK admits only the three words; a newer schema's word opens nothing
    // more than the doors.
    let scope = KeyScope::parse(&word).unwrap_or(KeyScope::Openai);
    Ok(ApiKey {
        name: r.get(0)?,
        scope,
        created_at: r.get(1)?,
        created_by: r.get(2)?,
        last_used_at: r.get(3)?,
        revoked_at: r.get(4)?,
    })
}

const KEY_COLUMNS: &str = "name, created_at, created_by, last_used_at, revoked_at, scope";

fn door_from_row(r: &Row) -> rusqlite::Result<DoorRequest> {
    Ok(DoorRequest {
        op_id: r.get(0)?,
        client: r.get(1)?,
        body_sha256: r.get(2)?,
        fingerprint: r.get(3)?,
        keyed: r.get::<_, i64>(4)? == 1,
        created_at: r.get(5)?,
        model: r.get(6)?,
    })
}

const DOOR_COLUMNS: &str = "op_id, client, body_sha256, fingerprint, keyed, created_at, model";

fn create_key(
    tx: &Transaction,
    name: &str,
    scope: KeyScope,
    by: &str,
    now: Millis,
) -> Result<(ApiKey, String)> {
    validate_key_name(name)?;
    if scope == KeyScope::Openai {
        return Err(LedgerError::Invalid(
            "a new key's scope is send or all (openai is only the scope of keys made before scopes existed)".into(),
        ));
    }
    sends::validate_note("who makes the key", by)?;
    let live: i64 = tx.query_row(
        "SELECT count(*) FROM api_keys WHERE revoked_at IS NULL",
        [],
        |r| r.get(0),
    )?;
    if live >= MAX_LIVE_KEYS {
        return Err(LedgerError::Invalid(format!(
            "{MAX_LIVE_KEYS} live keys already: revoke one (`sendledger keys revoke NAME`) first"
        )));
    }
    let taken: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM api_keys WHERE name = ?1 AND revoked_at IS NULL)",
        [name],
        |r| r.get(0),
    )?;
    if taken {
        return Err(LedgerError::Invalid(format!(
            "a live key is already named {name:?}: revoke it first or choose another name"
        )));
    }
    let bytes: [u8; 32] = rand::random();
    let secret = format!(
        "{KEY_PREFIX}{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    );
    tx.execute(
        "INSERT INTO api_keys(name, key_sha256, created_at, created_by, scope) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![name, key_sha256(&secret), now, by, scope.as_str()],
    )?;
    let key = ApiKey {
        name: name.into(),
        scope,
        created_at: now,
        created_by: by.into(),
        last_used_at: None,
        revoked_at: None,
    };
    Ok((key, secret))
}

fn revoke_key(
    tx: &Transaction,
    name: &str,
    by: &str,
    only_sha256: Option<&str>,
    now: Millis,
) -> Result<ApiKey> {
    sends::validate_note("who revokes the key", by)?;
    if let Some(h) = only_sha256 {
        if h.len() != 64
            || !h
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(LedgerError::Invalid(
                "key_sha256 must be 64 lowercase hex digits (the SHA-256 of the key's secret)"
                    .into(),
            ));
        }
    }
    let n = tx.execute(
        "UPDATE api_keys SET revoked_at = ?2, revoked_by = ?3 \
         WHERE name = ?1 AND revoked_at IS NULL AND (?4 IS NULL OR key_sha256 = ?4)",
        params![name, now, by, only_sha256],
    )?;
    if n == 0 {
        return Err(LedgerError::Invalid(match only_sha256 {
            None => format!(
                "no live key named {}: see `sendledger keys list`",
                super::error::quoted(name)
            ),
            Some(_) => format!(
                "the key named {} meant here is no longer live (revoked, perhaps made again, meanwhile): nothing was revoked; see `sendledger keys list`",
                super::error::quoted(name)
            ),
        }));
    }
    Ok(tx.query_row(
        &format!(
            "SELECT {KEY_COLUMNS} FROM api_keys WHERE name = ?1 AND (?2 IS NULL OR key_sha256 = ?2) \
             ORDER BY seq DESC LIMIT 1"
        ),
        params![name, only_sha256],
        key_from_row,
    )?)
}

/// The live key whose secret is `secret`, its use recorded (to the minute).
fn use_key(tx: &Transaction, secret: &str, now: Millis) -> Result<Option<ApiKey>> {
    if !secret.starts_with(KEY_PREFIX) {
        return Ok(None);
    }
    let hash = key_sha256(secret);
    let found = tx
        .query_row(
            &format!(
                "SELECT {KEY_COLUMNS} FROM api_keys WHERE key_sha256 = ?1 AND revoked_at IS NULL"
            ),
            [&hash],
            key_from_row,
        )
        .optional()?;
    let Some(mut key) = found else {
        return Ok(None);
    };
    if key
        .last_used_at
        .is_none_or(|t| now - t >= KEY_USE_RESOLUTION_MS)
    {
        tx.execute(
            "UPDATE api_keys SET last_used_at = ?2 WHERE key_sha256 = ?1",
            params![hash, now],
        )?;
        key.last_used_at = Some(now);
    }
    Ok(Some(key))
}

/// What the door asks when it queues a send.
#[derive(Debug, Clone)]
pub struct DoorQueue {
    /// The send (its `op_id` set: the Idempotency-Key or a new one).
    pub send: QueueRequest,
    /// Who asked, as the door matches retries (`client-token` or `key:<SHA-256 of the
    /// key>`).
    pub client: String,
    /// Who asked, as people read it: the send's actor (`openai:key:<name>`,
    /// `openai:client-token`).
    pub actor: String,
    /// SHA-256 (hex) of the request's identity (what it asks to send, and where).
    pub body_sha256: String,
    /// Whether `send.op_id` is the request's Idempotency-Key. Unkeyed requests attach
    /// to a matching send (the module's attach rule) before one is queued.
    pub keyed: bool,
}

/// The newest send a door queued for `fingerprint` that a request without a key still
/// attaches to (see the module's attach rule), as of `now`.
fn attachable(conn: &Connection, fingerprint: &str, now: Millis) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT d.op_id FROM door_requests d JOIN sends s ON s.op_id = d.op_id \
             WHERE d.fingerprint = ?1 \
               AND (s.state IN ('queued', 'claimed', 'dispatched', 'accepted', 'uncertain') \
                    OR (s.updated_at >= ?2 AND (s.state <> 'rejected' \
                        OR EXISTS (SELECT 1 FROM sends r WHERE r.resend_of = s.op_id)))) \
             ORDER BY d.created_at DESC, d.rowid DESC LIMIT 1",
            params![fingerprint, now - ATTACH_AFTER_SETTLED_MS],
            |r| r.get(0),
        )
        .optional()?)
}

fn door_request(conn: &Connection, op_id: &str) -> Result<Option<DoorRequest>> {
    Ok(conn
        .query_row(
            &format!("SELECT {DOOR_COLUMNS} FROM door_requests WHERE op_id = ?1"),
            [op_id],
            door_from_row,
        )
        .optional()?)
}

/// The newest copy of `op_id` a person queued again (resend, requeue), following at most
/// [`MAX_SUCCESSORS`] links; `op_id` itself when there is none.
fn newest_copy(conn: &Connection, op_id: &str) -> Result<String> {
    let mut op = op_id.to_string();
    for _ in 0..MAX_SUCCESSORS {
        let next: Option<String> = conn
            .query_row(
                "SELECT op_id FROM sends WHERE resend_of = ?1 ORDER BY seq LIMIT 1",
                [&op],
                |r| r.get(0),
            )
            .optional()?;
        match next {
            Some(n) => op = n,
            None => break,
        }
    }
    Ok(op)
}

/// Queues the door's send and its record in one transaction. An unkeyed request that
/// matches an attachable send is that send (`false`, nothing written). A keyed request
/// whose key was already used: the same client and body is the same send (`false`),
/// anything else is refused (`IdempotencyKeyReused`), and nothing is written.
fn door_queue(tx: &Transaction, q: &DoorQueue, now: Millis) -> Result<(Send, bool)> {
    if !q.keyed {
        let fp = fingerprint(&q.client, &q.body_sha256);
        if let Some(op_id) = attachable(tx, &fp, now)? {
            return Ok((sends::load(tx, &newest_copy(tx, &op_id)?)?, false));
        }
    }
    let op_id = q
        .send
        .op_id
        .clone()
        .ok_or_else(|| LedgerError::Invalid("the door names its operation id".into()))?;
    sends::validate_op_id(&op_id)?;
    if let Some(seen) = door_request(tx, &op_id)? {
        if seen.client != q.client || seen.body_sha256 != q.body_sha256 || !seen.keyed {
            return Err(LedgerError::IdempotencyKeyReused(op_id));
        }
        return Ok((sends::load(tx, &op_id)?, false));
    }
    if super::rows::get(tx, &op_id)?.is_some() {
        return Err(LedgerError::IdempotencyKeyReused(op_id));
    }
    let (send, created) = sends::queue(tx, &q.send, &q.actor, None, now)?;
    tx.execute(
        "INSERT INTO door_requests(op_id, client, body_sha256, fingerprint, keyed, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            op_id,
            q.client,
            q.body_sha256,
            fingerprint(&q.client, &q.body_sha256),
            q.keyed as i64,
            now
        ],
    )?;
    Ok((send, created))
}

impl Ledger {
    /// Makes a named key of `scope`; returns it and its secret (shown once, never
    /// stored). Errors: `Invalid` for a bad or taken name, the `openai` scope (only keys
    /// made before scopes have it), or 100 live keys already.
    pub fn key_create(
        &mut self,
        name: &str,
        scope: KeyScope,
        by: &str,
    ) -> Result<(ApiKey, String)> {
        self.write(|tx, now| create_key(tx, name, scope, by, now))
    }

    /// Whether the key whose secret hashes to `key_sha256` is live (made and not
    /// revoked): a read, for calls a key holds open (a wait, a stream).
    pub fn key_live(&self, key_sha256: &str) -> Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM api_keys WHERE key_sha256 = ?1 AND revoked_at IS NULL)",
            [key_sha256],
            |r| r.get(0),
        )?)
    }

    /// Revokes the live key `name` (final). Errors: `Invalid` when none is live.
    pub fn key_revoke(&mut self, name: &str, by: &str) -> Result<ApiKey> {
        self.write(|tx, now| revoke_key(tx, name, by, None, now))
    }

    /// Revokes the live key `name` only if it is the one whose secret hashes to
    /// `key_sha256` (lowercase hex SHA-256): never another key made under that name since.
    /// Errors: `Invalid` when that key is not live.
    pub fn key_revoke_exact(&mut self, name: &str, key_sha256: &str, by: &str) -> Result<ApiKey> {
        self.write(|tx, now| revoke_key(tx, name, by, Some(key_sha256), now))
    }

    /// Every key ever made, newest first (revoked ones included).
    pub fn keys(&self) -> Result<Vec<ApiKey>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {KEY_COLUMNS} FROM api_keys ORDER BY seq DESC"
        ))?;
        let rows = st.query_map([], key_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The live key with this secret, its use recorded; `None`: unknown or revoked.
    pub fn key_use(&mut self, secret: &str) -> Result<Option<ApiKey>> {
        self.write(|tx, now| use_key(tx, secret, now))
    }

    /// Queues a send for the door with its record (one transaction); see [`DoorQueue`].
    pub fn door_queue(&mut self, q: &DoorQueue) -> Result<(Send, bool)> {
        self.write(|tx, now| door_queue(tx, q, now))
    }

    /// The door's record of `op_id`, if the door queued it.
    pub fn door_request(&self, op_id: &str) -> Result<Option<DoorRequest>> {
        door_request(&self.conn, op_id)
    }

    /// The send a request without a key and with `fingerprint` attaches to now, if any
    /// (the module's attach rule; before following a person's copies).
    pub fn door_attachable(&self, fingerprint: &str) -> Result<Option<String>> {
        attachable(&self.conn, fingerprint, self.now_ms())
    }

    /// The newest copy of `op_id` a person queued again (resend, requeue); `op_id`
    /// itself when there is none.
    pub fn newest_copy(&self, op_id: &str) -> Result<String> {
        newest_copy(&self.conn, op_id)
    }

    /// Records the page's model slug for a send the door queued (no-op for other sends).
    pub fn door_note_model(&mut self, op_id: &str, model: &str) -> Result<()> {
        if model.is_empty() || model.len() > 128 {
            return Ok(());
        }
        self.write(|tx, _| {
            tx.execute(
                "UPDATE door_requests SET model = ?2 WHERE op_id = ?1 AND model IS NULL",
                params![op_id, model],
            )?;
            Ok(())
        })
    }
}
