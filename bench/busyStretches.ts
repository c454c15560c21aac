/**
 * The longest stretches of a V8 .cpuprofile with no idle sample: under a light load (one
 * connection) the main thread idles between requests, so a long busy stretch is one task holding
 * the event loop, the stall the speed bench reports. For each, its length and the frames of our
 * code (`dist/src/`) found most often in its samples' stacks: what was running.
 */
import fs from 'node:fs';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: Frame; children?: number[] }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export function printBusyStretches(file: string, window: { startUs: number; endUs: number }, top = 5, minMs = 5): void {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ourFrames = (id: number): string[] => {
    const frames: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      const src = f.url.indexOf('/dist/src/');
      if (src >= 0) frames.push(`${f.functionName || '(anonymous)'} ${f.url.slice(src + '/dist/'.length)}:${f.lineNumber + 1}`);
    }
    return frames;
  };
  const stretches: Array<{ startUs: number; endUs: number; samples: number[] }> = [];
  let current: { startUs: number; endUs: number; samples: number[] } | null = null;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < window.startUs || t > window.endUs) continue;
    const id = profile.samples[i]!;
    if (byId.get(id)!.callFrame.functionName === '(idle)') {
      if (current !== null) stretches.push(current);
      current = null;
    } else {
      current ??= { startUs: t, endUs: t, samples: [] };
      current.endUs = t;
      current.samples.push(id);
    }
  }
  if (current !== null) stretches.push(current);
  const longest = stretches
    .filter((s) => (s.endUs - s.startUs) / 1000 >= minMs)
    .sort((a, b) => b.endUs - b.startUs - (a.endUs - a.startUs))
    .slice(0, top);
  console.log(`\nLongest busy stretches (no idle sample; ≥ ${minMs} ms): ${longest.length === 0 ? 'none' : ''}`);
  for (const s of longest) {
    const counts = new Map<string, number>();
    for (const id of s.samples) for (const f of new Set(ourFrames(id))) counts.set(f, (counts.get(f) ?? 0) + 1);
    const frames = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6);
    console.log(
      `- ${((s.endUs - s.startUs) / 1000).toFixed(1)} ms, ${s.samples.length} samples; our frames on the stack: ${frames.map(([f, n]) => `${f} (${n})`).join('; ') || 'none'}`,
    );
  }
}
