/**
 * Preloaded into the benchmarked server (`node --import`), never part of the product: measures the
 * event loop's delay with perf_hooks and, on SIGUSR2, writes what it saw since the last signal to
 * the file named by PROMPTLINE_BENCH_ELD_FILE, then starts over.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.PROMPTLINE_BENCH_ELD_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    // Written aside, then renamed: the reader never sees half a file.
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ maxMs: ms(histogram.max), p99Ms: ms(histogram.percentile(99)), meanMs: ms(histogram.mean) }));
    fs.renameSync(`${file}.tmp`, file);
    histogram.reset();
  });
}
