//! The four tools and the server that lists them: `send_message`, `get_send`,
//! `list_uncertain`, `stop`. No tool resumes sending or decides an uncertain send: those
//! stay a person's.

use super::args::{self, GetSendArgs, NoArgs, SendMessageArgs};
use super::outcome::SendOutcome;
use super::progress::Progress;
use super::reports::{self, StopOutcome, UncertainSends};
use super::seen::{ListedSeen, Looked, QueuedSeen, StoppedSeen};
use super::{refusal, wait};
use crate::client::routes::{self, paths, SendBody};
use crate::client::{ClientError, OwnerLink};
use rmcp::handler::server::tool::schema_for_output;
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer};
use serde::Serialize;

/// The MCP server: a client of the profile's running owner.
#[derive(Debug, Clone)]
pub struct Tools {
    link: OwnerLink,
}

type ToolAnswer = Result<CallToolResult, ErrorData>;

fn structured(v: &impl Serialize) -> CallToolResult {
    CallToolResult::structured(serde_json::to_value(v).expect("a tool result serialises"))
}

#[tool_router]
impl Tools {
    /// The tools over `link`.
    pub fn new(link: OwnerLink) -> Self {
        Self { link }
    }

    #[tool(
        name = "send_message",
        title = "Send a message into the user's ChatGPT tab",
        description = "Types a message into the user's own ChatGPT tab (or, with site \"claude\", their claude.ai tab) and sends it, at most once, then waits up to wait_seconds for the answer. Always pass an idempotency_key: calling again with the same key and text returns the same send and never sends twice. Read `status` in the result: completed (the answer is in `answer`), pending (still running: call get_send with send_id; never send again), uncertain (it may or may not have been sent: do NOT send again, ask the user to confirm or abandon it in sendledger), rejected (never reached the chat), stopped (a person pressed Stop or withdrew it: do not retry), page_error (ChatGPT received it and answered with an error: it was sent once). Send again only when retry_safe is true, and then with a new idempotency_key.",
        input_schema = args::schema::<SendMessageArgs>(),
        output_schema = schema_for_output::<SendOutcome>(),
        annotations(
            title = "Send a message into the user's ChatGPT tab",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn send_message(&self, raw: JsonObject, ctx: RequestContext<RoleServer>) -> ToolAnswer {
        let a: SendMessageArgs = match args::parse(raw) {
            Ok(a) => a,
            Err(e) => return Ok(refusal::bad_input(&e)),
        };
        let checked = args::wait(a.wait_seconds, args::DEFAULT_SEND_WAIT_SECONDS).and_then(|w| {
            let site = args::site(a.site.as_deref())?;
            Ok((w, site, args::operation_id(a.idempotency_key.as_deref())?))
        });
        let (wait_for, site, op_id) = match checked {
            Ok(c) => c,
            Err(e) => return Ok(refusal::bad_input(&e)),
        };
        let files = match super::attachments::read_all(&a.attachments) {
            Ok(f) => f,
            Err(e) => return Ok(refusal::bad_input(&e)),
        };
        let shas = match super::attachments::upload_all(&self.link, files).await {
            Ok(s) => s,
            Err(e) => return Ok(refusal::send_refused(&e)),
        };
        let queue = routes::queue(SendBody {
            op_id: Some(op_id.clone()),
            site,
            text: a.text,
            conversation_id: a.conversation_id,
            project_id: a.project_id,
            new_chat: a.new_chat,
            model: a.model,
            effort: a.effort,
            attachments: shas,
        });
        let queued: QueuedSeen = match self.link.send_route(queue).await {
            Ok(v) => v,
            Err(ClientError::Lost(detail)) => {
                return Ok(self.after_lost_queue(&op_id, &detail).await)
            }
            Err(e) => return Ok(refusal::send_refused(&e)),
        };
        let progress = Progress::of(&ctx, wait_for);
        let settled = wait::settle(&self.link, queued.send, Vec::new(), wait_for, &progress).await;
        let mut outcome = settled.outcome(false);
        if queued.created == Some(false) {
            outcome.message = format!(
                "This idempotency_key already named this message: it is the same send, and nothing new was sent. {}",
                outcome.message
            );
        }
        Ok(self
            .with_files(structured(&outcome), &outcome, wait_for)
            .await)
    }

    #[tool(
        name = "get_send",
        title = "Look up a send",
        description = "Reads where a send stands (by the send_id a send_message result gave), optionally waiting up to wait_seconds for a pending send to settle, and returns the same fields as send_message plus its timeline. It never sends anything: call it as often as you like. If `status` is uncertain, do not send the message again: ask the user to confirm or abandon it in sendledger.",
        input_schema = args::schema::<GetSendArgs>(),
        output_schema = schema_for_output::<SendOutcome>(),
        annotations(
            title = "Look up a send",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_send(&self, raw: JsonObject, ctx: RequestContext<RoleServer>) -> ToolAnswer {
        let a: GetSendArgs = match args::parse(raw) {
            Ok(a) => a,
            Err(e) => return Ok(refusal::bad_input(&e)),
        };
        let wait_for = match args::wait(a.wait_seconds, 0) {
            Ok(w) => w,
            Err(e) => return Ok(refusal::bad_input(&e)),
        };
        let Looked {
            send,
            timeline,
            retry_after,
        } = match wait::look_up(&self.link, &a.send_id).await {
            Ok(found) => found,
            Err(e) => return Ok(refusal::lookup_failed(&e)),
        };
        let progress = Progress::of(&ctx, wait_for);
        let mut settled = wait::settle(&self.link, send, timeline, wait_for, &progress).await;
        settled.retry_after = settled.retry_after.or(retry_after);
        let outcome = settled.outcome(true);
        Ok(self
            .with_files(structured(&outcome), &outcome, wait_for)
            .await)
    }

    #[tool(
        name = "list_uncertain",
        title = "List sends that need a person",
        description = "Lists the sends that may or may not have reached ChatGPT and wait for a person to confirm or abandon them in sendledger. Read-only. Never send any of them again; tell the user they are waiting.",
        input_schema = args::schema::<NoArgs>(),
        output_schema = schema_for_output::<UncertainSends>(),
        annotations(
            title = "List sends that need a person",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn list_uncertain(&self, raw: JsonObject) -> ToolAnswer {
        if let Err(e) = args::parse::<NoArgs>(raw) {
            return Ok(refusal::bad_input(&e));
        }
        let path = paths::sends_in("uncertain", 100);
        match self.link.get::<ListedSeen>(path).await {
            Ok(v) => Ok(structured(&reports::uncertain(&v))),
            Err(e) => Ok(refusal::lookup_failed(&e)),
        }
    }

    #[tool(
        name = "stop",
        title = "Stop sending (the brake)",
        description = "The emergency brake: sendledger sends nothing more into ChatGPT. Sends not yet sent are stopped for good, and for one already sent the tab is asked to stop ChatGPT's answer. Use it when the user asks you to stop, or when sends are going wrong. Only a person can resume, in sendledger; no tool does.",
        input_schema = args::schema::<NoArgs>(),
        output_schema = schema_for_output::<StopOutcome>(),
        annotations(
            title = "Stop sending (the brake)",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn stop(&self, raw: JsonObject) -> ToolAnswer {
        if let Err(e) = args::parse::<NoArgs>(raw) {
            return Ok(refusal::bad_input(&e));
        }
        match self
            .link
            .send_route::<StoppedSeen>(routes::stop("mcp"))
            .await
        {
            Ok(v) => Ok(structured(&reports::stopped(&v))),
            Err(ClientError::NoOwner) => Ok(refusal::did_nothing(format!(
                "{} While it is not running nothing is sent; to keep it stopped when it starts, run `sendledger stop` in a terminal.",
                refusal::NO_OWNER
            ))),
            Err(e @ ClientError::Refused { .. }) => Ok(refusal::did_nothing(format!(
                "sendledger refused the stop: {e}. Ask the user to press Stop in the sendledger app or run `sendledger stop`."
            ))),
            Err(ClientError::Lost(d)) => Ok(refusal::did_nothing(format!(
                "sendledger did not answer the stop ({d}); it may or may not have stopped. Calling stop again is safe."
            ))),
        }
    }
}

impl Tools {
    /// A completed send's generated files added to its result's content (`super::artifacts`).
    async fn with_files(
        &self,
        mut result: CallToolResult,
        outcome: &SendOutcome,
        wait_for: std::time::Duration,
    ) -> CallToolResult {
        if outcome.status == super::outcome::Status::Completed {
            let files = super::artifacts::contents(&self.link, &outcome.send_id, wait_for).await;
            result.content.extend(files);
        }
        result
    }

    /// The owner took the queue request but its answer was lost: ask again by id (the
    /// operation id was made before sending, so the answer cannot be a second send). An
    /// owner that does not know the id yet may still be about to read the request: that
    /// is no proof that nothing was sent, so it answers `pending` with the id too.
    async fn after_lost_queue(&self, op_id: &str, detail: &str) -> CallToolResult {
        let path = paths::send(op_id);
        match self.link.get::<Looked>(path).await {
            Ok(v) => structured(
                &wait::Settled {
                    send: v.send,
                    timeline: Vec::new(),
                    interrupted: None,
                    retry_after: v.retry_after,
                }
                .outcome(false),
            ),
            Err(_) => structured(&super::outcome::lost(op_id, detail)),
        }
    }
}

#[tool_handler(
    name = "sendledger",
    instructions = "sendledger sends messages into the user's own ChatGPT tab, each at most once, and says so when it cannot know whether one went out. Give every send_message an idempotency_key. A result with status uncertain is not an error to retry: never send that message again; ask the user to confirm or abandon it in sendledger. Only the user can resume after a stop."
)]
impl rmcp::ServerHandler for Tools {}
