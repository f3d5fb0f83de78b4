//! ListTasks: filters, the sort order (most recently updated first) and cursor paging
//! with opaque page tokens.

use std::cmp::Ordering;

use super::{Key, Record, Store};
use crate::clock::Timestamp;
use crate::error::RpcError;
use crate::model::{Task, TaskState};

/// ListTasks filters and paging, already validated.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub context_id: Option<String>,
    pub status: Option<TaskState>,
    pub status_timestamp_after: Option<Timestamp>,
    pub page_size: usize,
    pub page_token: Option<String>,
}

/// One page of ListTasks.
#[derive(Debug, Clone)]
pub struct ListPage {
    pub tasks: Vec<Task>,
    /// `None` on the last page.
    pub next_page_token: Option<String>,
    pub total_size: usize,
}

impl Store {
    /// ListTasks: filter, sort (most recently updated first) and page.
    pub fn list(&self, query: &ListQuery) -> Result<ListPage, RpcError> {
        if self.policy.list.refused {
            return Err(RpcError::unsupported_operation("ListTasks is not offered"));
        }
        let mut state = self.lock();
        let cursor = match query.page_token.as_deref() {
            None | Some("") => None,
            Some(token) => Some(*state.page_tokens.get(token).ok_or_else(|| {
                RpcError::invalid_param("pageToken", format!("unknown page token `{token}`"))
            })?),
        };
        let policy = &self.policy.list;
        let newest_first = policy.newest_first;
        let order = |a: Key, b: Key| if newest_first { b.cmp(&a) } else { a.cmp(&b) };
        let context_filter = query
            .context_id
            .as_ref()
            .filter(|_| policy.honours_context_filter);
        let mut matches: Vec<&Record> = state
            .tasks
            .values()
            .filter(|r| {
                let task = &r.task;
                context_filter.is_none_or(|c| *c == task.context_id)
                    && (query.status)
                        .filter(|_| policy.honours_status_filter)
                        .is_none_or(|s| s == task.status.state)
                    && query
                        .status_timestamp_after
                        .filter(|_| policy.honours_timestamp_filter)
                        .is_none_or(|t| task.status.timestamp >= t)
            })
            .collect();
        matches.sort_by(|a, b| order(a.key(), b.key()));
        let start = cursor.map_or(0, |cursor| {
            matches
                .iter()
                .position(|r| order(r.key(), cursor) == Ordering::Greater)
                .unwrap_or(matches.len())
        });
        let page_size = if policy.honours_page_size {
            query.page_size
        } else {
            usize::MAX
        };
        let page: Vec<&Record> = matches
            .iter()
            .skip(start)
            .take(page_size)
            .copied()
            .collect();
        let more = start + page.len() < matches.len();
        let last_key = page.last().map(|r| r.key());
        let total_size = matches.len();
        let tasks = page.iter().map(|r| r.task.clone()).collect();
        let next_page_token = match (more, last_key) {
            (true, Some(key)) => {
                let token = state.ids.page_token();
                state.page_tokens.insert(token.clone(), key);
                Some(token)
            }
            _ => None,
        };
        Ok(ListPage {
            tasks,
            next_page_token,
            total_size,
        })
    }
}
