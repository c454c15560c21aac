import net from 'node:net';
import { availableParallelism } from 'node:os';
import { inject } from 'vitest';
import { SLOT_WAIT_MS } from './timeLimits.js';

/**
 * At most one process start per core at a time, across every test file of a vitest run. Starting
 * the built server or a CLI command is about two seconds of CPU; test files running side by side
 * that start several at once only slow each other down. A start holds a slot from its spawn until
 * the process is ready (listening, or exited); waiting for a slot is bounded like any wait.
 *
 * The slots are served over loopback TCP by vitest's main process (globalSetup.ts): a worker
 * holds a slot as long as its connection is open, so a worker that is killed, or a test that
 * times out mid-start, gives its slots back when the kernel closes its sockets.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    startSlotsPort: number;
  }
}

/** Serves the slots; globalSetup starts it and hands its port to the workers. */
export async function serveStartSlots(
  slots = availableParallelism(),
): Promise<{ port: number; state(): { holding: number; waiting: number }; close(): Promise<void> }> {
  const waiting: net.Socket[] = [];
  const holders = new Set<net.Socket>();
  const grant = () => {
    while (holders.size < slots && waiting.length > 0) {
      const socket = waiting.shift()!;
      holders.add(socket);
      socket.write('go\n');
    }
  };
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (holders.delete(socket)) grant();
      else if (waiting.includes(socket)) waiting.splice(waiting.indexOf(socket), 1);
    });
    waiting.push(socket);
    grant();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    state: () => ({ holding: holders.size, waiting: waiting.length }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of [...waiting, ...holders]) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The slot server's port, or null outside a vitest run that set it up (then starts are not limited). */
function slotsPort(): number | null {
  try {
    return inject('startSlotsPort') ?? null;
  } catch {
    return null;
  }
}

/**
 * Waits for a start slot (up to SLOT_WAIT_MS, then fails naming `what`) and resolves with the
 * function that gives it back; giving it back twice is harmless. `port` is the run's slot server.
 */
export function acquireStartSlot(what: string, port = slotsPort()): Promise<() => void> {
  if (port === null) return Promise.resolve(() => undefined);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const timer = setTimeout(() => fail(new Error(`waited ${SLOT_WAIT_MS} ms for a start slot to start ${what}: every core's slot was held`)), SLOT_WAIT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.once('error', (error) => fail(new Error(`no start slot for ${what}: ${error.message}`)));
    socket.once('data', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      socket.on('error', () => undefined);
      // An open connection must not keep the worker alive on its own.
      socket.unref();
      resolve(() => socket.destroy());
    });
  });
}

/** Runs `start` (which resolves once the process is ready) holding a slot. */
export async function withStartSlot<T>(what: string, start: () => Promise<T>): Promise<T> {
  const release = await acquireStartSlot(what);
  try {
    return await start();
  } finally {
    release();
  }
}
