//! `NetworkRequests` and `GetNetworkRequest`: the requests collected for a tab, listed,
//! or one in full with the bodies Chrome still has. What is collected, and how it is
//! bounded, is the engine's state ([`NetworkLog`], `engine/state/network_log.rs`).

use tabwire_shared::{NetworkList, NetworkRequest, TabId};

use super::state::network_log::body;
#[cfg(doc)]
use super::state::network_log::NetworkLog;
use crate::cdp::network::{NetworkGetRequestPostData, NetworkGetResponseBody};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;

/// How long reading a request's bodies may take: the browser answers them from the
/// page's renderer, which a busy script holds up; past this the request is shown
/// without them, saying why.
pub const BODY_READ_LIMIT_MS: u64 = 3_000;

/// The network requests collected for `tab`.
pub(super) async fn network_requests<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    preserved: bool,
) -> Result<NetworkList, EngineError> {
    cx.ensure_attached(tab).await?;
    Ok(cx
        .with_collectors(tab, |c| c.network.list(c.generation, preserved))
        .unwrap_or_default())
}

/// One request of `tab` in full, bodies included when Chrome still has them and
/// gives them within [`BODY_READ_LIMIT_MS`].
pub(super) async fn network_request<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    id: u64,
) -> Result<NetworkRequest, EngineError> {
    cx.ensure_attached(tab).await?;
    let (mut request, source) = cx
        .with_collectors(tab, |c| c.network.full(c.generation, id))
        .flatten()
        .ok_or(EngineError::NoNetworkRequest { id, tab })?;
    let post = NetworkGetRequestPostData {
        request_id: source.cdp_id.clone(),
    };
    let response = NetworkGetResponseBody {
        request_id: source.cdp_id,
    };
    let bodies = async {
        futures::join!(
            async {
                match source.fetch_request {
                    true => cx.send(tab, &post).await.ok(),
                    false => None,
                }
            },
            async {
                match source.fetch_response {
                    true => cx.send(tab, &response).await.ok(),
                    false => None,
                }
            }
        )
    };
    let Some((post, response)) =
        crate::signals::within(cx.chrome().sleep(BODY_READ_LIMIT_MS), bodies).await
    else {
        request.bodies_unread = Some(format!(
            "The browser did not give the bodies within {BODY_READ_LIMIT_MS} ms: the \
             page's script is keeping it busy. Ask again once the script is done."
        ));
        return Ok(request);
    };
    if let Some(post) = post {
        request.request_body = Some(body(post.post_data, post.base64_encoded));
    }
    if let Some(got) = response {
        request.response_body = Some(body(got.body, got.base64_encoded));
    }
    Ok(request)
}

/// Lists the tab's network requests.
impl super::Handle for tabwire_shared::NetworkRequests {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        cx.bounded(
            "list the network requests",
            network_requests(cx, self.tab_id, self.include_preserved),
        )
        .await?
    }
}

/// Reads one network request.
impl super::Handle for tabwire_shared::GetNetworkRequest {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        cx.bounded(
            "read the network request",
            network_request(cx, self.tab_id, self.id),
        )
        .await?
    }
}
