//! Image delivery: images that cost more bytes than they need.
//!
//! As DevTools' engine checks them (insight `ImageDelivery`): each image the load
//! fetched (not SVG) and painted (`PaintImage` of its URL, before any redirect; an
//! image preloaded and never shown is left alone) is weighed at its largest paint.
//! Its bytes are the smaller of its decoded and encoded lengths.
//! - A GIF over 100 kB would be smaller as a video: by `29.1 · log10(bytes) − 100.7`
//!   percent (from a thousand real GIFs transcoded).
//! - Any other image over 1/6 byte a pixel (an AVIF's 12:1 of a two-byte pixel) could
//!   come down to that: with a modern format (WebP, AVIF) or, when it is one already,
//!   more compression.
//! - An image whose file has more pixels than it is shown with is too large for its
//!   place by that share of its bytes (CSS backgrounds aside, as they may be sprites;
//!   an image offering breakpoints, `srcset` or `<picture>`, only when that would save
//!   over 12 kB).
//!
//! A way counts when it saves over 4 kB; an image's savings compound the two (the
//! resize applies to what the better format leaves).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::network::Request;
use crate::load::LoadContext;
use crate::text::format::bytes;

/// An AVIF's bytes a pixel: a 2-byte pixel (4:2:2) at 12:1.
const AVIF_BYTES_PER_PIXEL: f64 = 2.0 / 12.0;

/// Above this, a GIF would be better as a video.
const GIF_BYTES: u64 = 100 * 1024;

/// A way to deliver an image counts when it saves more than this.
const LEAST_SAVING: f64 = 4096.0;

/// ... and a resize of an image that offers breakpoints, more than this.
const LEAST_SAVING_WITH_BREAKPOINTS: f64 = 12_288.0;

/// A way to deliver an image in fewer bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Optimization {
    /// Already WebP or AVIF: compress it more.
    AdjustCompression {
        /// Bytes saved, estimated.
        #[serde(rename = "byteSavings")]
        byte_savings: u64,
    },
    /// Use WebP or AVIF (or compress it more).
    ModernFormatOrCompression {
        /// Bytes saved, estimated.
        #[serde(rename = "byteSavings")]
        byte_savings: u64,
    },
    /// An animated GIF: use a video.
    VideoFormat {
        /// Bytes saved, estimated.
        #[serde(rename = "byteSavings")]
        byte_savings: u64,
    },
    /// Serve it at the size it is shown.
    ResponsiveSize {
        /// Bytes saved, estimated.
        #[serde(rename = "byteSavings")]
        byte_savings: u64,
        /// The file's pixels (width, height).
        #[serde(rename = "fileDimensions")]
        file: Dimensions,
        /// The pixels it is shown with, at its largest.
        #[serde(rename = "displayDimensions")]
        display: Dimensions,
    },
}

impl Optimization {
    /// What it would save, bytes.
    pub fn byte_savings(&self) -> u64 {
        match self {
            Self::AdjustCompression { byte_savings }
            | Self::ModernFormatOrCompression { byte_savings }
            | Self::VideoFormat { byte_savings }
            | Self::ResponsiveSize { byte_savings, .. } => *byte_savings,
        }
    }

    /// What to do, for people.
    pub fn advice(&self) -> String {
        match self {
            Self::AdjustCompression { .. } => "compress it more".to_owned(),
            Self::ModernFormatOrCompression { .. } => {
                "use a modern format (WebP, AVIF) or compress it more".to_owned()
            }
            Self::VideoFormat { .. } => "use a video instead of an animated GIF".to_owned(),
            Self::ResponsiveSize { file, display, .. } => format!(
                "serve it at the size it is shown ({}x{} file shown at {}x{}; responsive \
                 images: srcset/sizes)",
                file.width, file.height, display.width, display.height
            ),
        }
    }
}

/// A width and height, pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Dimensions {
    /// Pixels across.
    pub width: i64,
    /// Pixels down.
    pub height: i64,
}

