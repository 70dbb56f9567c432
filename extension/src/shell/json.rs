//! Values across the JavaScript boundary, as JSON text.
//!
//! Everything that comes from JavaScript is untrusted input: these helpers never
//! panic, they return a message saying what was wrong.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::JsValue;

/// A Rust value as a JavaScript value (via `JSON.parse`).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, String> {
    let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
    js_sys::JSON::parse(&text).map_err(|e| describe(&e))
}

/// A JavaScript value as JSON text; `undefined` reads as `null`.
pub fn to_text(value: &JsValue) -> Result<String, String> {
    if value.is_undefined() {
        return Ok("null".to_owned());
    }
    let text = js_sys::JSON::stringify(value).map_err(|e| describe(&e))?;
    text.as_string()
        .ok_or_else(|| "the value has no JSON form".to_owned())
}

/// A JavaScript value as a JSON value.
pub fn to_json(value: &JsValue) -> Result<Value, String> {
    read(value)
}

/// A JavaScript value read into a Rust type.
pub fn read<T: DeserializeOwned>(value: &JsValue) -> Result<T, String> {
    crate::json_text::parse(&to_text(value)?).map_err(|e| e.to_string())
}

/// A thrown or rejected JavaScript value as a message: an `Error`'s `message`, a
/// string as is, anything else as JSON.
pub fn describe(error: &JsValue) -> String {
    let message = js_sys::Reflect::get(error, &"message".into())
        .ok()
        .and_then(|m| m.as_string());
    message
        .or_else(|| error.as_string())
        .or_else(|| to_text(error).ok())
        .unwrap_or_else(|| "unknown error".to_owned())
}
