import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Child } from './processes.js';

/** What the benchmarks read of a process from /proc: its CPU time and its resident memory. */
function clockTicksPerSecond(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}
export const CLK_TCK = clockTicksPerSecond();

/**
 * utime + stime of a process, in clock ticks: fields 14 and 15 of /proc/<pid>/stat, counted after
 * the parenthesised command name (which may hold spaces). Includes all the process's threads, or
 * only `thread`'s (the main thread's id is the process's).
 */
export function cpuTicks(pid: number, thread?: number): { user: number; system: number } {
  const stat = fs.readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime (14) is fields[11], stime (15) fields[12].
  return { user: Number(fields[11]), system: Number(fields[12]) };
}

/** CPU seconds (user + system, every thread) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const t = cpuTicks(pid);
  return (t.user + t.system) / CLK_TCK;
}

export function pidOf(child: Child): number {
  const pid = child.process.pid;
  if (pid === undefined) throw new Error('child process has no pid');
  return pid;
}

/** Resident set size now, in MB (VmRSS of /proc/<pid>/status). */
export function rssMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; answers the highest sample. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number } {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssMb(pid));
    },
  };
}
