// tabwire's popup: renders the state the service worker sends and sends back the
// buttons pressed. Every decision is made in the worker (Rust); nothing is cached here.
// Opening the popup shares nothing: sharing is the "Share this tab with …" button, which
// is focused when it is the only one, so Enter presses it. When the worker restarts, the port drops: the popup says so, connects again and
// renders the new worker's state.
const wanted = new URLSearchParams(location.search).get('tab');
const $ = (id) => document.getElementById(id);
const ANSWER_WITHIN_MS = 5000;
let port = null;
let revision = 0;
let settingsShown = false;
let heard = false;
// What went wrong with the last button pressed: shown until what the popup shows
// changes or another button is pressed, so it never sits beside a state it predates.
// `seen` is the state it was first shown with (see fingerprint).
let failure = null;
// The tab this popup is about, once the worker said: a reconnect asks about it again.
let targetId = null;
let connections = 0;
const waiting = new Map();

function el(tag, props = {}, ...children) {
  const { dataset = {}, ...rest } = props;
  const node = Object.assign(document.createElement(tag), rest);
  for (const [key, value] of Object.entries(dataset)) node.dataset[key] = value;
  node.append(...children);
  return node;
}

function showError(text) {
  failure = text ? { text, seen: null } : null;
  const current = $('current');
  current.querySelectorAll('.error').forEach((node) => node.remove());
  if (text) current.prepend(el('p', { className: 'why error', textContent: text }));
}

// What the popup shows of a state, without the clocks, which move on their own.
function fingerprint(state) {
  return JSON.stringify({
    ...state, nowMs: 0, lastHeartbeatMs: 0, lastCommandMs: 0,
    agents: state.agents.map((a) => ({ ...a, lastActivityMs: 0 })),
  });
}

// A sentence with `commands` in backquotes, as text and <code>.
function withCode(text) {
  return text.split('`').map((part, i) => (i % 2 ? el('code', { textContent: part }) : part));
}

function act(action) {
  if (action.action !== 'saveSettings') showError(null);
  try {
    port.postMessage({ type: 'action', action });
  } catch (error) {
    const text = `tabwire's worker is not reachable (${error.message}); try again in a moment.`;
    if (action.action === 'saveSettings') $('settings-status').textContent = `Not saved: ${text}`;
    else showError(text);
    return;
  }
  clearTimeout(waiting.get(action.action));
  waiting.set(action.action, setTimeout(() => {
    const text = 'tabwire did not answer; try again.';
    if (action.action === 'saveSettings') $('settings-status').textContent = `Not saved: ${text}`;
    else showError(text);
  }, ANSWER_WITHIN_MS));
}

// A button; `key` names it across renders, so focus can follow it.
function button(className, text, data, action) {
  const key = [className, text, data.session ?? '', data.tab ?? ''].join(':');
  const b = el('button', { className, textContent: text, dataset: { ...data, key } });
  b.addEventListener('click', () => act(action));
  return b;
}

function ago(ms, now) {
  if (!ms) return 'never';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  return `${s} s ago`;
}

// The worker's last word, and how far its clock is from ours, so the status line can
// keep counting between two pushes instead of showing a frozen "3 s ago".
let shown = null;
let skewMs = 0;

function renderStatus() {
  if (!shown) return;
  const now = Date.now() - skewMs;
  const status = $('status');
  status.className = shown.connected ? 'up' : 'down';
  status.textContent = `${shown.connected ? 'Connected' : 'Not connected'} · last heartbeat ${ago(shown.lastHeartbeatMs, now)} · last command ${ago(shown.lastCommandMs, now)}`;
}
setInterval(renderStatus, 1000);

