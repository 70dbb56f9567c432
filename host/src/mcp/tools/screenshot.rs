//! Debugging: screenshots of the viewport, the whole page or one element.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use tabwire_shared::{ImageFormat, Screenshot};

use crate::mcp::context::ToolContext;
use crate::mcp::response::{Image, Response};
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// Arguments of `take_screenshot`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TakeScreenshotParams {
    /// Image format: png (default), jpeg or webp.
    format: Option<ImageFormatParam>,
    /// Compression quality 0-100, for jpeg and webp only.
    quality: Option<u8>,
    /// Capture the whole scrollable page instead of the viewport.
    #[serde(default)]
    full_page: bool,
    /// Capture only this element (a uid from take_snapshot).
    uid: Option<String>,
    /// Save the image to this file instead of returning it.
    #[serde(default, deserialize_with = "super::absolute_path")]
    file_path: Option<PathBuf>,
}

/// Image formats, as agents name them.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormatParam {
    /// PNG, lossless.
    Png,
    /// JPEG.
    Jpeg,
    /// WebP.
    Webp,
}

impl From<ImageFormatParam> for ImageFormat {
    fn from(f: ImageFormatParam) -> Self {
        match f {
            ImageFormatParam::Png => ImageFormat::Png,
            ImageFormatParam::Jpeg => ImageFormat::Jpeg,
            ImageFormatParam::Webp => ImageFormat::Webp,
        }
    }
}

/// `take_screenshot`
pub struct TakeScreenshot;

impl Tool for TakeScreenshot {
    type Params = TakeScreenshotParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "take_screenshot",
        description: "Takes a screenshot of the viewport, the full page, or one element. Images \
            over 2 MB (or when filePath is given) are saved to a file and its path returned. \
            Use take_snapshot to read the page's content; use this to check how it looks.",
        category: Category::Debugging,
        read_only: true,
        page_scoped: true,
        blocked_by_dialog: true,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: TakeScreenshotParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let format: ImageFormat = p.format.unwrap_or(ImageFormatParam::Png).into();
        if let Some(quality) = p.quality {
            if format == ImageFormat::Png {
                return Err(ToolError::new(
                    "`quality` applies to jpeg and webp only; drop it or set format.",
                ));
            }
            if quality > 100 {
                return Err(ToolError::new("`quality` must be between 0 and 100."));
            }
        }
        if p.full_page && p.uid.is_some() {
            return Err(ToolError::new("Give either `fullPage` or `uid`, not both."));
        }
        let shot = ctx
            .request(Screenshot {
                tab_id: ctx.page()?,
                format,
                quality: p.quality,
                full_page: p.full_page,
                uid: p.uid.clone(),
            })
            .await?;
        let what = match (&p.uid, p.full_page) {
            (Some(uid), _) => format!("the element {uid}"),
            (None, true) => "the full page".to_string(),
            (None, false) => "the viewport".to_string(),
        };
        response.line(format!("Took a screenshot of {what}."));
        response.attach_image(Image {
            data: shot.data,
            mime_type: shot.mime_type,
            file_path: p.file_path,
        });
        Ok(())
    }
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![Box::new(Registered::new(TakeScreenshot))]
}