/// An image that could be delivered in fewer bytes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OptimizableImage {
    /// Its URL.
    pub url: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Its bytes (the smaller of decoded and transferred).
    pub bytes: u64,
    /// The element that showed it at its largest (its backend node id), when an
    /// element did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<i64>,
    /// That element's snapshot uid, when the page had one for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// Whether it was a CSS background.
    pub is_css: bool,
    /// The ways, each with its own saving.
    pub optimizations: Vec<Optimization>,
    /// What they would save together, bytes.
    pub byte_savings: u64,
}

/// The ImageDelivery insight of one load.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageDelivery {
    /// The images, most savings first.
    pub images: Vec<OptimizableImage>,
    /// Their savings, in all.
    pub wasted_bytes: u64,
    /// How many painted images were weighed.
    pub checked: usize,
}

/// One paint of an image, as `PaintImage` gives it.
struct Paint<'a> {
    event: &'a Event,
    file_pixels: f64,
    shown_pixels: f64,
}

impl<'a> Paint<'a> {
    fn new(event: &'a Event) -> Self {
        let data = event.data();
        let number = |key: &str| data[key].as_f64().unwrap_or(0.0);
        Self {
            event,
            file_pixels: number("srcWidth") * number("srcHeight"),
            shown_pixels: number("width") * number("height"),
        }
    }

    fn dimensions(&self, width: &str, height: &str) -> Dimensions {
        let data = self.event.data();
        let round = |key: &str| data[key].as_f64().unwrap_or(0.0).round() as i64;
        Dimensions {
            width: round(width),
            height: round(height),
        }
    }
}

/// The ImageDelivery insight of the images fetched and painted within `[from, until]`.
pub fn image_delivery(
    events: &[Event],
    requests: &[Request],
    from: f64,
    until: f64,
) -> ImageDelivery {
    let within = |start: f64, end: f64| start <= until && from < end;
    let mut paints: HashMap<&str, Vec<Paint>> = HashMap::new();
    for event in events.iter().filter(|e| e.name == "PaintImage") {
        let url = event.data_str("url");
        if !url.is_empty() && within(event.ts, event.end()) {
            paints.entry(url).or_default().push(Paint::new(event));
        }
    }
    let mut found = ImageDelivery::default();
    for request in requests {
        let end = request.finish_event.unwrap_or(request.start);
        if request.resource_type != "Image"
            || request.mime_type == "image/svg+xml"
            || !within(request.start, end)
        {
            continue;
        }
        let Some(largest) = paints.get(request.original_url()).and_then(|p| {
            p.iter().reduce(|a, b| {
                if a.shown_pixels > b.shown_pixels {
                    a
                } else {
                    b
                }
            })
        }) else {
            continue;
        };
        found.checked += 1;
        if let Some(image) = weigh(request, largest) {
            found.images.push(image);
        }
    }
    found.images.sort_by(|a, b| {
        b.byte_savings
            .cmp(&a.byte_savings)
            .then(b.bytes.cmp(&a.bytes))
    });
    found.wasted_bytes = found.images.iter().map(|i| i.byte_savings).sum();
    found
}

