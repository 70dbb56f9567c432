//! `Screenshot`: the viewport, the whole page, or one element, as PNG, JPEG or WebP.
//!
//! The viewport is captured as it is. A full page is captured beyond the viewport,
//! clipped to the document's size (`Page.getLayoutMetrics`), up to
//! [`MAX_FULL_PAGE_HEIGHT`] CSS pixels: taller pages are refused with an error that
//! says what to do instead (Chrome cannot render arbitrarily tall surfaces, and such
//! an image would be useless to an agent anyway). An element is scrolled into view and
//! clipped to its border box; one in a cross-site frame is measured there and
//! moved to where the frame shows it.

use tabwire_shared::{ImageFormat, Screenshot, TabId};

use super::input::{element, element_error};
use crate::cdp::capture::{
    Clip, PageCaptureScreenshot, PageGetLayoutMetrics, PageStartScreencast, PageStopScreencast,
};
use crate::cdp::input::{DomGetBoxModel, DomScrollIntoViewIfNeeded, Rect};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::Subscription;

/// The tallest full-page screenshot, in CSS pixels.
pub const MAX_FULL_PAGE_HEIGHT: f64 = 16_384.0;

/// How long a capture may take: with the screencast running a hidden tab's capture
/// takes well under a second, so this only ends a capture that will not come.
const SCREENSHOT_LIMIT_MS: u64 = 10_000;

/// Captures the tab `shot` names; the image, base64-encoded.
pub(super) async fn screenshot<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    shot: &Screenshot,
) -> Result<String, EngineError> {
    let tab = shot.tab_id;
    let work = capture(cx, tab, shot);
    cx.in_time(tab, SCREENSHOT_LIMIT_MS, work)
        .await?
        .ok_or(EngineError::CaptureTimeout {
            timeout_ms: SCREENSHOT_LIMIT_MS,
        })
}

async fn capture<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    shot: &Screenshot,
) -> Result<String, EngineError> {
    let mut watch = cx.ready(tab).await?;
    let clip = match shot.uid.as_deref() {
        Some(uid) => Some(element_clip(cx, tab, &mut watch, uid).await?),
        None if shot.full_page => {
            let metrics = cx
                .send_watched(tab, &mut watch, &PageGetLayoutMetrics {})
                .await?;
            let size = metrics.css_content_size;
            if size.height > MAX_FULL_PAGE_HEIGHT {
                return Err(EngineError::PageTooTall {
                    height: size.height.ceil() as u64,
                    max: MAX_FULL_PAGE_HEIGHT as u64,
                });
            }
            Some(Clip {
                x: 0.0,
                y: 0.0,
                width: size.width.ceil().max(1.0),
                height: size.height.ceil().max(1.0),
                scale: 1.0,
            })
        }
        None => None,
    };
    let capture = PageCaptureScreenshot {
        format: match shot.format {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
            ImageFormat::Webp => "webp",
        },
        quality: shot.quality.filter(|_| shot.format != ImageFormat::Png),
        capture_beyond_viewport: clip.is_some(),
        clip,
        from_surface: true,
        optimize_for_speed: true,
    };
    Ok(capture_drawn(cx, tab, &mut watch, &capture).await?.data)
}

/// Runs `capture` with a screencast running around it, which makes Chrome draw a
/// frame for it even in a tab that is not in front (which otherwise draws none, and
/// the capture waits for one). The screencast is best effort: a tab in front
/// captures without it.
pub(super) async fn capture_drawn<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    capture: &PageCaptureScreenshot,
) -> Result<crate::cdp::capture::Screenshot, EngineError> {
    let screencast = PageStartScreencast {
        format: "jpeg",
        max_width: 64,
        max_height: 64,
    };
    let casting = cx.send_watched(tab, watch, &screencast).await.is_ok();
    let captured = cx.send_watched(tab, watch, capture).await;
    if casting {
        let _ = cx.send(tab, &PageStopScreencast {}).await;
    }
    captured
}

/// An element's border box, in document coordinates, after scrolling it into view.
/// One inside a cross-site frame is measured in the frame's session, in the
/// frame's coordinates, then moved by where the frame sits in the page (and cut to
/// what the frame shows).
async fn element_clip<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    uid: &str,
) -> Result<Clip, EngineError> {
    cx.sync_document(tab, watch).await?;
    let group = cx.next_object_group();
    let node = element(cx, tab, watch, uid, &group).await;
    cx.release_objects(tab, group);
    let node = node?;
    let session = node.session.as_deref();
    let scroll = DomScrollIntoViewIfNeeded {
        backend_node_id: node.backend,
    };
    cx.send_watched_in(tab, session, watch, &scroll)
        .await
        .map_err(|e| element_error(e, uid))?;
    let model = DomGetBoxModel {
        backend_node_id: node.backend,
    };
    let measure = async {
        let frame = async {
            match session {
                Some(session) => cx.frame_viewport(tab, session).await.map(Some),
                None => Ok(None),
            }
        };
        let (model, metrics, frame) = futures::join!(
            cx.send_in(tab, session, &model),
            cx.send(tab, &PageGetLayoutMetrics {}),
            frame,
        );
        Ok((model.map_err(|e| element_error(e, uid))?, metrics?, frame?))
    };
    let (model, metrics, frame) = cx.watched(tab, watch, measure).await?;
    let rect = Rect::of_quad(&model.model.border);
    let rect = match frame {
        Some(frame) => rect.and_then(|r| frame.intersect(&r.offset(frame.x, frame.y))),
        None => rect,
    };
    let rect = rect
        .filter(|r| r.width >= 1.0 && r.height >= 1.0)
        .ok_or_else(|| EngineError::NotVisible(uid.to_owned()))?;
    Ok(Clip {
        x: rect.x + metrics.css_visual_viewport.page_x,
        y: rect.y + metrics.css_visual_viewport.page_y,
        width: rect.width,
        height: rect.height,
        scale: 1.0,
    })
}

/// Captures the tab.
impl super::Handle for Screenshot {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        let data = screenshot(cx, &self).await?;
        Ok(tabwire_shared::Image {
            data,
            mime_type: self.format.mime_type().to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Answer, Harness};
    use serde_json::json;
    use tabwire_shared::{requests::*, ErrorCode, ImageFormat};

    fn viewport(tab_id: i64) -> Screenshot {
        Screenshot {
            tab_id,
            format: ImageFormat::Png,
            quality: None,
            full_page: false,
            uid: None,
        }
    }

    #[test]
    fn a_capture_runs_inside_a_screencast_so_a_hidden_tab_draws_for_it() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.captureScreenshot",
            Answer::value(json!({"data": "iVBORw0KGgo="})),
        );
        h.call(1, viewport(11));
        h.settle();
        assert_eq!(
            h.reply_to::<Screenshot>(1).unwrap(),
            Ok(Image {
                data: "iVBORw0KGgo=".into(),
                mime_type: "image/png".into(),
            })
        );
        let started = h.fake.sent(11, "Page.startScreencast");
        assert_eq!(started.len(), 1);
        assert_eq!(started[0]["maxWidth"], 64);
        assert_eq!(h.fake.sent(11, "Page.stopScreencast").len(), 1);
    }

    #[test]
    fn a_capture_that_never_comes_ends_naming_the_way_out() {
        let mut h = Harness::new();
        h.fake.hold("Page.captureScreenshot");
        h.call(1, viewport(11));
        h.settle();
        h.advance(super::SCREENSHOT_LIMIT_MS);
        let error = h.reply(1).unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::Timeout);
        assert!(
            error.message.contains("bringToFront: true"),
            "{}",
            error.message
        );
    }
}
