// tabwire's popup: renders the state the service worker sends and sends back the
// buttons pressed. Every decision is made in the worker (Rust); nothing is cached here.
// Opening the popup shares nothing: sharing is a "Share this tab with …" button. The
// worker names the one share button that may take the focus when the popup opens
// (`focusOnOpen`, see engine/core/access/opening_focus.rs); otherwise nothing is focused and
// the user moves with Tab. When the worker restarts, the port drops: the popup says so,
// connects again and renders the new worker's state.
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
  const body = $('this-tab');
  body.querySelectorAll('.error').forEach((node) => node.remove());
  if (text) body.prepend(el('p', { className: 'why error', role: 'alert', textContent: text }));
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

// Fills a notice (`#why-not-connected`, `#version-mismatch`) with `text`, or hides it.
function notice(id, text) {
  $(id).replaceChildren(...withCode(text ?? ''));
  $(id).hidden = !text;
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

// A button that sends `action`; `key` names it across renders, so focus can follow it.
// `label` is what a screen reader says when the visible text is short.
function button(className, text, action, label) {
  const key = [className, text, action.session ?? '', action.tab ?? '', action.id ?? ''].join(':');
  const b = el('button', { type: 'button', className, textContent: text, dataset: { key } });
  if (action.session !== undefined) b.dataset.session = action.session;
  if (action.tab !== undefined) b.dataset.tab = action.tab;
  if (label) b.setAttribute('aria-label', label);
  b.addEventListener('click', () => act(action));
  return b;
}

// An agent's name as users tell agents apart (`label`, else its name).
const nameOf = (agent) => agent.label || agent.name;

// The agent's tab-group colour, as a dot (none when the worker gave no colour).
function dot(agent) {
  return el('span', { className: 'dot', dataset: agent.color ? { color: agent.color } : {} });
}

function ago(ms, now) {
  if (!ms) return 'never';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m} min ago` : `${Math.round(m / 60)} h ago`;
}

// The worker's last word, and how far its clock is from ours, so the times can keep
// counting between two pushes instead of showing a frozen "3 s ago".
let shown = null;
let skewMs = 0;

function renderStatus() {
  if (!shown) return;
  const now = Date.now() - skewMs;
  $('status').className = shown.status.tone;
  $('status-words').textContent = shown.status.words;
  $('status-times').textContent = shown.connected
    ? `last heartbeat ${ago(shown.lastHeartbeatMs, now)} · last command ${ago(shown.lastCommandMs, now)}`
    : '';
  for (const node of document.querySelectorAll('[data-active-ms]')) {
    node.textContent = `active ${ago(Number(node.dataset.activeMs), now)}`;
  }
}
setInterval(renderStatus, 1000);

// Agents asking to work on this tab, each with Share and Not now.
function renderRequests(state) {
  const tab = state.target?.id;
  $('requests').replaceChildren(...(state.requests ?? []).map((r) => el('section', { className: 'request' },
    el('p', {}, el('strong', { textContent: nameOf(r) }), ` asks to work on this tab: ${r.reason}`),
    el('div', { className: 'buttons' },
      button('answer-no', 'Not now', { action: 'answerRequest', id: r.id, tab: tab ?? -1, share: false }, `Do not share this tab with ${nameOf(r)}`),
      ...(tab === undefined ? [] : [button('answer-share primary', 'Share', { action: 'answerRequest', id: r.id, tab, share: true }, `Share this tab with ${nameOf(r)}`)])))));
}

// The user picking an element to point out to an agent.
function renderPointing(state) {
  const p = state.pointing;
  $('pointing').replaceChildren(...(p ? [el('section', { className: 'pointing' },
    el('p', {}, `Click an element in the page to point it out to ${nameOf(p)}.`),
    el('div', { className: 'buttons' }, button('cancel-point', 'Cancel', { action: 'cancelPoint' }, 'Cancel pointing')))] : []));
}

// This tab: what it is, with whom it is shared, and the buttons to share it.
function renderThisTab(state) {
  const body = $('this-tab');
  body.replaceChildren();
  if (failure) body.append(el('p', { className: 'why error', role: 'alert', textContent: failure.text }));
  const t = state.target;
  if (t) targetId = t.id;
  if (state.agentProfile) body.append(el('p', { className: 'why', textContent: 'This browser was started for an agent: every tab is shared.' }));
  if (!t) {
    body.append(el('p', { className: 'why', textContent: 'No tab to share here.' }));
    return;
  }
  let where = '';
  try { where = new URL(t.url).host; } catch (error) { /* no host to show */ }
  body.append(el('div', { className: 'row' },
    el('span', { className: 'grow page-title', textContent: t.title || t.url, title: t.url }),
    ...(where && t.title ? [el('span', { className: 'host muted small', textContent: where, title: t.url })] : [])));
  if (t.sharedWith.length) {
    for (const a of t.sharedWith) {
      const buttons = el('div', { className: 'buttons' });
      if (state.pointing === null) buttons.append(button('point', 'Point at an element', { action: 'point', session: a.session, tab: t.id }, `Point at an element for ${nameOf(a)}`));
      buttons.append(button('unshare', 'Stop sharing', { action: 'unshare', session: a.session, tab: t.id }, `Stop sharing this tab with ${nameOf(a)}`));
      body.append(el('div', { className: 'shared' },
        el('div', { className: 'row' }, el('span', { className: 'muted', textContent: 'Shared with' }), dot(a),
          el('span', { className: 'grow agent-name', textContent: nameOf(a), title: a.name })),
        buttons));
    }
  } else if (!state.agentProfile && !t.refusal) {
    body.append(el('p', { className: 'muted small', textContent: 'Not shared: no agent can see this tab.' }));
  }
  if (t.refusal) {
    body.append(el('p', { className: 'why', textContent: t.refusal }));
    return;
  }
  for (const a of t.canShareWith) {
    const share = button('share primary', '', { action: 'share', session: a.session, tab: t.id });
    share.append(dot(a), `Share this tab with ${nameOf(a)}`);
    body.append(share);
  }
}

// Each agent: its name and colour, folder, last activity, its tabs, Disconnect.
function renderAgents(state) {
  $('disconnect-all').hidden = state.agents.length === 0;
  $('agents').replaceChildren(...state.agents.map((a) => el('li', { className: 'agent', dataset: { session: a.session } },
    el('div', { className: 'row' },
      dot(a),
      el('span', { className: 'grow agent-name', textContent: nameOf(a), title: a.name }),
      button('disconnect', 'Disconnect', { action: 'disconnect', session: a.session }, `Disconnect ${nameOf(a)}`)),
    el('div', { className: 'meta' },
      a.connected
        ? el('span', { className: 'activity', dataset: { activeMs: a.lastActivityMs }, textContent: `active ${ago(a.lastActivityMs, state.nowMs)}` })
        : el('span', { className: 'activity', textContent: 'reconnecting…' }),
      ...(a.folder ? [el('span', { className: 'folder', textContent: a.folder, title: a.folder })] : [])),
    el('ul', {}, ...(a.tabs.length ? a.tabs.map((tab) => el('li', { className: 'tab row', dataset: { tab: tab.id, attached: tab.attached } },
      el('span', { className: 'grow', textContent: tab.title || tab.url || `Tab ${tab.id}`, title: tab.url }),
      el('span', { className: 'state', textContent: tab.attached ? 'debugging' : 'idle' }),
      button('unshare link', 'Stop sharing', { action: 'unshare', session: a.session, tab: tab.id }, `Stop sharing ${tab.title || tab.url} with ${nameOf(a)}`)))
      : state.agentProfile ? [] : [el('li', { className: 'tab muted small', textContent: 'No tab shared yet.' })])))));
  if (state.agents.length === 0) {
    $('agents').append(el('li', { className: 'muted', textContent: 'None connected.' }));
  }
}

function render(state) {
  shown = state;
  skewMs = Date.now() - state.nowMs;
  const seen = fingerprint(state);
  if (failure && failure.seen === null) failure.seen = seen;
  else if (failure && failure.seen !== seen) failure = null;
  const focused = document.activeElement?.dataset?.key;
  notice('why-not-connected', state.notConnectedWhy);
  notice('version-mismatch', state.versionMismatch);
  renderRequests(state);
  renderPointing(state);
  renderThisTab(state);
  renderAgents(state);
  renderStatus();
  // Focus follows a button across renders. When it went (pressed, say), no other button
  // takes the focus: Tab goes on from where it was. The first render focuses the share
  // button the worker names, if any.
  const again = focused && [...document.querySelectorAll('button')].find((b) => b.dataset.key === focused);
  if (again) again.focus();
  else if (revision === 0 && state.focusOnOpen) {
    [...$('current').querySelectorAll('button.share')].find((b) => b.dataset.session === state.focusOnOpen)?.focus();
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
    $('status').className = 'down';
    $('status-words').textContent = 'Reconnecting to tabwire…';
    $('status-times').textContent = '';
    notice('why-not-connected', null);
    notice('version-mismatch', null);
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
notice('why-not-connected', null);
notice('version-mismatch', null);

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
