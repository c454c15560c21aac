/**
 * Writes too large for one short transaction (an evaluation's 200 000 work rows, a dataset
 * version's 200 000 items) are cut into slices: each its own transaction of at most SLICE_ROWS
 * rows, with a turn of the event loop between two, so requests are served meanwhile. On SQLite a
 * statement runs on the event loop: 1 000 rows are 5 to 15 ms (an UPDATE of an indexed column the
 * most), and the commit's fsync as much again on a busy disk. Whoever writes in slices
 * keeps the result invisible until the last one (a flag, or a row that readers need, written last):
 * the writes stay atomic to every reader.
 */
export const SLICE_ROWS = 1_000;

/** Lets the event loop serve what waits (sockets first) before the next slice. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs `slice` (one transaction each, through the caller's writer) until it answers false, with a
 * turn of the event loop between two.
 */
export async function inSlices(slice: () => Promise<boolean>): Promise<void> {
  while (await slice()) await nextTurn();
}
