// tabwire's waker: an offscreen document (opened by the worker at start) that outlives
// the extension's service worker. Chrome stops that worker now and then, or it crashes;
// nothing starts it again until an extension event comes, and until then no agent
// reaches the browser (the native host goes with the worker's port). This page holds a
// port to the worker; when the port drops, the worker is gone, and connecting again is
// such an event: Chrome starts the worker at once, which reconnects to the native host.
// Ports that keep dropping right away (the worker cannot start, or stops as soon as it
// does) are retried more and more slowly, so the page never spins.
const PAUSES_MS = [0, 0, 0, 500, 2000, 5000];
const HEALTHY_AFTER_MS = 1000;
let failures = 0;

function watch() {
  const since = Date.now();
  const port = chrome.runtime.connect({ name: 'waker' });
  port.onDisconnect.addListener(() => {
    void chrome.runtime.lastError;
    failures = Date.now() - since >= HEALTHY_AFTER_MS ? 0 : failures + 1;
    setTimeout(watch, PAUSES_MS[Math.min(failures, PAUSES_MS.length - 1)]);
  });
}

watch();