/// The ways `request`'s image, at its largest paint, could take fewer bytes.
fn weigh(request: &Request, paint: &Paint) -> Option<OptimizableImage> {
    let image_bytes = request.decoded_length.min(request.encoded_length);
    let size = image_bytes as f64;
    let mut ways = Vec::new();
    if request.mime_type == "image/gif" {
        if image_bytes > GIF_BYTES {
            // Past about 8 MB the estimate would exceed the whole file: at most all of it.
            let percent = ((29.1 * (request.decoded_length as f64).log10() - 100.7).round()
                / 100.0)
                .clamp(0.0, 1.0);
            ways.push(Optimization::VideoFormat {
                byte_savings: (size * percent).round().max(0.0) as u64,
            });
        }
    } else if paint.file_pixels > 0.0 && size / paint.file_pixels > AVIF_BYTES_PER_PIXEL {
        let ideal = (AVIF_BYTES_PER_PIXEL * paint.file_pixels).round();
        let byte_savings = (size - ideal).max(0.0) as u64;
        ways.push(
            if matches!(request.mime_type.as_str(), "image/webp" | "image/avif") {
                Optimization::AdjustCompression { byte_savings }
            } else {
                Optimization::ModernFormatOrCompression { byte_savings }
            },
        );
    }
    let from_format = ways
        .iter()
        .map(Optimization::byte_savings)
        .max()
        .unwrap_or(0);
    let mut total = from_format;
    let data = paint.event.data();
    let is_css = data["isCSS"].as_bool() == Some(true);
    // A paint that gives no (or a nonsensical) size tells nothing about the file's.
    let wasted_ratio = if paint.file_pixels > 0.0 && paint.shown_pixels > 0.0 {
        (1.0 - paint.shown_pixels / paint.file_pixels).clamp(0.0, 1.0)
    } else {
        0.0
    };
    if wasted_ratio > 0.0 && !is_css {
        let byte_savings = (wasted_ratio * size).round();
        let breakpoints = data["isPicture"].as_bool() == Some(true)
            || !data["srcsetAttribute"]
                .as_str()
                .unwrap_or_default()
                .is_empty();
        if !breakpoints || byte_savings > LEAST_SAVING_WITH_BREAKPOINTS {
            total += (wasted_ratio * (size - from_format as f64)).round() as u64;
            ways.push(Optimization::ResponsiveSize {
                byte_savings: byte_savings as u64,
                file: paint.dimensions("srcWidth", "srcHeight"),
                display: paint.dimensions("width", "height"),
            });
        }
    }
    ways.retain(|w| w.byte_savings() as f64 > LEAST_SAVING);
    if ways.is_empty() {
        return None;
    }
    Some(OptimizableImage {
        url: request.url.clone(),
        mime_type: request.mime_type.clone(),
        bytes: image_bytes,
        backend_node_id: data["nodeId"].as_i64().filter(|_| !is_css),
        uid: None,
        is_css,
        optimizations: ways,
        byte_savings: total,
    })
}

fn shown_by(image: &OptimizableImage) -> String {
    match (&image.uid, image.backend_node_id, image.is_css) {
        (_, _, true) => " (a CSS background)".to_owned(),
        (Some(uid), _, _) => format!(" (element uid \"{uid}\")"),
        (None, Some(node), _) => format!(" (element backend node {node}, not in the snapshot)"),
        (None, None, _) => String::new(),
    }
}

