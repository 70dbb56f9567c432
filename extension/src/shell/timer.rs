//! Waiting in the worker, on its own timers.

use js_sys::Promise;
use wasm_bindgen_futures::JsFuture;

use super::bindings as js;

/// Waits `ms` milliseconds.
pub async fn sleep(ms: u64) {
    // setTimeout fires at once for delays past 2^31 - 1 ms: wait in steps.
    const LONGEST_TIMER_MS: u64 = (1 << 31) - 1;
    let mut left = ms;
    loop {
        let step = left.min(LONGEST_TIMER_MS);
        let timer = Promise::new(&mut |resolve, _reject| {
            js::set_timeout(&resolve, step as f64);
        });
        // A timer promise never rejects.
        let _ = JsFuture::from(timer).await;
        left -= step;
        if left == 0 {
            break;
        }
    }
}
