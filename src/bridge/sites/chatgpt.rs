//! chatgpt.com's turn reader: the conversation request and its stream (HTTP, then the
//! WebSocket after a hand-off) → receipt, answer, the page's error, a stream not
//! recognised (the page-changed gate).

use crate::bridge::observations::{Answered, Fact, STREAM_NOT_RECOGNISED};
use crate::bridge::turn::{Progress, Read, TurnReader};
use crate::ledger::Receipt;
use crate::provider::chatgpt::{
    self, request,
    stream::{StreamDecoder, TurnObservation},
};

/// One chatgpt.com turn being followed.
pub struct Turn {
    request: request::ConversationRequest,
    decoder: StreamDecoder,
}

impl Turn {
    /// Reads the stream answering `request`.
    pub fn new(request: request::ConversationRequest) -> Self {
        Turn {
            request,
            decoder: StreamDecoder::new(),
        }
    }

    fn receipt(&self, obs: &TurnObservation, (op_id, text): (&str, &str)) -> Option<Fact> {
        let r = chatgpt::receipt_for(&self.request, obs, text)?;
        Some(Fact::Receipt(
            op_id.into(),
            Receipt {
                conversation_id: r.conversation_id,
                user_message_id: r.user_message_id,
                turn_id: r.turn_id,
            },
        ))
    }

    /// The answer's facts: the model that wrote it, then the answer.
    fn answer(&self, obs: &TurnObservation, op_id: &str, facts: &mut Vec<Fact>) -> bool {
        let user = &self.request.user_message_id;
        let chatgpt::TurnOutcome::Answered { message_id, text } =
            chatgpt::answer_outcome(obs, user)
        else {
            return false;
        };
        let model = chatgpt::answer_so_far(obs, user).and_then(|(_, m)| m);
        if let Some(answered) = &model {
            let requested = self.request.model.clone();
            facts.push(Fact::AnsweredBy(op_id.into(), answered.clone(), requested));
        }
        let artifacts = chatgpt::artifacts::artifacts_of(obs, user);
        facts.push(Fact::Answer(
            op_id.into(),
            Answered {
                message_id,
                text,
                model,
                artifacts,
            },
        ));
        true
    }

    /// At the end of a turn with no answer: the page's own error (or moderation block)
    /// ends an accepted send `page_error`; before the receipt it is a note.
    fn refusal(obs: &TurnObservation, op_id: &str, accepted: bool) -> Option<Fact> {
        let message = obs.error.clone().or_else(|| obs.blocked.clone())?;
        Some(if accepted {
            Fact::PageError(op_id.into(), message, obs.error_code.clone())
        } else {
            Fact::Note(
                op_id.into(),
                format!("the page answered with an error before its receipt was seen: {message}"),
            )
        })
    }
}

impl TurnReader for Turn {
    fn feed(&mut self, bytes: &[u8]) {
        self.decoder.feed(bytes);
    }

    fn feed_frame(&mut self, frame: &str) -> bool {
        self.decoder.feed_websocket_frame(frame).understood()
    }

    fn nests_too_deep(&self) -> bool {
        self.decoder.nests_too_deep()
    }

    /// At the end of the HTTP stream the decoder is finished (an unterminated last line
    /// counts, a cut stream says so) — unless the turn was handed off and its answer is
    /// still to come over the WebSocket: then it stays followed.
    fn read(&mut self, (op_id, text): (&str, &str), p: &mut Progress, ended: bool) -> Read {
        let snapshot = self.decoder.snapshot();
        let handed_off = snapshot.handoff.is_some() && !p.completed;
        let finishing = ended && !handed_off;
        let obs = if finishing {
            std::mem::take(&mut self.decoder).finish()
        } else {
            snapshot
        };
        let mut facts = Vec::new();
        if !p.accepted {
            if let Some(receipt) = self.receipt(&obs, (op_id, text)) {
                p.accepted = true;
                facts.push(receipt);
            }
        }
        if p.accepted && !p.completed && self.answer(&obs, op_id, &mut facts) {
            p.completed = true;
        }
        if finishing && !p.accepted && chatgpt::traffic::stream_not_recognised(&obs) {
            facts.push(Fact::PageChanged(
                op_id.into(),
                chatgpt::traffic::STREAM_MARKERS,
                STREAM_NOT_RECOGNISED.into(),
            ));
        } else if finishing && !p.completed {
            facts.extend(Self::refusal(&obs, op_id, p.accepted));
        }
        let user = &self.request.user_message_id;
        let live = chatgpt::answer_so_far(&obs, user)
            .filter(|(text, _)| p.accepted && text.len() != p.live_len)
            .map(|(text, model)| {
                p.live_len = text.len();
                (op_id.to_string(), text, model)
            });
        Read {
            facts,
            outcome: chatgpt::answer_outcome(&obs, user).to_string(),
            live,
            finished: finishing,
        }
    }
}
