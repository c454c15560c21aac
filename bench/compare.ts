import fs from 'node:fs';
import type { SpeedRun } from './speed.js';
import { figureText } from './speedTargets.js';

/**
 * `npm run bench -- compare A.json B.json`: two runs of `npm run bench -- speed` side by side, per
 * target. A change counts as real only when B's median falls outside A's spread over its rounds
 * (and A's outside B's): anything inside is what the machine moves between rounds.
 */
export function main(args: string[]): void {
  const [a, b] = args;
  if (a === undefined || b === undefined) throw new Error('usage: npm run bench -- compare A.json B.json');
  const runA = JSON.parse(fs.readFileSync(a, 'utf8')) as SpeedRun;
  const runB = JSON.parse(fs.readFileSync(b, 'utf8')) as SpeedRun;
  console.log(`\n## ${a} (A, ${runA.machine.at}) → ${b} (B, ${runB.machine.at})\n`);
  console.log('| target | A median [spread] | B median [spread] | B − A | beyond both spreads | B meets the goal |');
  console.log('|---|---|---|---|---|---|');
  for (const tb of runB.targets) {
    const ta = runA.targets.find((t) => t.id === tb.id);
    const range = (t: typeof tb) => `${figureText(t.median, t.unit)} [${figureText(t.min, t.unit)} – ${figureText(t.max, t.unit)}]`;
    if (ta === undefined) {
      console.log(`| ${tb.name} | – | ${range(tb)} | – | – | ${tb.pass ? 'yes' : 'no'} |`);
      continue;
    }
    const outside = (tb.median < ta.min || tb.median > ta.max) && (ta.median < tb.min || ta.median > tb.max);
    console.log(
      `| ${tb.name} | ${range(ta)} | ${range(tb)} | ${figureText(tb.median - ta.median, tb.unit)} | ${outside ? 'yes' : 'no'} | ${tb.pass ? 'yes' : 'no'} |`,
    );
  }
  console.log(
    `\nRSS idle / peak under load: A ${runA.memory.idleRssMb.toFixed(0)} / ${runA.memory.peakRssMb.toFixed(0)} MB, B ${runB.memory.idleRssMb.toFixed(0)} / ${runB.memory.peakRssMb.toFixed(0)} MB`,
  );
}