function render(state) {
  shown = state;
  skewMs = Date.now() - state.nowMs;
  renderStatus();
  $('why-not-connected').replaceChildren(...withCode(state.notConnectedWhy ?? ''));
  $('version-mismatch').replaceChildren(...withCode(state.versionMismatch ?? ''));
  const seen = fingerprint(state);
  if (failure && failure.seen === null) failure.seen = seen;
  else if (failure && failure.seen !== seen) failure = null;
  const focused = document.activeElement?.dataset?.key;
  const current = $('current');
  current.replaceChildren();
  if (failure) current.append(el('p', { className: 'why error', textContent: failure.text }));
  const t = state.target;
  if (t) targetId = t.id;
  if (state.agentProfile) current.append(el('p', { className: 'why', textContent: 'This browser was started for an agent: every tab is shared.' }));
  if (t) {
    current.append(el('div', { className: 'title', textContent: t.title || t.url, title: t.url }));
    for (const a of t.sharedWith) {
      current.append(button('unshare', `Stop sharing with ${a.name}`, { session: a.session, tab: t.id }, { action: 'unshare', session: a.session, tab: t.id }));
    }
    if (t.refusal) current.append(el('p', { className: 'why', textContent: t.refusal }));
    else for (const a of t.canShareWith) {
      current.append(button('share', `Share this tab with ${a.name}`, { session: a.session }, { action: 'share', session: a.session, tab: t.id }));
    }
  } else {
    current.append(el('p', { className: 'why', textContent: 'No tab to share here.' }));
  }
  $('agents').replaceChildren(...state.agents.map((a) => el('li', { className: 'agent', dataset: { session: a.session } },
    el('span', { className: 'name', textContent: a.name }),
    el('span', { className: 'muted', textContent: a.connected ? ` · active ${ago(a.lastActivityMs, state.nowMs)} ` : ' · reconnecting… ' }),
    button('disconnect', 'Disconnect', { session: a.session }, { action: 'disconnect', session: a.session }),
    el('ul', {}, ...a.tabs.map((tab) => el('li', { className: 'tab', dataset: { tab: tab.id, attached: tab.attached } },
      el('span', { className: 'title', textContent: tab.title || tab.url || `Tab ${tab.id}`, title: tab.url }),
      el('span', { className: 'muted', textContent: tab.attached ? 'debugging' : 'idle' }),
      button('unshare', 'Stop sharing', { session: a.session, tab: tab.id }, { action: 'unshare', session: a.session, tab: tab.id })))))));
  if (state.agents.length === 0) $('agents').append(el('li', { className: 'muted', textContent: 'No agent is connected.' }));
  // Focus follows a button across renders; with nothing focused, the one share button
  // takes it (with several agents, the user picks with Tab).
  const again = focused && [...document.querySelectorAll('button')].find((b) => b.dataset.key === focused);
  if (again) again.focus();
  else if (document.activeElement === document.body || !document.activeElement) {
    const shares = current.querySelectorAll('button.share');
    if (shares.length === 1) shares[0].focus();
  }
  if (!settingsShown) {
    $('auto-share').checked = state.settings.autoShare;
    $('idle-detach').value = state.settings.idleDetachSeconds;
    $('blocklist').value = state.settings.blocklist.join('\n');
    settingsShown = true;
  }
  revision += 1;
  document.body.dataset.revision = String(revision);
}

function received(message) {
  heard = true;
  if (message.type === 'done') {
    clearTimeout(waiting.get(message.action));
    waiting.delete(message.action);
  }
  if (message.type === 'state') render(message.state);
  if (message.type === 'done' && message.action === 'saveSettings') {
    $('settings-status').textContent = message.error ? `Not saved: ${message.error}` : 'Saved';
    if (!message.error) settingsShown = false;
  } else if (message.type === 'done') {
    showError(message.error);
  }
}

function connect() {
  connections += 1;
  heard = false;
  port = chrome.runtime.connect({ name: 'popup' });
  port.onMessage.addListener(received);
  port.onDisconnect.addListener(() => {
    shown = null;
    const status = $('status');
    status.className = 'down';
    status.textContent = 'Reconnecting…';
    $('why-not-connected').replaceChildren();
    $('version-mismatch').replaceChildren();
    setTimeout(connect, 200);
  });
  open(connections);
}

$('disconnect-all').addEventListener('click', () => act({ action: 'disconnectAll' }));
// An edit makes "Saved" (or why not) stale.
for (const id of ['auto-share', 'idle-detach', 'blocklist']) {
  $(id).addEventListener('input', () => { $('settings-status').textContent = ''; });
}
$('save-settings').addEventListener('click', () => {
  $('settings-status').textContent = '';
  act({
    action: 'saveSettings',
    autoShare: $('auto-share').checked,
    idleDetachSeconds: Math.min(86400, Math.max(0, Math.floor(Number($('idle-detach').value) || 0))),
    blocklist: $('blocklist').value,
  });
});

// The worker may still be starting (its listeners replay queued events): ask until it
// answers. After a reconnect, ask about the tab shown before (not whichever is in front).
function open(connection) {
  if (heard || connection !== connections) return;
  try {
    port.postMessage({ type: 'open', tab: targetId ?? (wanted === null ? null : Number(wanted)) });
  } catch (error) {
    return; // the port dropped: onDisconnect connects again
  }
  setTimeout(() => open(connection), 500);
}
connect();
