//! Replaying the saved chat's records into the session's entries: a message record written
//! again replaces its first version, `$set.messages` replaces the CLI's context and
//! `$rewindTo` truncates it, with the messages that left marked where they left.

use serde_json::{Value, json};

use super::{Entry, GeminiSession};
use crate::input::fields::str_of;
use crate::model::session::SessionSnapshot;

/// Folds a resumed CLI's rewrite of a message into its first version: every field the first
/// version has stays (its content, thoughts, model, tokens, timestamp); fields only the rewrite
/// has are added.
pub(super) fn merge_rewrite(old: &mut Value, new: Value) {
    let (Some(o), Value::Object(n)) = (old.as_object_mut(), new) else {
        return;
    };
    for (k, v) in n {
        let keep = o
            .get(&k)
            .is_some_and(|cur| !(cur.is_null() || cur == "" || cur == &json!([])));
        if !keep {
            o.insert(k, v);
        }
    }
}

impl GeminiSession {
    pub(super) fn upsert(&mut self, line: u64, record: Value) {
        let id = str_of(&record, "id").to_owned();
        if let Some(&i) = self.index.get(&id) {
            if self.before_resume.remove(&id) {
                // A resume's rewrite: the first version keeps its content (thoughts apart
                // from the answer), model, tokens and time; the rewrite adds what it lacked.
                if let Entry::Message {
                    line: first,
                    record: old,
                } = &mut self.entries[i]
                {
                    let was = self
                        .follow
                        .as_ref()
                        .filter(|f| i < f.emitted)
                        .map(|_| old.clone());
                    merge_rewrite(old, record);
                    if *first != line {
                        self.superseded.push((
                            line,
                            format!("saved-chat message rewritten after a resume, merged into the one on line {first}"),
                        ));
                    }
                    if let (Some(was), Some(f)) = (was, self.follow.as_mut()) {
                        if was != *old {
                            f.updates.push((line, id.clone(), old.clone()));
                        }
                    }
                }
                if !self.live.contains(&id) {
                    self.live.push(id);
                }
                return;
            }
            let same = matches!(&self.entries[i], Entry::Message { record: r, .. } if *r == record);
            if let Some(f) = self.follow.as_mut().filter(|f| i < f.emitted && !same) {
                f.updates.push((line, id.clone(), record.clone()));
            }
            let new = Entry::Message { line, record };
            if let Entry::Message { line: old, .. } = std::mem::replace(&mut self.entries[i], new) {
                if old != line {
                    self.superseded.push((
                        old,
                        format!("saved-chat message replaced by the one on line {line}"),
                    ));
                }
            }
        } else {
            self.index.insert(id.clone(), self.entries.len());
            self.entries.push(Entry::Message { line, record });
        }
        if !self.live.contains(&id) {
            self.live.push(id);
        }
    }

    /// `$set.messages`: the context becomes this list.
    pub(super) fn replace(&mut self, line: u64, messages: &[Value]) {
        let ids: Vec<String> = messages
            .iter()
            .map(|m| str_of(m, "id").to_owned())
            .collect();
        let dropped: Vec<String> = self
            .live
            .iter()
            .filter(|id| !ids.contains(id))
            .cloned()
            .collect();
        self.live.clear();
        for m in messages {
            let id = str_of(m, "id").to_owned();
            if m.get("id").is_none_or(|v| !v.is_string()) {
                continue;
            }
            match self.index.get(&id) {
                // A message the log already holds, listed again as context: what it said
                // stays; the listing only adds fields it lacked.
                Some(&i) => {
                    if let Entry::Message { record, .. } = &mut self.entries[i] {
                        merge_rewrite(record, m.clone());
                    }
                    self.before_resume.remove(&id);
                    if !self.live.contains(&id) {
                        self.live.push(id);
                    }
                }
                None => self.upsert(line, m.clone()),
            }
        }
        if !dropped.is_empty() {
            let n = dropped.len();
            self.entries.push(Entry::Dropped {
                line,
                text: format!(
                    "{n} message{} above left the model's context (the CLI replaced its history)",
                    if n == 1 { "" } else { "s" }
                ),
                ids: dropped,
            });
        }
    }

    /// `$rewindTo`: the context is cut back at that message.
    pub(super) fn rewind(&mut self, line: u64, target: &str) {
        let at = self
            .live
            .iter()
            .position(|id| id == target)
            .unwrap_or(self.live.len());
        let dropped = self.live.split_off(at);
        let n = dropped.len();
        self.entries.push(Entry::Dropped {
            line,
            text: format!(
                "rewound to message {target}: {n} message{} above left the history",
                if n == 1 { "" } else { "s" }
            ),
            ids: dropped,
        });
    }

    pub(super) fn first_line(&self) -> Option<u64> {
        self.entries
            .iter()
            .map(|e| match e {
                Entry::Message { line, .. } | Entry::Dropped { line, .. } => *line,
            })
            .min()
            .or(self.header.as_ref().map(|_| 1))
    }

    pub(super) fn snapshot(&self) -> SessionSnapshot {
        let h = self.header.as_ref().unwrap_or(&Value::Null);
        let field = |k: &str| {
            self.set
                .get(k)
                .or_else(|| h.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let model = self.entries.iter().find_map(|e| match e {
            Entry::Message { record, .. } if str_of(record, "type") == "gemini" => {
                record.get("model").and_then(Value::as_str)
            }
            _ => None,
        });
        let sid = field("sessionId").unwrap_or_default();
        SessionSnapshot {
            id: sid.clone(),
            session_id: sid,
            agent: "gemini-cli".into(),
            source: "gemini-session".into(),
            model: model.map(str::to_owned),
            cwd: self.cwd.clone(),
            title: field("summary"),
            updated_at: field("lastUpdated"),
            ..SessionSnapshot::default()
        }
    }
}
