//! Arguments an MCP client adds to every tool call on its own.
//!
//! Gemini CLI adds a boolean `wait_for_previous` to every tool's schema and tells its
//! model to set it on a call that needs the calls before it to have finished. That
//! argument is the client's, not the model's mistake: it is taken out here, before a
//! tool checks its arguments (where an argument the model invents still gets "Unknown
//! argument … Expected …"), and honoured by [`CallOrder`].

use rmcp::model::JsonObject;
use serde_json::Value;
use tokio::sync::{RwLock, RwLockReadGuard};

/// Gemini CLI's "start this call once the earlier ones have finished".
const WAIT_FOR_PREVIOUS: &str = "wait_for_previous";

/// What a client added to one call.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ClientArguments {
    /// The call starts only after every call started before it has answered.
    pub wait_for_previous: bool,
}

/// Takes the client-added arguments out of `args`, leaving the tool's own.
pub fn take(args: &mut Option<JsonObject>) -> Result<ClientArguments, String> {
    let Some(args) = args.as_mut() else {
        return Ok(ClientArguments::default());
    };
    let wait_for_previous = match args.remove(WAIT_FOR_PREVIOUS) {
        None | Some(Value::Null) => false,
        Some(Value::Bool(wait)) => wait,
        Some(other) => {
            return Err(format!(
                "`{WAIT_FOR_PREVIOUS}` must be true or false, not {other}."
            ))
        }
    };
    Ok(ClientArguments { wait_for_previous })
}

/// The order of one session's calls. Calls run side by side (those on one page one
/// after another, by the page's lock); a call with `wait_for_previous` waits until
/// every call that started before it has answered, and calls after it wait for it to
/// start.
#[derive(Debug, Default)]
pub struct CallOrder(RwLock<()>);

impl CallOrder {
    /// Held for the whole of one call (taken once per `tools/call`, never by a call a
    /// tool makes inside another: that one would wait for itself).
    pub async fn enter(&self, client: ClientArguments) -> RwLockReadGuard<'_, ()> {
        if client.wait_for_previous {
            // Queued behind the calls running now; calls arriving later queue behind it.
            drop(self.0.write().await);
        }
        self.0.read().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;
    use std::time::Duration;

    fn object(value: Value) -> Option<JsonObject> {
        value.as_object().cloned()
    }

    #[test]
    fn wait_for_previous_is_taken_out_and_read() {
        let mut args = object(json!({"uid": "1_2", "wait_for_previous": true}));
        let client = take(&mut args).unwrap();
        assert!(client.wait_for_previous);
        assert_eq!(args, object(json!({"uid": "1_2"})));

        let mut args = object(json!({"wait_for_previous": false}));
        assert!(!take(&mut args).unwrap().wait_for_previous);
        assert_eq!(args, object(json!({})));

        let mut none = None;
        assert_eq!(take(&mut none).unwrap(), ClientArguments::default());
    }

    #[test]
    fn a_wait_for_previous_that_is_no_boolean_says_what_it_takes() {
        let mut args = object(json!({"wait_for_previous": "yes"}));
        let err = take(&mut args).unwrap_err();
        assert!(err.contains("must be true or false"), "{err}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_call_starts_after_the_earlier_ones_end() {
        let order = Arc::new(CallOrder::default());
        let (done_tx, mut done_rx) = tokio::sync::mpsc::unbounded_channel();
        let earlier = {
            let order = order.clone();
            let done = done_tx.clone();
            tokio::spawn(async move {
                let _call = order.enter(ClientArguments::default()).await;
                tokio::time::sleep(Duration::from_secs(5)).await;
                done.send("earlier").unwrap();
            })
        };
        tokio::task::yield_now().await;
        let waiting = {
            let order = order.clone();
            let done = done_tx.clone();
            tokio::spawn(async move {
                let _call = order
                    .enter(ClientArguments {
                        wait_for_previous: true,
                    })
                    .await;
                done.send("waiting").unwrap();
            })
        };
        earlier.await.unwrap();
        waiting.await.unwrap();
        assert_eq!(done_rx.recv().await, Some("earlier"));
        assert_eq!(done_rx.recv().await, Some("waiting"));
    }

    #[tokio::test(start_paused = true)]
    async fn calls_without_it_run_side_by_side() {
        let order = CallOrder::default();
        let first = order.enter(ClientArguments::default()).await;
        let second = tokio::time::timeout(
            Duration::from_millis(1),
            order.enter(ClientArguments::default()),
        )
        .await;
        assert!(second.is_ok(), "the second call waited for the first");
        drop(first);
    }
}
