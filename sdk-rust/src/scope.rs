//! The scope: breadcrumbs, tags, user and fingerprint applied to every event.
//!
//! Each [`Hub`](crate::Hub) keeps a stack of scopes, so each thread or task has its own.

use crate::protocol::{Breadcrumb, Event, User};
use std::collections::{BTreeMap, VecDeque};

/// Data merged into every captured event.
#[derive(Clone, Debug, PartialEq)]
pub struct Scope {
    breadcrumbs: VecDeque<Breadcrumb>,
    max_breadcrumbs: usize,
    tags: BTreeMap<String, String>,
    user: Option<User>,
    fingerprint: Vec<String>,
}

/// The breadcrumb limit of a scope built with `Scope::default()`, as in the stock SDK.
const DEFAULT_MAX_BREADCRUMBS: usize = 100;

impl Default for Scope {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_BREADCRUMBS)
    }
}

impl Scope {
    /// An empty scope keeping at most `max_breadcrumbs` breadcrumbs.
    pub fn new(max_breadcrumbs: usize) -> Self {
        Self {
            breadcrumbs: VecDeque::new(),
            max_breadcrumbs,
            tags: BTreeMap::new(),
            user: None,
            fingerprint: Vec::new(),
        }
    }

    /// Records a breadcrumb, dropping the oldest beyond the limit.
    pub fn add_breadcrumb(&mut self, breadcrumb: Breadcrumb) {
        self.add_breadcrumb_limited(breadcrumb, self.max_breadcrumbs);
    }

    /// Records a breadcrumb under the client's limit (the hub's scopes outlive clients).
    pub(crate) fn add_breadcrumb_limited(&mut self, breadcrumb: Breadcrumb, max: usize) {
        self.max_breadcrumbs = max;
        if max == 0 {
            self.breadcrumbs.clear();
            return;
        }
        while self.breadcrumbs.len() >= max {
            self.breadcrumbs.pop_front();
        }
        self.breadcrumbs.push_back(breadcrumb);
    }

    /// The recorded breadcrumbs, oldest first.
    pub fn breadcrumbs(&self) -> impl Iterator<Item = &Breadcrumb> {
        self.breadcrumbs.iter()
    }

    /// Forgets all breadcrumbs.
    pub fn clear_breadcrumbs(&mut self) {
        self.breadcrumbs.clear();
    }

    /// Sets a tag on all later events.
    pub fn set_tag(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.tags.insert(key.into(), value.into());
    }

    /// The tags set on this scope.
    pub fn tags(&self) -> impl Iterator<Item = (&str, &str)> {
        self.tags.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Removes a tag.
    pub fn remove_tag(&mut self, key: &str) {
        self.tags.remove(key);
    }

    /// Sets (or with `None` clears) the user.
    pub fn set_user(&mut self, user: Option<User>) {
        self.user = user;
    }

    /// Sets the grouping fingerprint for later events (empty = default grouping).
    pub fn set_fingerprint(&mut self, fingerprint: Vec<String>) {
        self.fingerprint = fingerprint;
    }

    /// Merges the scope into `event`; values already on the event win.
    pub fn apply_to(&self, event: &mut Event) {
        for (key, value) in &self.tags {
            event
                .tags
                .entry(key.clone())
                .or_insert_with(|| value.clone());
        }
        if event.user.is_none() {
            event.user.clone_from(&self.user);
        }
        if event.fingerprint.is_empty() {
            event.fingerprint.clone_from(&self.fingerprint);
        }
        if !self.breadcrumbs.is_empty() {
            let own = std::mem::take(&mut event.breadcrumbs);
            event.breadcrumbs = self.breadcrumbs.iter().cloned().chain(own).collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_newest_breadcrumbs() {
        let mut scope = Scope::new(2);
        for text in ["a", "b", "c"] {
            scope.add_breadcrumb(Breadcrumb::new(text));
        }
        let kept: Vec<_> = scope
            .breadcrumbs()
            .filter_map(|b| b.message.as_deref())
            .collect();
        assert_eq!(kept, ["b", "c"]);
        let mut none = Scope::new(0);
        none.add_breadcrumb(Breadcrumb::new("x"));
        assert_eq!(none.breadcrumbs().count(), 0);
    }

    #[test]
    fn event_values_win_over_scope_values() {
        let mut scope = Scope::new(10);
        scope.set_tag("a", "scope");
        scope.set_tag("b", "scope");
        scope.set_user(Some(User {
            id: Some("u1".into()),
            ..User::default()
        }));
        scope.set_fingerprint(vec!["fp".into()]);
        scope.add_breadcrumb(Breadcrumb::new("from scope"));

        let mut event = Event::new();
        event.tags.insert("a".into(), "event".into());
        event.breadcrumbs.push(Breadcrumb::new("from event"));
        scope.apply_to(&mut event);

        assert_eq!(event.tags["a"], "event");
        assert_eq!(event.tags["b"], "scope");
        assert_eq!(event.user.and_then(|u| u.id).as_deref(), Some("u1"));
        assert_eq!(event.fingerprint, ["fp"]);
        let crumbs: Vec<_> = event
            .breadcrumbs
            .iter()
            .filter_map(|b| b.message.as_deref())
            .collect();
        assert_eq!(crumbs, ["from scope", "from event"]);
    }
}
