// tabwire's service worker: loads the Rust engine (WASM) and forwards Chrome's events
// to it. Listeners are registered synchronously, in this first turn: Manifest V3
// drops events that wake the worker if no listener exists yet. Events that arrive
// while the engine is loading or restoring its saved state are queued and replayed.
import init, * as engine from './tabwire_extension.js';

const early = [];
let ready = false;

function forward(name) {
  return (...args) => {
    if (ready) engine[name](...args);
    else early.push([name, args]);
  };
}

chrome.debugger.onEvent.addListener(forward('onDebuggerEvent'));
chrome.debugger.onDetach.addListener(forward('onDebuggerDetach'));
chrome.tabs.onRemoved.addListener(forward('onTabRemoved'));
chrome.tabs.onUpdated.addListener(forward('onTabUpdated'));
chrome.tabs.onActivated.addListener(forward('onTabActivated'));
const { tabs, windows } = chrome;
for (const e of [tabs.onCreated, tabs.onMoved, tabs.onAttached, tabs.onDetached])
  e.addListener(forward('onTabMoved'));
for (const e of [tabs.onReplaced, windows.onFocusChanged]) e.addListener(forward('onTabsChanged'));
for (const e of [chrome.tabGroups.onCreated, chrome.tabGroups.onUpdated])
  e.addListener(forward('onGroupChanged'));
chrome.notifications.onClicked.addListener(forward('onNotificationClicked'));
chrome.runtime.onConnect.addListener(forward('onPopupConnect'));
chrome.alarms.onAlarm.addListener(forward('onAlarm'));
// The waker (waker.js) connects only to start this worker; held until it goes away.
const wakers = new Set();
chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== 'waker') return;
  wakers.add(port);
  port.onDisconnect.addListener(() => wakers.delete(port));
});
// Nothing to do on these but wake up, which starts the engine and its native port.
chrome.runtime.onStartup.addListener(() => {});
chrome.runtime.onInstalled.addListener(() => {});

init()
  .then(() => engine.start())
  .then(() => {
    ready = true;
    for (const [name, args] of early.splice(0)) engine[name](...args);
  })
  .catch((error) => console.error('tabwire: the engine failed to start', error));
