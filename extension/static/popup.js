// tabwire's popup: renders the state the service worker sends and sends back the
// buttons pressed. Every decision is made in the worker (Rust); nothing is cached here.
const port = chrome.runtime.connect({ name: 'popup' });
const wanted = new URLSearchParams(location.search).get('tab');
const $ = (id) => document.getElementById(id);
let revision = 0;
let settingsShown = false;
let heard = false;
let lastError = null;

function el(tag, props = {}, ...children) {
  const { dataset = {}, ...rest } = props;
  const node = Object.assign(document.createElement(tag), rest);
  for (const [key, value] of Object.entries(dataset)) node.dataset[key] = value;
  node.append(...children);
  return node;
}

function act(action) {
  port.postMessage({ type: 'action', action });
}

function button(className, text, data, action) {
  const b = el('button', { className, textContent: text, dataset: data });
  b.addEventListener('click', () => act(action));
  return b;
}

function ago(ms, now) {
  if (!ms) return 'never';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  return `${s} s ago`;
}

function render(state) {
  const status = $('status');
  status.className = state.connected ? 'up' : 'down';
  status.textContent = `${state.connected ? 'Connected' : 'Not connected'} · last heartbeat ${ago(state.lastHeartbeatMs, state.nowMs)} · last command ${ago(state.lastCommandMs, state.nowMs)}`;
  const current = $('current');
  current.replaceChildren();
  if (state.notice) current.append(el('p', { className: 'notice', textContent: state.notice }));
  if (lastError) current.append(el('p', { className: 'why error', textContent: lastError }));
  const t = state.target;
  if (state.agentProfile) current.append(el('p', { className: 'why', textContent: 'This browser was started for an agent: every tab is shared.' }));
  if (t) {
    current.append(el('div', { className: 'title', textContent: t.title || t.url, title: t.url }));
    for (const a of t.sharedWith) {
      current.append(button('unshare', `Stop sharing with ${a.name}`, { session: a.session, tab: t.id }, { action: 'unshare', session: a.session, tab: t.id }));
    }
    if (t.refusal) current.append(el('p', { className: 'why', textContent: t.refusal }));
    else for (const a of t.canShareWith) {
      current.append(button('share', `Share with ${a.name}`, { session: a.session }, { action: 'share', session: a.session, tab: t.id }));
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
  if (!settingsShown) {
    $('auto-share').checked = state.settings.autoShare;
    $('idle-detach').value = state.settings.idleDetachSeconds;
    $('blocklist').value = state.settings.blocklist.join('\n');
    settingsShown = true;
  }
  revision += 1;
  document.body.dataset.revision = String(revision);
}

port.onMessage.addListener((message) => {
  heard = true;
  if (message.type === 'state') render(message.state);
  if (message.type === 'done' && message.action === 'saveSettings') {
    $('settings-status').textContent = message.error ? `Not saved: ${message.error}` : 'Saved';
    if (!message.error) settingsShown = false;
  } else if (message.type === 'done') {
    lastError = message.error;
  }
});

$('disconnect-all').addEventListener('click', () => act({ action: 'disconnectAll' }));
$('save-settings').addEventListener('click', () => {
  $('settings-status').textContent = '';
  act({
    action: 'saveSettings',
    autoShare: $('auto-share').checked,
    idleDetachSeconds: Math.max(0, Math.floor(Number($('idle-detach').value) || 0)),
    blocklist: $('blocklist').value,
  });
});

// The worker may still be starting (its listeners replay queued events): ask until it answers.
function open() {
  if (heard) return;
  port.postMessage({ type: 'open', tab: wanted === null ? null : Number(wanted) });
  setTimeout(open, 500);
}
open();
