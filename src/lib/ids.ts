import { v7 as uuidv7 } from 'uuid';

/** Prefixed, time-ordered identifiers (`run_…`, `out_…`): UUIDv7 without dashes, so ids sort by creation. */
export type IdPrefix = 'run' | 'out' | 'exp' | 'key' | 'prj' | 'aud' | 'whk' | 'whd' | 'evt' | 'ses' | 'itm' | 'chk' | 'lse' | 'evl' | 'upl' | 'prc';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${uuidv7().replaceAll('-', '')}`;
}
