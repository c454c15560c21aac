/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most self time and self
 * time by package, counting only the samples taken inside a window (the measured load).
 */
import fs from 'node:fs';

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The package a script belongs to: node_modules/<pkg>, node:internal, src/<dir>, or V8's own pseudo-frames. */
function packageOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native: V8 builtins, C++ bindings)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [first, second] = url.slice(modules + '/node_modules/'.length).split('/');
    return `node_modules/${first?.startsWith('@') ? `${first}/${second}` : first}`;
  }
  if (url.startsWith('node:')) return 'node:internal (node core)';
  const src = url.indexOf('/dist/src/');
  if (src >= 0) {
    const parts = url.slice(src + '/dist/src/'.length).split('/');
    return parts.length > 1 ? `src/${parts[0]}/` : `src/${parts[0]}`;
  }
  if (url.includes('/dist/bench/')) return 'bench (event-loop probe)';
  return url;
}

/** node: scripts split finer: which part of node core (the fetch behind the SDK is node:internal/deps/undici). */
function nodeModuleOf(url: string): string {
  const parts = url.split('/');
  if (url.startsWith('node:internal/deps/')) return parts.slice(0, 3).join('/');
  if (url.startsWith('node:internal/')) return parts.slice(0, 2).join('/').replace(/\.js$/, '');
  return url;
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + 1);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url;
}

export function summariseProfile(file: string, window: { startUs: number; endUs: number }): void {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  let t = profile.startTime;
  let all = 0;
  const inWindow: Array<{ functionName: string; url: string; lineNumber: number }> = [];
  const everyFrame: Array<{ functionName: string; url: string; lineNumber: number }> = [];
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const frame = byId.get(profile.samples[i]!)!;
    everyFrame.push(frame);
    all++;
    if (t >= window.startUs && t <= window.endUs) inWindow.push(frame);
  }
  // If the clocks did not line up, fall back to the whole profile (start-up and warm-up included) and say so.
  const frames = inWindow.length > 0 ? inWindow : everyFrame;
  const spanMs = (inWindow.length > 0 ? window.endUs - window.startUs : profile.endTime - profile.startTime) / 1000;
  const msPerSample = spanMs / frames.length;
  const idle = frames.filter((f) => f.functionName === '(idle)').length;
  const busy = frames.length - idle;
  console.log(
    `\n${frames.length} samples ${
      inWindow.length > 0
        ? `in the measured ${fmt(spanMs / 1000, 1)} s window (of ${all} in the whole profile)`
        : 'over the WHOLE profile (no sample fell in the measured window)'
    }, ≈ ${fmt(msPerSample, 3)} ms each; ${idle} (${fmt((100 * idle) / frames.length, 1)} %) idle. Percentages below are of the non-idle samples (${busy}).`,
  );
  const tally = (key: (f: { functionName: string; url: string; lineNumber: number }) => string) => {
    const counts = new Map<string, number>();
    for (const f of frames) if (f.functionName !== '(idle)') counts.set(key(f), (counts.get(key(f)) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1]);
  };
  const pct = (n: number) => fmt((100 * n) / busy, 1);
  console.log('\n| # | function (self time) | script:line | package | self % of busy | self ms |');
  console.log('|---|---|---|---|---|---|');
  tally((f) => JSON.stringify([f.functionName || '(anonymous)', f.url, f.lineNumber]))
    .slice(0, 15)
    .forEach(([key, n], i) => {
      const [functionName, url, lineNumber] = JSON.parse(key) as [string, string, number];
      console.log(
        `| ${i + 1} | ${functionName} | ${url === '' ? '–' : `${shortUrl(url)}:${lineNumber + 1}`} | ${packageOf(url, functionName)} | ${pct(n)} | ${fmt(n * msPerSample, 0)} |`,
      );
    });
  console.log('\n| package | self % of busy | self ms |');
  console.log('|---|---|---|');
  for (const [group, n] of tally((f) => packageOf(f.url, f.functionName))) console.log(`| ${group} | ${pct(n)} | ${fmt(n * msPerSample, 0)} |`);
  console.log('\n| node core, by module | self % of busy | self ms |');
  console.log('|---|---|---|');
  for (const [group, n] of tally((f) => (f.url.startsWith('node:') ? nodeModuleOf(f.url) : '')).filter(([group]) => group !== '')) {
    console.log(`| ${group} | ${pct(n)} | ${fmt(n * msPerSample, 0)} |`);
  }
}
