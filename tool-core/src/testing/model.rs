//! [`ScriptedModel`]: a model that answers from a script in a provider's tool-calling shape,
//! and [`AgentLoop`], the loop a host runs around it (import, repair, validation, the call,
//! the result message), so an agent loop is tested end to end without a provider.

use std::collections::VecDeque;

use serde_json::{Value, json};

use crate::provider::{
    Importer, anthropic_block, dispatch, openai_message, rejected_import, responses_output,
};
use crate::render::ResourcesTracker;
use crate::runtime::{CallOutcome, Session};

/// The most turns [`AgentLoop::run`] takes before it stops a model that never stops calling.
pub const MAX_TURNS: usize = 16;

/// A provider's tool-calling shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions: an assistant message with `tool_calls` (arguments as JSON
    /// text), answered by `role: "tool"` messages.
    OpenaiChat,
    /// OpenAI Responses: `function_call` output items (arguments as JSON text), answered by
    /// `function_call_output` items.
    OpenaiResponses,
    /// Anthropic Messages: `tool_use` content blocks (`input` as JSON), answered by
    /// `tool_result` blocks in a user message.
    Anthropic,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: &'static [Dialect] = &[
        Dialect::OpenaiChat,
        Dialect::OpenaiResponses,
        Dialect::Anthropic,
    ];
}

/// One tool call a scripted model makes.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedCall {
    name: String,
    /// The arguments as JSON, or as the text the model wrote (which may not be JSON at all).
    arguments: Result<Value, String>,
}

impl ScriptedCall {
    /// A call of `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: Value) -> ScriptedCall {
        ScriptedCall {
            name: name.into(),
            arguments: Ok(arguments),
        }
    }

    /// A call of `name` whose arguments are `text` exactly as a model wrote it: JSON with a
    /// trailing comma, a fence around it, `"true"` for `true`. Under
    /// [`Dialect::Anthropic`] the text is sent as the `input` string, as models sometimes do.
    pub fn raw(name: impl Into<String>, text: impl Into<String>) -> ScriptedCall {
        ScriptedCall {
            name: name.into(),
            arguments: Err(text.into()),
        }
    }

    fn arguments_text(&self) -> String {
        match &self.arguments {
            Ok(v) => v.to_string(),
            Err(text) => text.clone(),
        }
    }
}

/// A turn decided from the conversation so far ([`Turn::Respond`]).
pub type Respond = Box<dyn FnOnce(&[Value]) -> Turn + Send>;

/// What the model says on one turn.
pub enum Turn {
    /// A text answer: the loop ends.
    Text(String),
    /// Tool calls.
    Calls(Vec<ScriptedCall>),
    /// A turn decided from the conversation so far (the messages in the model's dialect), as
    /// a model reads an error and corrects its call.
    Respond(Respond),
}

impl std::fmt::Debug for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Turn::Text(t) => f.debug_tuple("Text").field(t).finish(),
            Turn::Calls(c) => f.debug_tuple("Calls").field(c).finish(),
            Turn::Respond(_) => f.write_str("Respond(..)"),
        }
    }
}

/// A model that answers from a script, in one [`Dialect`]: each turn of the script is one
/// assistant message. Past the script, it answers "(the script has ended)".
#[derive(Debug)]
pub struct ScriptedModel {
    dialect: Dialect,
    turns: VecDeque<Turn>,
    next_call: u64,
}

impl ScriptedModel {
    /// A model speaking `dialect`, with an empty script.
    pub fn new(dialect: Dialect) -> ScriptedModel {
        ScriptedModel {
            dialect,
            turns: VecDeque::new(),
            next_call: 1,
        }
    }

    /// The dialect it speaks.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Then a call of `name` with `arguments`.
    pub fn call(self, name: &str, arguments: Value) -> ScriptedModel {
        self.calls(vec![ScriptedCall::new(name, arguments)])
    }

    /// Then a call of `name` with arguments written as `text` ([`ScriptedCall::raw`]).
    pub fn call_raw(self, name: &str, text: &str) -> ScriptedModel {
        self.calls(vec![ScriptedCall::raw(name, text)])
    }

    /// Then several calls in one turn.
    pub fn calls(mut self, calls: Vec<ScriptedCall>) -> ScriptedModel {
        self.turns.push_back(Turn::Calls(calls));
        self
    }

    /// Then a turn decided from the conversation so far.
    pub fn then(
        mut self,
        respond: impl FnOnce(&[Value]) -> Turn + Send + 'static,
    ) -> ScriptedModel {
        self.turns.push_back(Turn::Respond(Box::new(respond)));
        self
    }

    /// Then a text answer.
    pub fn text(mut self, text: &str) -> ScriptedModel {
        self.turns.push_back(Turn::Text(text.to_owned()));
        self
    }

    /// The model's next message in its dialect, given the conversation so far: for
    /// [`Dialect::OpenaiResponses`], the array of output items.
    pub fn respond(&mut self, conversation: &[Value]) -> Value {
        let mut turn = self
            .turns
            .pop_front()
            .unwrap_or_else(|| Turn::Text("(the script has ended)".into()));
        // A decided turn may decide another; bounded like the script.
        for _ in 0..MAX_TURNS {
            match turn {
                Turn::Respond(respond) => turn = respond(conversation),
                _ => break,
            }
        }
        match turn {
            Turn::Text(text) => self.text_message(&text),
            Turn::Calls(calls) => self.calls_message(&calls),
            Turn::Respond(_) => self.text_message("(the script decided nothing)"),
        }
    }

