// tabwire:watch — notices DOM changes while an input action plays out.
//
// An expression: a function (T, global) that starts a MutationObserver on the whole
// document and returns a watcher only the extension holds (by reference):
// `since()` is how many milliseconds ago the DOM last changed (or the watcher
// started, if it has not), `stop()` disconnects the observer. The extension reads
// `since()` to decide when the page has settled after a click; it uses its own timers
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
  return {
    __proto__: null,
    since: () => now() - last,
    stop: () => T.apply(T.disconnect, observer, []),
  };
})