/// The ImageDelivery line of the summary.
pub fn line(found: &ImageDelivery) -> String {
    match found.images.first() {
        None if found.checked == 0 => "- ImageDelivery: no raster image painted.".to_owned(),
        None => format!(
            "- ImageDelivery: the {} image(s) painted are delivered well.",
            found.checked
        ),
        Some(worst) => format!(
            "- ImageDelivery: {} image(s) could take {} fewer; the most, {}{}: {} fewer if you \
             {}.",
            found.images.len(),
            bytes(found.wasted_bytes),
            worst.url,
            shown_by(worst),
            bytes(worst.byte_savings),
            worst
                .optimizations
                .iter()
                .map(Optimization::advice)
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    }
}

/// The ImageDelivery details: its lines and its data.
pub fn details(found: &ImageDelivery, lines: &mut Vec<String>) -> Value {
    lines.push(format!(
        "{} painted image(s) weighed; {} could take fewer bytes ({} in all).",
        found.checked,
        found.images.len(),
        bytes(found.wasted_bytes)
    ));
    for image in &found.images {
        lines.push(format!(
            "- {}{}: {} {}, {} fewer possible:",
            image.url,
            shown_by(image),
            bytes(image.bytes),
            image.mime_type,
            bytes(image.byte_savings)
        ));
        for way in &image.optimizations {
            lines.push(format!(
                "  - {} (about {} fewer)",
                way.advice(),
                bytes(way.byte_savings())
            ));
        }
    }
    json!({"images": found.images, "wastedBytes": found.wasted_bytes, "checked": found.checked})
}

/// The ImageDelivery insight: images that cost more bytes than they need.
pub struct ImageDeliveryInsight;

impl Insight for ImageDeliveryInsight {
    const NAME: &'static str = "ImageDelivery";
    const ABOUT: &'static str = "images that could take fewer bytes: format, compression, size";
    type Data = ImageDelivery;

    fn compute(load: &LoadContext) -> ImageDelivery {
        image_delivery(load.events(), load.requests(), load.from, load.until)
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        vec![line(&set.image_delivery)]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        details(&set.image_delivery, lines)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{details, image_delivery, line, Dimensions, Optimization};
    use crate::load::events;
    use crate::load::network;

    /// A request for an image of `bytes`, and its paint.
    fn image(id: &str, url: &str, mime: &str, bytes: u64, paint: Value) -> Vec<Value> {
        vec![
            json!({"name": "ResourceSendRequest", "ph": "I", "ts": 1e3, "pid": 1, "tid": 1,
                   "args": {"data": {"requestId": id, "url": url, "resourceType": "Image"}}}),
            json!({"name": "ResourceReceiveResponse", "ph": "I", "ts": 2e3, "pid": 1, "tid": 1,
                   "args": {"data": {"requestId": id, "mimeType": mime}}}),
            json!({"name": "ResourceFinish", "ph": "I", "ts": 3e3, "pid": 1, "tid": 1,
                   "args": {"data": {"requestId": id, "encodedDataLength": bytes + 300,
                                     "decodedBodyLength": bytes}}}),
            json!({"name": "PaintImage", "ph": "X", "ts": 4e3, "dur": 10.0, "pid": 1, "tid": 1,
                   "args": {"data": paint}}),
        ]
    }

    fn found(list: Vec<Vec<Value>>) -> super::ImageDelivery {
        let list: Vec<Value> = list.into_iter().flatten().collect();
        let events = events::parse(Value::Array(list).to_string().as_bytes()).expect("events");
        image_delivery(&events, &network::requests(&events), 0.0, 1e9)
    }

    #[test]
    fn a_large_png_shown_small_needs_a_modern_format_and_its_size_and_the_savings_compound() {
        let found = found(vec![image(
            "1",
            "https://a.test/photo.png",
            "image/png",
            57_600,
            json!({"url": "https://a.test/photo.png", "nodeId": 7, "srcWidth": 160,
                   "srcHeight": 120, "width": 40, "height": 30, "isCSS": false}),
        )]);
        assert_eq!(found.checked, 1);
        let image = &found.images[0];
        // AVIF's 1/6 byte a pixel: 3,200 bytes for 19,200 pixels.
        assert_eq!(
            image.optimizations,
            [
                Optimization::ModernFormatOrCompression {
                    byte_savings: 54_400
                },
                // 15/16 of the pixels are never shown.
                Optimization::ResponsiveSize {
                    byte_savings: 54_000,
                    file: Dimensions {
                        width: 160,
                        height: 120
                    },
                    display: Dimensions {
                        width: 40,
                        height: 30
                    },
                },
            ]
        );
        // 54,400 from the format, and 15/16 of the 3,200 bytes left.
        assert_eq!(image.byte_savings, 54_400 + 3_000);
        assert_eq!(image.backend_node_id, Some(7));
        assert_eq!(
            line(&found),
            "- ImageDelivery: 1 image(s) could take 57.4 kB fewer; the most, \
             https://a.test/photo.png (element backend node 7, not in the snapshot): 57.4 kB \
             fewer if you use a modern format (WebP, AVIF) or compress it more and serve it at \
             the size it is shown (160x120 file shown at 40x30; responsive images: \
             srcset/sizes)."
        );
        let mut lines = Vec::new();
        let data = details(&found, &mut lines);
        assert_eq!(
            data["images"][0]["optimizations"][1]["type"],
            "RESPONSIVE_SIZE"
        );
        assert_eq!(
            data["images"][0]["optimizations"][1]["displayDimensions"]["width"],
            40
        );
    }

    #[test]
    fn a_webp_needs_compression_a_big_gif_a_video_and_a_css_background_keeps_its_size() {
        let found = found(vec![
            image(
                "1",
                "https://a.test/a.webp",
                "image/webp",
                20_000,
                json!({"url": "https://a.test/a.webp", "srcWidth": 100, "srcHeight": 100,
                       "width": 100, "height": 100}),
            ),
            image(
                "2",
                "https://a.test/a.gif",
                "image/gif",
                200_000,
                json!({"url": "https://a.test/a.gif", "srcWidth": 300, "srcHeight": 300,
                       "width": 300, "height": 300}),
            ),
            image(
                "3",
                "https://a.test/bg.jpg",
                "image/jpeg",
                30_000,
                json!({"url": "https://a.test/bg.jpg", "nodeId": 9, "srcWidth": 200,
                       "srcHeight": 200, "width": 20, "height": 20, "isCSS": true}),
            ),
        ]);
        let ways = |url: &str| {
            let image = found.images.iter().find(|i| i.url == url).expect(url);
            image.optimizations.clone()
        };
        assert_eq!(
            ways("https://a.test/a.webp"),
            [Optimization::AdjustCompression {
                byte_savings: 18_333
            }]
        );
        // 29.1 · log10(200,000) − 100.7 = 53.6 → 54 %.
        assert_eq!(
            ways("https://a.test/a.gif"),
            [Optimization::VideoFormat {
                byte_savings: 108_000
            }]
        );
        assert_eq!(
            ways("https://a.test/bg.jpg"),
            [Optimization::ModernFormatOrCompression {
                byte_savings: 23_333
            }]
        );
        let gif_first: Vec<&str> = found.images.iter().map(|i| i.url.as_str()).collect();
        assert_eq!(gif_first[0], "https://a.test/a.gif");
    }

    #[test]
    fn hostile_sizes_claim_no_more_than_the_whole_file() {
        let found = found(vec![
            // A huge GIF: the formula would give over 100 %.
            image(
                "1",
                "https://a.test/huge.gif",
                "image/gif",
                10_000_000,
                json!({"url": "https://a.test/huge.gif", "srcWidth": 500, "srcHeight": 500,
                       "width": 500, "height": 500}),
            ),
            // A paint with a negative width: no resize is claimed from it.
            image(
                "2",
                "https://a.test/odd.webp",
                "image/webp",
                20_000,
                json!({"url": "https://a.test/odd.webp", "srcWidth": 100, "srcHeight": 100,
                       "width": -100, "height": 100}),
            ),
        ]);
        for image in &found.images {
            assert!(image.byte_savings <= image.bytes, "{image:?}");
            assert!(
                !image
                    .optimizations
                    .iter()
                    .any(|o| matches!(o, Optimization::ResponsiveSize { .. })),
                "{image:?}"
            );
        }
    }

    #[test]
    fn unpainted_svg_small_and_breakpointed_images_are_left_alone() {
        let found = found(vec![
            // Preloaded, never painted.
            image(
                "1",
                "https://a.test/unused.png",
                "image/png",
                90_000,
                json!({"url": "https://a.test/other.png", "srcWidth": 10, "srcHeight": 10,
                       "width": 10, "height": 10}),
            ),
            image(
                "2",
                "https://a.test/logo.svg",
                "image/svg+xml",
                90_000,
                json!({"url": "https://a.test/logo.svg", "srcWidth": 10, "srcHeight": 10,
                       "width": 10, "height": 10}),
            ),
            // Compact, shown at its size.
            image(
                "3",
                "https://a.test/hero.png",
                "image/png",
                800,
                json!({"url": "https://a.test/hero.png", "srcWidth": 400, "srcHeight": 300,
                       "width": 400, "height": 300}),
            ),
            // With srcset, an eighth too large: 412 bytes, under 12 kB.
            image(
                "4",
                "https://a.test/r.webp",
                "image/webp",
                3_300,
                json!({"url": "https://a.test/r.webp", "srcWidth": 160, "srcHeight": 120,
                       "width": 150, "height": 112, "srcsetAttribute": "r.webp 160w"}),
            ),
        ]);
        // The other.png paint belongs to no request: two images weighed.
        assert_eq!(found.checked, 2);
        assert!(found.images.is_empty(), "{:?}", found.images);
        assert_eq!(
            line(&found),
            "- ImageDelivery: the 2 image(s) painted are delivered well."
        );
    }
}
