//! User messages and protobuf game events, decoded to JSON: what
//! `gamewire messages` lists and prints.
//!
//! [`MessageCollector`] is a visitor: parse a demo with it (for example
//! [`crate::RunOptions::parse_keeping_cut`]), then read its counts and
//! rows; [`known_message_names`] says which names a game has.

use std::collections::BTreeMap;

use gamewire_source2::{DemoState, Game, Interests, MessageKind, UserMessage, Visitor};

/// One decoded message.
#[derive(Debug, Clone)]
pub struct MessageRow {
    /// The tick it came at.
    pub tick: i32,
    /// Its message id.
    pub id: u32,
    /// Its name (`CsUmServerRankUpdate`, `UmSayText2`, `GeFireBulletsId`, ...).
    pub name: String,
    /// What kind of message it is ([`kind_name`]), when known.
    pub kind: Option<&'static str>,
    /// Its fields as JSON; `{"error": ...}` when it did not decode,
    /// `{"undecoded_bytes": n}` when its type is unknown.
    pub data: serde_json::Value,
}

/// Collects user messages and protobuf game events, decoded to JSON, and
/// counts every message by name.
#[derive(Debug, Default)]
pub struct MessageCollector {
    names: Option<Vec<String>>,
    counts: BTreeMap<String, u64>,
    rows: Vec<MessageRow>,
}

impl MessageCollector {
    /// Keeps the messages named in `names` (every message when empty);
    /// every message is counted either way.
    pub fn new(names: &[String]) -> Self {
        MessageCollector {
            names: (!names.is_empty()).then(|| names.to_vec()),
            ..MessageCollector::default()
        }
    }

    /// How many messages of each name the demo holds, by name.
    pub fn counts(&self) -> &BTreeMap<String, u64> {
        &self.counts
    }

    /// The messages kept, in demo order.
    pub fn into_rows(self) -> Vec<MessageRow> {
        self.rows
    }
}

impl Visitor for MessageCollector {
    fn interests(&self) -> Interests {
        Interests {
            user_messages: true,
            ..Interests::NONE
        }
    }

    fn on_user_message(&mut self, state: &DemoState, message: &UserMessage<'_>) {
        let name = message.name();
        *self.counts.entry(name.clone()).or_default() += 1;
        if self.names.as_ref().is_some_and(|n| !n.contains(&name)) {
            return;
        }
        let data = match message.to_json() {
            Some(Ok(v)) => v,
            Some(Err(e)) => serde_json::json!({ "error": e.to_string() }),
            None => serde_json::json!({ "undecoded_bytes": message.payload.len() }),
        };
        self.rows.push(MessageRow {
            tick: state.tick,
            id: message.id,
            name,
            kind: message.kind().map(kind_name),
            data,
        });
    }
}

/// The name of a message kind as printed: `user_message`, `game_event`,
/// `temp_entity`.
pub fn kind_name(kind: MessageKind) -> &'static str {
    match kind {
        MessageKind::UserMessage => "user_message",
        MessageKind::GameEvent => "game_event",
        MessageKind::TempEntity => "temp_entity",
    }
}

/// Every message name `game` knows, followed by the names `seen` in a demo
/// (a message of a type the parser does not know is named by its id).
pub fn known_message_names<'a>(
    game: Game,
    seen: impl IntoIterator<Item = &'a String>,
) -> Vec<String> {
    gamewire_source2::messages::message_types(game)
        .into_iter()
        .map(|(_, _, name, _)| name.to_string())
        .chain(seen.into_iter().cloned())
        .collect()
}
