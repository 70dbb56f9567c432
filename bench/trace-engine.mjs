// DevTools' own trace engine (the npm package @paulirish/trace_engine, installed by
// scripts/trace-check into its cache) over saved trace files: prints, one JSON line
// per file, the metrics scripts/trace-check compares with tabwire's analysis.
//
// Usage: node bench/trace-engine.mjs ENGINE_DIR TRACE.json...
// (ENGINE_DIR: the unpacked package, whose analyze-trace.mjs loads the engine.)

// Node 20 lacks the iterator helpers (Node 22 has them) that some of the engine's
// insights call (ThirdParties: `map.values().find(...)`): the few it uses, added to
// the iterator prototype when missing. Test oracle only, never tabwire's code.
const IteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
const helpers = {
  toArray() { return [...this]; },
  find(fn) { let i = 0; for (const v of this) if (fn(v, i++)) return v; return undefined; },
  some(fn) { let i = 0; for (const v of this) if (fn(v, i++)) return true; return false; },
  every(fn) { let i = 0; for (const v of this) if (!fn(v, i++)) return false; return true; },
  forEach(fn) { let i = 0; for (const v of this) fn(v, i++); },
  reduce(fn, ...init) {
    let i = 0, acc = init.length ? init[0] : undefined, first = !init.length;
    for (const v of this) { if (first) { acc = v; first = false; i++; continue; } acc = fn(acc, v, i++); }
    return acc;
  },
  *map(fn) { let i = 0; for (const v of this) yield fn(v, i++); },
  *filter(fn) { let i = 0; for (const v of this) if (fn(v, i++)) yield v; },
  *flatMap(fn) { let i = 0; for (const v of this) yield* fn(v, i++); },
};
for (const [name, fn] of Object.entries(helpers)) {
  if (!IteratorPrototype[name]) {
    Object.defineProperty(IteratorPrototype, name, {value: fn, writable: true, configurable: true});
  }
}

import path from 'node:path';
import {pathToFileURL} from 'node:url';

const [engineDir, ...files] = process.argv.slice(2);
const {analyzeTrace} = await import(pathToFileURL(path.join(engineDir, 'analyze-trace.mjs')).href);

const ms = us => (typeof us === 'number' ? us / 1000 : null);
const span = w => (w ? ms(w.range) : null);

// The bottom-up table of one thread's CPU profile within [from, until) (µs), as
// DevTools' CPU profile model walks it (forEachFrame: a frame's duration and self
// time as it closes): self and total time per function (its call UID: name, script,
// line, column), a recursive function's total counted once.
function bottomUp(model, from, until) {
  const byUid = new Map();
  const open = new Map();
  model.forEachFrame(
    (_depth, node) => open.set(node.callUID, (open.get(node.callUID) || 0) + 1),
    (_depth, node, _index, _start, duration, self) => {
      const count = (open.get(node.callUID) || 1) - 1;
      open.set(node.callUID, count);
      let f = byUid.get(node.callUID);
      if (!f) {
        f = {functionName: node.functionName, url: node.url || '',
             line: node.lineNumber + 1, column: node.columnNumber + 1, selfMs: 0, totalMs: 0};
        byUid.set(node.callUID, f);
      }
      f.selfMs += self;
      if (count === 0) f.totalMs += duration;
    },
    from / 1000, until / 1000);
  const functions = [...byUid.values()].sort((a, b) => b.selfMs - a.selfMs);
  const sampledMs = functions.reduce((sum, f) => sum + f.selfMs, 0);
  const idleMs = functions.filter(f => f.functionName === '(idle)')
    .reduce((sum, f) => sum + f.selfMs, 0);
  return {sampledMs, busyMs: sampledMs - idleMs, functions: functions.slice(0, 30)};
}

// Each sampled thread's table within the set's bounds, by "pid:tid".
function cpuProfiles(set, parsed) {
  const out = {};
  for (const [pid, threads] of parsed.data.Samples.profilesInProcess) {
    for (const [tid, profile] of threads) {
      out[`${pid}:${tid}`] = bottomUp(profile.parsedProfile, set.bounds.min, set.bounds.max);
    }
  }
  return out;
}