    fn text_message(&self, text: &str) -> Value {
        match self.dialect {
            Dialect::OpenaiChat => json!({"role": "assistant", "content": text}),
            Dialect::OpenaiResponses => json!([{
                "type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
            }]),
            Dialect::Anthropic => {
                json!({"role": "assistant", "content": [{"type": "text", "text": text}]})
            }
        }
    }

    fn calls_message(&mut self, calls: &[ScriptedCall]) -> Value {
        let mut items = Vec::new();
        for call in calls {
            let n = self.next_call;
            self.next_call += 1;
            items.push(match self.dialect {
                Dialect::OpenaiChat => json!({
                    "id": format!("call_{n}"), "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_text()},
                }),
                Dialect::OpenaiResponses => json!({
                    "type": "function_call", "call_id": format!("call_{n}"),
                    "name": call.name, "arguments": call.arguments_text(),
                }),
                Dialect::Anthropic => json!({
                    "type": "tool_use", "id": format!("toolu_{n}"), "name": call.name,
                    "input": match &call.arguments {
                        Ok(v) => v.clone(),
                        Err(text) => Value::String(text.clone()),
                    },
                }),
            });
        }
        match self.dialect {
            Dialect::OpenaiChat => {
                json!({"role": "assistant", "content": null, "tool_calls": items})
            }
            Dialect::OpenaiResponses => Value::Array(items),
            Dialect::Anthropic => json!({"role": "assistant", "content": items}),
        }
    }
}

/// What an agent loop left: the conversation in the model's dialect, every call's outcome,
/// and the model's last text.
#[derive(Debug)]
#[non_exhaustive]
pub struct Transcript {
    /// The messages (for [`Dialect::OpenaiResponses`], the input items), in order.
    pub messages: Vec<Value>,
    /// Every call's outcome, in order (imports that failed included, answered with their
    /// error).
    pub outcomes: Vec<CallOutcome>,
    /// The model's final text, if it gave one within [`MAX_TURNS`].
    pub answer: Option<String>,
}

impl Transcript {
    /// The outcomes that failed.
    pub fn errors(&self) -> Vec<&CallOutcome> {
        self.outcomes.iter().filter(|o| !o.is_success()).collect()
    }
}

/// The loop a host runs around a model: send the conversation, import the tool calls the model
/// answers with (repairing what a model gets wrong), run each through the session, answer with
/// the result messages of the model's dialect; until the model answers with text.
#[derive(Debug)]
pub struct AgentLoop<'s> {
    session: &'s Session,
}

impl<'s> AgentLoop<'s> {
    /// A loop calling tools through `session`.
    pub fn new(session: &'s Session) -> AgentLoop<'s> {
        AgentLoop { session }
    }

    /// Runs `model` from the user's `prompt` until it answers with text (at most
    /// [`MAX_TURNS`] turns).
    pub async fn run(&self, model: &mut ScriptedModel, prompt: &str) -> Transcript {
        let dialect = model.dialect();
        let mut messages = vec![match dialect {
            Dialect::OpenaiResponses => {
                json!({"type": "message", "role": "user", "content": prompt})
            }
            _ => json!({"role": "user", "content": prompt}),
        }];
        let mut outcomes = Vec::new();
        let mut tracker = ResourcesTracker::new();
        let importer = Importer::new(self.session.runtime().registry());
        for _ in 0..MAX_TURNS {
            // Each model response is a turn (for a session with turns, identical calls within
            // it run once).
            self.session.clear_current_turn();
            let reply = model.respond(&messages);
            let imported = match dialect {
                Dialect::OpenaiChat => match reply.get("tool_calls") {
                    Some(calls) => importer.openai_tool_calls(calls),
                    None => Vec::new(),
                },
                Dialect::OpenaiResponses => importer.responses_output(&reply),
                Dialect::Anthropic => importer.anthropic_content(&reply),
            };
            match (dialect, &reply) {
                (Dialect::OpenaiResponses, Value::Array(items)) => {
                    messages.extend(items.iter().cloned());
                }
                _ => messages.push(reply.clone()),
            }
            if imported.is_empty() {
                return Transcript {
                    answer: text_of(dialect, &reply),
                    messages,
                    outcomes,
                };
            }
            let mut results = Vec::new();
            for call in imported {
                let outcome = match call {
                    Ok(call) => dispatch(self.session, call).await,
                    Err(e) => rejected_import(&e),
                };
                results.push(match dialect {
                    Dialect::OpenaiChat => openai_message(&outcome, &mut tracker),
                    Dialect::OpenaiResponses => responses_output(&outcome, &mut tracker),
                    Dialect::Anthropic => anthropic_block(&outcome, &mut tracker),
                });
                outcomes.push(outcome);
            }
            match dialect {
                Dialect::Anthropic => messages.push(json!({"role": "user", "content": results})),
                _ => messages.extend(results),
            }
        }
        Transcript {
            messages,
            outcomes,
            answer: None,
        }
    }
}

/// The text of a model's message, when it is a text answer.
fn text_of(dialect: Dialect, reply: &Value) -> Option<String> {
    match dialect {
        Dialect::OpenaiChat => reply["content"].as_str().map(str::to_owned),
        Dialect::OpenaiResponses => reply.as_array().and_then(|items| {
            items
                .iter()
                .find_map(|i| i["content"][0]["text"].as_str().map(str::to_owned))
        }),
        Dialect::Anthropic => reply["content"][0]["text"].as_str().map(str::to_owned),
    }
}
