//! `ResizePage`: give the page a viewport of a given size by resizing its window.
//!
//! The window's outer size is the wanted viewport plus the window's own chrome (tab
//! strip, toolbar, borders), measured in the page as `outerWidth - innerWidth` and
//! `outerHeight - innerHeight` just before. The result is measured again: a window
//! that cannot take the size (a maximised or tiled window on some window managers, a
//! screen too small) leaves the page at another size, which the error states.

use serde::Deserialize;
use tabwire_shared::TabId;

use crate::cdp::RuntimeEvaluate;
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;

/// The page's own idea of its window, read without any page code running.
const MEASURE: &str = "[outerWidth, outerHeight, innerWidth, innerHeight]";

/// How many times the window is resized to hit the size.
const RESIZE_TRIES: u32 = 4;

/// How often, and how far apart, the new size is looked for (two seconds at most).
const SETTLE_CHECKS: u32 = 100;
const SETTLE_STEP_MS: u64 = 20;

/// How many reads in a row must agree before a new size counts as taken: a busy
/// renderer reports a resize in steps, and correcting from a step overshoots.
const SETTLE_AGREEING_READS: u32 = 3;

#[derive(Debug, Deserialize, Clone, Copy, PartialEq)]
struct Sizes(f64, f64, f64, f64);

fn clamp(pixels: i64) -> u32 {
    u32::try_from(pixels.clamp(1, 100_000)).unwrap_or(1)
}

fn viewport(sizes: Sizes) -> (u32, u32) {
    (sizes.2.round() as u32, sizes.3.round() as u32)
}

/// Resizes `tab`'s window so its viewport is `width` × `height` CSS pixels.
pub(super) async fn resize_page<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    width: u32,
    height: u32,
) -> Result<(), EngineError> {
    cx.ensure_attached(tab).await?;
    cx.no_dialog(tab)?;
    let window = cx
        .chrome()
        .tab(tab)
        .await?
        .ok_or(EngineError::NoSuchTab(tab))?
        .window_id;
    let mut now = measure(cx, tab).await?;
    let wanted = (width, height);
    // Outer size = viewport + the window's own chrome, as the page reports it. Some
    // windows (headless ones) misreport their chrome: a second try corrects by what
    // the first one missed.
    let mut outer = (
        i64::from(width) + (now.0 - now.2).max(0.0).round() as i64,
        i64::from(height) + (now.1 - now.3).max(0.0).round() as i64,
    );
    for _ in 0..RESIZE_TRIES {
        if viewport(now) == wanted {
            return Ok(());
        }
        let previous = viewport(now);
        let (w, h) = (clamp(outer.0), clamp(outer.1));
        cx.chrome().resize_window(window, w, h).await?;
        now = settled_size(cx, tab, previous).await?;
        let got = viewport(now);
        outer.0 += i64::from(width) - i64::from(got.0);
        outer.1 += i64::from(height) - i64::from(got.1);
    }
    let got = viewport(now);
    if got != wanted {
        return Err(EngineError::ResizeRefused { tab, wanted, got });
    }
    Ok(())
}

/// The page's sizes once the renderer has taken a new size (it learns it a moment
/// after the window, sometimes in steps): changed from `previous` and the same on
/// [`SETTLE_AGREEING_READS`] reads in a row, or whatever it is after two seconds.
async fn settled_size<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    previous: (u32, u32),
) -> Result<Sizes, EngineError> {
    let mut now = measure(cx, tab).await?;
    let mut last_seen = None;
    let mut agreeing = 0;
    for _ in 0..SETTLE_CHECKS {
        let size = viewport(now);
        agreeing = if last_seen == Some(size) {
            agreeing + 1
        } else {
            1
        };
        if size != previous && agreeing >= SETTLE_AGREEING_READS {
            break;
        }
        last_seen = Some(size);
        cx.chrome().sleep(SETTLE_STEP_MS).await;
        now = measure(cx, tab).await?;
    }
    Ok(now)
}

async fn measure<C: Chrome + 'static>(cx: &Cx<'_, C>, tab: TabId) -> Result<Sizes, EngineError> {
    let measure = RuntimeEvaluate {
        expression: MEASURE.to_owned(),
        object_group: String::new(),
        return_by_value: true,
    };
    let answer = cx.send(tab, &measure).await?;
    answer
        .result
        .value
        .and_then(|v| serde_json::from_value(v).ok())
        .ok_or_else(|| EngineError::UnreadablePageData("the page's window size".to_owned()))
}

/// Resizes the tab's window.
impl super::Handle for tabwire_shared::ResizePage {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        cx.bounded(
            "resize the page",
            resize_page(cx, self.tab_id, self.width, self.height),
        )
        .await?
    }
}