// The ThirdParties insight: per entity, its transfer size and main-thread time.
function thirdParties(model) {
  if (!model) return null;
  return {
    firstParty: model.firstPartyEntity?.name ?? null,
    entities: model.entitySummaries.map(s => ({
      name: s.entity.name, transferBytes: s.transferSize, mainThreadMs: s.mainThreadTime,
    })),
  };
}

// The NetworkDependencyTree insight: every chain of critical requests from a root to
// a leaf, each as the URL paths of its requests, and the longest chain's time (ms).
function dependencyTree(model) {
  if (!model) return null;
  const chains = [];
  const walk = (nodes, above) => {
    for (const node of nodes) {
      const url = new URL(node.request.args.data.url);
      const here = [...above, url.pathname + url.search];
      if (node.children.length === 0) chains.push(here);
      walk(node.children, here);
    }
  };
  walk(model.rootNodes || [], []);
  return {
    maxTimeMs: ms(model.maxTime),
    chains,
    preconnectedOrigins: (model.preconnectedOrigins || []).map(o => ({url: o.url, source: o.source})),
  };
}

function insightSet(set, parsed) {
  const m = set.model;
  const lcp = m.LCPBreakdown;
  const parts = lcp?.subparts;
  const cls = m.CLSCulprits;
  const doc = m.DocumentLatency;
  const blocking = m.RenderBlocking;
  const inp = m.INPBreakdown?.longestInteractionEvent;
  const reflow = m.ForcedReflow;
  const dom = m.DOMSize?.maxDOMStats?.args?.data;
  const discovery = m.LCPDiscovery;
  const checks = discovery?.checklist;
  const nav = set.navigation;
  const docRequest = parsed.data.NetworkRequests.byId.get(set.id);
  return {
    id: set.id,
    url: set.url?.href ?? String(set.url ?? ''),
    navigationTs: nav ? nav.ts : null,
    bounds: {min: set.bounds.min, max: set.bounds.max},
    errors: Object.fromEntries(Object.entries(set.modelErrors || {}).map(([k, e]) => [k, String(e)])),
    lcp: lcp && lcp.lcpMs !== undefined ? {
      ms: lcp.lcpMs,
      nodeId: lcp.lcpEvent?.args?.data?.nodeId ?? null,
      type: lcp.lcpEvent?.args?.data?.type ?? null,
      imageUrl: lcp.lcpRequest?.args?.data?.url ?? null,
      ttfbMs: span(parts?.ttfb),
      loadDelayMs: span(parts?.loadDelay),
      loadDurationMs: span(parts?.loadDuration),
      renderDelayMs: span(parts?.renderDelay),
    } : null,
    lcpWarnings: lcp?.warnings ?? [],
    cls: cls ? {
      score: cls.worstCluster ? cls.worstCluster.clusterCumulativeScore : 0,
      shifts: cls.worstCluster ? cls.worstCluster.events.length : 0,
    } : null,
    document: doc?.data ? {
      serverMs: doc.data.serverResponseTime,
      ttfbMs: docRequest && nav ? ms(docRequest.args.data.timing.requestTime * 1e6 +
        docRequest.args.data.timing.receiveHeadersStart * 1e3 - nav.ts) : null,
    } : null,
    renderBlocking: blocking ? blocking.renderBlockingRequests.map(r => ({
      url: r.args.data.url, durationMs: ms(r.dur), startMs: nav ? ms(r.ts - nav.ts) : null,
    })) : null,
    forcedReflows: reflow ? {
      totalMs: ms(reflow.aggregatedBottomUpData.reduce((sum, d) => sum + d.totalTime, 0)),
      count: reflow.relatedEvents.length,
    } : null,
    domSize: dom ? {
      totalElements: dom.totalElements,
      maxDepth: dom.maxDepth?.depth ?? null,
      maxChildren: dom.maxChildren?.numChildren ?? null,
    } : null,
    lcpDiscovery: checks ? {
      fetchPriorityHigh: checks.priorityHinted.value,
      discoverable: checks.requestDiscoverable.value,
      eagerlyLoaded: checks.eagerlyLoaded.value,
      delayMs: discovery.earliestDiscoveryTimeTs !== undefined && discovery.lcpRequest ?
        ms(discovery.lcpRequest.ts - discovery.earliestDiscoveryTimeTs) : null,
      requestUrl: discovery.lcpRequest?.args?.data?.url ?? null,
    } : null,
    cpuProfiles: cpuProfiles(set, parsed),
    thirdParties: thirdParties(m.ThirdParties),
    cache: m.Cache ? {
      wastedBytes: m.Cache.wastedBytes,
      requests: m.Cache.requests.map(r => ({
        url: r.request.args.data.url, ttl: r.ttl, wastedBytes: r.wastedBytes,
      })),
    } : null,
    imageDelivery: m.ImageDelivery ? {
      wastedBytes: m.ImageDelivery.wastedBytes,
      images: m.ImageDelivery.optimizableImages.map(i => ({
        url: i.request.args.data.url, byteSavings: i.byteSavings,
        nodeId: i.largestImagePaint.args.data.isCSS ? null : (i.largestImagePaint.args.data.nodeId ?? null),
        optimizations: i.optimizations.map(o => ({type: o.type, byteSavings: o.byteSavings})),
      })),
    } : null,
    slowCssSelector: m.SlowCSSSelector ? (() => {
      const sel = m.SlowCSSSelector;
      const cost = t => t ? {selector: t.selector, styleSheetId: t.style_sheet_id,
                             elapsedUs: t['elapsed (us)'], matchAttempts: t.match_attempts,
                             matchCount: t.match_count} : null;
      return {totalElapsedMs: sel.totalElapsedMs, totalMatchAttempts: sel.totalMatchAttempts,
              totalMatchCount: sel.totalMatchCount, topByElapsed: cost(sel.topSelectorElapsedMs),
              topByMatchAttempts: cost(sel.topSelectorMatchAttempts)};
    })() : null,
    fontDisplay: m.FontDisplay ? {
      fonts: m.FontDisplay.fonts.map(f => ({url: f.request.args.data.url, display: f.display,
                                            wastedMs: f.wastedTime})),
    } : null,
    characterSet: m.CharacterSet?.data ? {
      httpCharset: m.CharacterSet.data.hasHttpCharset,
      metaCharset: m.CharacterSet.data.metaCharsetDisposition ?? null,
    } : null,
    viewport: m.Viewport ? {
      mobileOptimized: m.Viewport.mobileOptimized, metaViewport: Boolean(m.Viewport.viewportEvent),
    } : null,
    modernHttp: m.ModernHTTP ? {
      requests: m.ModernHTTP.http1Requests.map(r => ({url: r.args.data.url, protocol: r.args.data.protocol})),
    } : null,
    networkDependencyTree: dependencyTree(m.NetworkDependencyTree),
    inp: inp ? {
      ms: ms(inp.dur), inputDelayMs: ms(inp.inputDelay),
      processingMs: ms(inp.mainThreadHandling), presentationDelayMs: ms(inp.presentationDelay),
      type: inp.type,
    } : null,
  };
}

for (const file of files) {
  try {
    const {parsedTrace: parsed} = await analyzeTrace(file);
    const sets = [...parsed.insights.values()].map(set => insightSet(set, parsed));
    const longTasks = (parsed.data.Warnings.perWarning.get('LONG_TASK') || []).map(e => ({
      ts: e.ts, durationMs: ms(e.dur), pid: e.pid, tid: e.tid,
    }));
    const meta = parsed.data.Meta;
    console.log(JSON.stringify({
      file, insightSets: sets, longTasks,
      meta: {mainFrameURL: meta.mainFrameURL, navigations: meta.mainFrameNavigations.length,
             browserPid: meta.browserProcessId ?? null},
    }));
  } catch (error) {
    console.log(JSON.stringify({file, error: String(error && error.stack || error)}));
  }
}
