//! Envelopes: a JSON header line, then per item a header line with an explicit
//! `length` and the payload bytes, each payload followed by `\n`.

use super::{CheckIn, ClientReport, DataCategory, Event, SessionUpdate, Uuid};
use serde::Serialize;

/// One item of an envelope.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Item {
    /// An error or message event.
    Event(Box<Event>),
    /// A session update.
    Session(SessionUpdate),
    /// A cron check-in.
    CheckIn(CheckIn),
    /// The SDK's drop counters.
    ClientReport(ClientReport),
}

impl Item {
    /// The item's `type` in its header.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Event(_) => "event",
            Self::Session(_) => "session",
            Self::CheckIn(_) => "check_in",
            Self::ClientReport(_) => "client_report",
        }
    }

    /// The rate-limit category the item counts against.
    pub fn category(&self) -> DataCategory {
        match self {
            Self::Event(_) => DataCategory::Error,
            Self::Session(_) => DataCategory::Session,
            Self::CheckIn(_) => DataCategory::Monitor,
            Self::ClientReport(_) => DataCategory::Internal,
        }
    }

    /// The JSON payload bytes.
    pub fn payload(&self) -> Result<Vec<u8>, serde_json::Error> {
        match self {
            Self::Event(e) => serde_json::to_vec(e),
            Self::Session(s) => serde_json::to_vec(s),
            Self::CheckIn(c) => serde_json::to_vec(c),
            Self::ClientReport(r) => serde_json::to_vec(r),
        }
    }
}

/// A batch of items sent in one request.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Envelope {
    event_id: Option<Uuid>,
    items: Vec<Item>,
}

#[derive(Serialize)]
struct EnvelopeHeader {
    #[serde(skip_serializing_if = "Option::is_none")]
    event_id: Option<Uuid>,
}

#[derive(Serialize)]
struct ItemHeader {
    #[serde(rename = "type")]
    ty: &'static str,
    length: usize,
}

impl Envelope {
    /// An empty envelope.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends an item; an event also sets the envelope's `event_id` header.
    pub fn add_item(&mut self, item: Item) {
        if let Item::Event(event) = &item {
            self.event_id.get_or_insert(event.event_id);
        }
        self.items.push(item);
    }

    /// Builder form of [`Envelope::add_item`].
    pub fn with_item(mut self, item: Item) -> Self {
        self.add_item(item);
        self
    }

    /// The `event_id` header, if the envelope carries an event.
    pub fn event_id(&self) -> Option<Uuid> {
        self.event_id
    }

    /// The items.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Removes and returns the items for which `drop` returns `true`.
    pub fn take_items_where(&mut self, mut drop: impl FnMut(&Item) -> bool) -> Vec<Item> {
        let (dropped, kept) = std::mem::take(&mut self.items)
            .into_iter()
            .partition(&mut drop);
        self.items = kept;
        if !self.items.iter().any(|i| matches!(i, Item::Event(_))) {
            self.event_id = None;
        }
        dropped
    }

    /// Serialises the envelope in the wire format.
    pub fn to_bytes(&self) -> Result<Vec<u8>, serde_json::Error> {
        let mut out = serde_json::to_vec(&EnvelopeHeader {
            event_id: self.event_id,
        })?;
        out.push(b'\n');
        for item in &self.items {
            let payload = item.payload()?;
            let header = ItemHeader {
                ty: item.type_name(),
                length: payload.len(),
            };
            serde_json::to_writer(&mut out, &header)?;
            out.push(b'\n');
            out.extend_from_slice(&payload);
            out.push(b'\n');
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Timestamp;

    fn event(id: u128) -> Item {
        Item::Event(Box::new(Event::with_id(
            Uuid::from_u128(id),
            Timestamp::from_unix_secs(1.5),
        )))
    }

    #[test]
    fn empty_envelope_is_one_header_line() {
        assert_eq!(Envelope::new().to_bytes().unwrap(), b"{}\n");
    }

    #[test]
    fn length_counts_bytes_not_chars() {
        let mut e = Event::with_id(Uuid::from_u128(1), Timestamp::from_unix_secs(0.0));
        e.message = Some("héllo".into());
        let bytes = Envelope::new()
            .with_item(Item::Event(Box::new(e)))
            .to_bytes()
            .unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let mut lines = text.split('\n');
        let _header = lines.next();
        let item_header = lines.next().unwrap();
        let payload = lines.next().unwrap();
        assert_eq!(
            item_header,
            format!("{{\"type\":\"event\",\"length\":{}}}", payload.len())
        );
        assert!(payload.len() > payload.chars().count());
    }

    #[test]
    fn dropping_the_event_clears_event_id() {
        let mut env = Envelope::new().with_item(event(7));
        assert_eq!(env.event_id(), Some(Uuid::from_u128(7)));
        let dropped = env.take_items_where(|i| i.category() == DataCategory::Error);
        assert_eq!(dropped.len(), 1);
        assert!(env.is_empty());
        assert_eq!(env.event_id(), None);
    }
}
