//! How the bridge holds connections, so that it keeps answering (and Stop gets through)
//! whatever else holds connections to it:
//!
//! - a connection must deliver a complete request head within [`HEAD_TIMEOUT_MS`] of
//!   being accepted or of its previous answer (hyper's `header_read_timeout`): idle and
//!   byte-a-second connections are closed;
//! - at most [`connection_cap`] connections are open at once (below the open-file limit);
//!   a connection past the cap closes the one idle longest (no request in flight), and is
//!   itself closed when every open one is busy;
//! - [`raise_open_file_limit`] lifts the owner's soft open-file limit to its hard limit
//!   at start (a soft 1024 is common; the hard limit is usually far higher).
//!
//! HTTP/1.1 only: the bridge's clients (the CLI, companions, the extension's `fetch`)
//! speak it, and HTTP/2 over plain loopback is never negotiated by a browser.

use axum::body::Body;
use axum::Router;
use http_body_util::BodyExt;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// How long a connection may take to deliver a complete request head, in ms (counted
/// from its acceptance, or from the end of its previous answer on a kept-alive one).
pub const HEAD_TIMEOUT_MS: u64 = 5_000;
/// Most connections open at once, whatever the open-file limit allows.
pub const MAX_CONNECTIONS: usize = 512;
/// Open files kept free of connections for the ledger, its journal, the profile's
/// files and the log.
pub const RESERVED_FILES: u64 = 64;
/// Fewest connections allowed however low the open-file limit is.
const MIN_CONNECTIONS: usize = 8;

/// Raises the open-file limit where the OS has one; returns the limit in force
/// afterwards (see [`crate::platform::raise_open_file_limit`]).
pub fn raise_open_file_limit() -> u64 {
    crate::platform::raise_open_file_limit()
}

/// The connection cap for a soft open-file limit of `open_files`: room for
/// [`RESERVED_FILES`], at most [`MAX_CONNECTIONS`], at least 8.
pub fn connection_cap(open_files: u64) -> usize {
    let room = open_files.saturating_sub(RESERVED_FILES);
    usize::try_from(room)
        .unwrap_or(usize::MAX)
        .clamp(MIN_CONNECTIONS, MAX_CONNECTIONS)
}

/// One open connection: requests in flight (an answer's body counts until it is sent or
/// dropped), when it last went idle, and how to close it.
struct Conn {
    in_flight: AtomicUsize,
    idle_since_ms: AtomicU64,
    close: Notify,
}

/// The open connections.
struct Registry {
    started: Instant,
    next_id: AtomicU64,
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
}

impl Registry {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Makes room for one more connection under `cap`; `false` when every open one is busy.
    fn make_room(&self, cap: usize) -> bool {
        let mut conns = self.lock();
        if conns.len() < cap {
            return true;
        }
        let idlest = conns
            .iter()
            .filter(|(_, c)| c.in_flight.load(Ordering::SeqCst) == 0)
            .min_by_key(|(_, c)| c.idle_since_ms.load(Ordering::SeqCst))
            .map(|(id, _)| *id);
        match idlest.and_then(|id| conns.remove(&id)) {
            Some(c) => {
                c.close.notify_one();
                true
            }
            None => false,
        }
    }

    fn add(&self) -> (u64, Arc<Conn>) {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let conn = Arc::new(Conn {
            in_flight: AtomicUsize::new(0),
            idle_since_ms: AtomicU64::new(self.now_ms()),
            close: Notify::new(),
        });
        self.lock().insert(id, conn.clone());
        (id, conn)
    }

    fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }
}

/// Marks a request in flight on its connection until dropped (with its answer's body).
struct Busy {
    conn: Arc<Conn>,
    registry: Arc<Registry>,
}

impl Busy {
    fn new(conn: Arc<Conn>, registry: Arc<Registry>) -> Self {
        conn.in_flight.fetch_add(1, Ordering::SeqCst);
        Busy { conn, registry }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.conn
            .idle_since_ms
            .store(self.registry.now_ms(), Ordering::SeqCst);
        self.conn.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serves `app` on `listener` under the bounds above until `shutdown` resolves, then
/// lets open connections finish their requests (the caller bounds that wait).
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    cap: usize,
    shutdown: impl Future<Output = ()>,
) {
    let registry = Arc::new(Registry {
        started: Instant::now(),
        next_id: AtomicU64::new(0),
        conns: Mutex::new(HashMap::new()),
    });
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_millis(HEAD_TIMEOUT_MS));
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    accept_failed(&registry, cap, &e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if !registry.make_room(cap) {
            tracing::debug!(cap, "every connection is busy: a new one was closed");
            continue;
        }
        let (id, conn) = registry.add();
        let service = Tracked {
            app: app.clone(),
            conn: conn.clone(),
            registry: registry.clone(),
        };
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        let registry = registry.clone();
        tokio::spawn(async move {
            tokio::select! {
                r = connection => if let Err(e) = r {
                    tracing::trace!(error = %e, "a connection ended with an error");
                },
                () = conn.close.notified() => tracing::trace!("an idle connection was closed to make room"),
            }
            registry.remove(id);
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// Out of file descriptors (or a connection that failed before it was accepted): the
/// idlest connection makes room, and the loop does not spin.
async fn accept_failed(registry: &Registry, cap: usize, e: &std::io::Error) {
    tracing::debug!(error = %e, "accepting a connection failed");
    if crate::platform::out_of_files(e) {
        let open = registry.lock().len();
        registry.make_room(open.min(cap));
    }
    tokio::time::sleep(Duration::from_millis(10)).await;
}

/// The router as a hyper service whose requests (and answer bodies) mark the
/// connection busy.
#[derive(Clone)]
struct Tracked {
    app: Router,
    conn: Arc<Conn>,
    registry: Arc<Registry>,
}

type Answer = Result<hyper::Response<Body>, std::convert::Infallible>;

impl hyper::service::Service<hyper::Request<hyper::body::Incoming>> for Tracked {
    type Response = hyper::Response<Body>;
    type Error = std::convert::Infallible;
    type Future = futures_util::future::BoxFuture<'static, Answer>;

    fn call(&self, req: hyper::Request<hyper::body::Incoming>) -> Self::Future {
        let busy = Busy::new(self.conn.clone(), self.registry.clone());
        let mut app = self.app.clone();
        Box::pin(async move {
            let res = tower_service::Service::call(&mut app, req.map(Body::new)).await?;
            Ok(res.map(|body| {
                Body::new(body.map_frame(move |frame| {
                    let _in_flight = &busy;
                    frame
                }))
            }))
        })
    }
}
