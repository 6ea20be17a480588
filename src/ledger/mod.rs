//! The ledger: one SQLite file per profile, one owner process, every transition durable
//! before it is acknowledged. It knows nothing of HTTP, browsers or chat formats.
//!
//! This file is the room's table of contents; no module below imports one that imports
//! it back (tests/architecture.rs, `no_import_circle_inside_the_ledger`).
//!
//! | Part | Modules |
//! |---|---|
//! | Handles | `handle` ([`Ledger`]: the owner's, the only writer), `reads` ([`LedgerRead`], the one read API; [`LedgerReader`], read-only beside an owner) |
//! | The owner's acts | `acts` (sends and leases), `artifact_acts` (an answer's artifacts), `stop_resume` (Stop, Resume), `upkeep` (expiry, notifications, remote stops, tool calls), `rebuild` (salvage) |
//! | Custody rules | `sends`, `leases`, `epochs`, `fence`, `limit_gate`, `page_gate`, `remote_stop`, `expiry`, `recovery`, `deadlines`, `door`, `tool_calls`, `tab_reports`, `page_checks`, `destinations`, `page_destination`, `attachments`, `page_attachments`, `artifacts`, `titles` |
//! | Reading | `rows` (row queries), `row_parts` (what a page of rows shows, one query a part), `overview` ([`Status`], [`Glance`]), `sections` (shelves), `waiting`, `holds` (each site's hold, [`Holds`]), `notifications`, `local_time` |
//! | The file | `store`, `migrations`, `schema` (a new ledger in one script), `trigger` (trigger messages, parsed here only), `error`, `placement`, `displacement`, `salvage`, `traces` |
//! | Values | `record`, `state` |
//! | Live | `writer` (the owner's serialised writer and change feed) |

mod acts;
mod artifact_acts;
mod artifacts;
mod attachments;
mod counts;
mod damage;
mod deadlines;
mod destinations;
mod displacement;
mod door;
mod epochs;
mod error;
mod expiry;
mod fence;
mod handle;
mod holds;
mod in_flight;
mod leases;
mod limit_gate;
mod local_time;
pub mod migrations;
mod notifications;
mod overview;
mod page_attachments;
mod page_checks;
mod page_destination;
mod page_gate;
mod placement;
mod reads;
mod rebuild;
mod record;
mod recovery;
mod remote_stop;
mod retention;
mod row_parts;
mod rows;
mod salvage;
pub mod schema;
mod sections;
mod sends;
mod state;
mod stop_resume;
mod store;
mod tab_reports;
mod titles;
mod tool_calls;
mod traces;
mod trigger;
mod upkeep;
mod waiting;
mod writer;

pub use artifacts::{expired_words, Artifact, ArtifactState, WantedArtifact};
pub use attachments::SendAttachment;
pub use damage::{inline_limit as whole_check_limit, INLINE_CHECK_BYTES};
pub use displacement::Displacement;
pub use door::{
    fingerprint, key_sha256, ApiKey, DoorQueue, DoorRequest, KeyScope, ATTACH_AFTER_SETTLED_MS,
    KEY_PREFIX, MAX_LIVE_KEYS,
};
pub use epochs::{
    canonical_binding, epoch_of, unbound_epoch, Lease, TabBinding, STOPPED_EPOCHS_KEPT,
};
pub use error::{LedgerError, Result};
pub use expiry::{Bounds, Expired};
pub use fence::StopReport;
pub use handle::{displacement_of, Ledger};
pub use holds::Holds;
pub use in_flight::MAX_IN_FLIGHT;
pub use leases::RELEASED_BEFORE_GRANT;
pub use limit_gate::{LimitGate, RetryAfter, UNKNOWN_RESET_S};
pub use local_time::local_time;
pub use overview::{Glance, Status};
pub use page_attachments::PageAttachments;
pub use page_checks::{PageCheck, MAX_PAGE_CHECKS};
pub use page_destination::{PageDestination, MISMATCH_NOTE};
pub use page_gate::PageGate;
pub use reads::{LedgerRead, LedgerReader, ReadSource};
pub use record::{Answer, Event, EventKind, EvidenceKind, NoteKind, Receipt, Send};
pub use recovery::{RecoveryReport, IN_FLIGHT_AT_RESTART, QUEUED_AT_RESTART, RECOVERY_ACTOR};
pub use remote_stop::{said as remote_said, RemotePhase, RemoteStop};
pub use retention::{Pruned, Retention, MAX_RETENTION_DAYS, PRUNE_BATCH};
pub use row_parts::{sql as row_parts_sql, RowParts};
pub use rows::ListFilter;
pub use salvage::{
    on_progress as on_salvage_progress, SalvageProgress, SalvageReport, TableSalvage, MAX_MISSES,
};
pub use sections::{pending_by_site_sql, sql as shelf_sql, Shelf, MAX_PAGE, STOPPED_AGAIN_SQL};
pub use sends::{
    prepare_text, Decision, FailStage, Grant, LimitHold, PageError, QueueRequest, Resolution,
    Resolved, MAX_NOTE_BYTES, MAX_OP_ID_BYTES,
};
pub use state::SendState;
pub use tab_reports::{TabReport, MAX_TAB_REPORTS};
pub use titles::{MAX_TITLES, MAX_TITLE_CHARS};
pub use tool_calls::{Admission, ToolCall, ToolState, TOOL_RECEIPTS_CAP};
pub use traces::{first_page_unreadable, unreadable_first_page, BrokenReference};
pub use waiting::Waiting;
pub use writer::Writer;
