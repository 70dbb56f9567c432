// tabwire:watch — notices what an input action does to the page while it plays out.
//
// An expression: a function (T, global) that starts a MutationObserver on the whole
// document and listeners for trusted input on the window, and returns a watcher only
// the extension holds (by reference):
// `since()` is how many milliseconds ago the DOM last changed (or the watcher
// started, if it has not); `received()` is `[painted, mousedowns, mousemoves,
// keydowns]`: whether the document has drawn a frame yet (until then Chrome drops
// presses and keys sent to it) and how many trusted events of each kind reached the
// window since the watcher started; `stop()` disconnects the observer and the
// listeners. The extension reads `since()` to decide when the page has settled after a
// click, and `received()` to know that the click reached it; it uses its own timers
// for the waiting, so a background tab's throttled timers cannot slow it down.
(function tabwireWatch(T, global) {
  'use strict';
  const now = () => T.apply(T.now, T.performance, []);
  let last = now();
  const observer = new T.MutationObserver(() => {
    last = now();
  });
  T.apply(T.observe, observer, [global.document, {
    __proto__: null, subtree: true, childList: true, attributes: true, characterData: true,
  }]);
  // Counted in the capture phase on the window, the first place an event reaches, and
  // on the windows of same-origin frames (input aimed at an element in one reaches that
  // window; a cross-origin one throws on access and is skipped). `isTrusted` is an own
  // property no page can redefine. Collections are null-prototype objects: a page's
  // setters on Array.prototype indexes never run.
  const counts = [0, 0, 0];
  const kinds = ['mousedown', 'mousemove', 'keydown'];
  const windows = { __proto__: null, 0: global };
  let windowCount = 1;
  try {
    const frames = global.frames;
    const n = frames.length;
    for (let f = 0; f < n && f < 64; f++) {
      try {
        const w = frames[f];
        if (w.document) {
          windows[windowCount] = w;
          windowCount += 1;
        }
      } catch (e) {
        // Cross-origin: its own session's watcher is not ours to start.
      }
    }
  } catch (e) {
    // A page that broke `frames`: its main window alone.
  }
  const listeners = { __proto__: null };
  for (let i = 0; i < kinds.length; i++) {
    listeners[i] = (event) => {
      if (event.isTrusted === true) counts[i] += 1;
    };
  }
  const listen = (method) => {
    for (let w = 0; w < windowCount; w++) {
      for (let i = 0; i < kinds.length; i++) {
        try {
          T.apply(method, windows[w], [kinds[i], listeners[i], true]);
        } catch (e) {
          // A frame that went away meanwhile.
        }
      }
    }
  };
  listen(T.addEventListener);
  const painted = () => {
    try {
      return T.apply(T.getEntriesByType, T.performance, ['paint']).length > 0;
    } catch (e) {
      return false;
    }
  };
  return {
    __proto__: null,
    since: () => now() - last,
    received: () => [painted(), counts[0], counts[1], counts[2]],
    stop: () => {
      T.apply(T.disconnect, observer, []);
      listen(T.removeEventListener);
    },
  };
})
