// Called by bench/cdp.py through the service worker's own DevTools session: times
// chrome.debugger round trips to a tab, the leg between tabwire's extension and the page.
async function benchTime(url, reps) {
  const [tab] = await chrome.tabs.query({url});
  if (!tab) throw new Error('no tab at ' + url);
  const target = {tabId: tab.id};
  await chrome.debugger.attach(target, '1.3');
  const send = (method, params) => chrome.debugger.sendCommand(target, method, params || {});
  const time = async (method, params, n) => {
    const out = [];
    for (let i = 0; i < n + 1; i++) {
      const start = performance.now();
      const result = await send(method, params);
      if (i > 0) out.push(performance.now() - start);
      if (method === 'Accessibility.getFullAXTree') {
        const t = performance.now();
        const bytes = JSON.stringify(result).length;
        benchTime.stringify = performance.now() - t;
        benchTime.bytes = bytes;
      }
    }
    out.sort((a, b) => a - b);
    return out[Math.floor(out.length / 2)];
  };
  try {
    const evaluate = await time('Runtime.evaluate', {expression: '1+1', returnByValue: true}, reps);
    const ax = await time('Accessibility.getFullAXTree', {}, Math.max(5, reps >> 1));
    return {evaluate, ax, bytes: benchTime.bytes, stringify: benchTime.stringify};
  } finally {
    await chrome.debugger.detach(target);
  }
}
self.benchTime = benchTime;
