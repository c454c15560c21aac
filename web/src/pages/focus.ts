import { useEffect, useRef } from 'react';

/**
 * A ref whose element takes the focus when it appears (give it tabIndex={-1} unless it is a
 * control): the result of an action, so keyboard and screen-reader users land on what it made.
 */
export function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return ref;
}

/**
 * "Load more" for a table: call `expectMore()` before fetching; when the rows arrive, the first
 * new one (tabIndex={-1}) takes the focus, so reading goes on where the list grew.
 */
export function useFocusNewRows(count: number) {
  const body = useRef<HTMLTableSectionElement>(null);
  const firstNew = useRef<number | null>(null);
  useEffect(() => {
    const at = firstNew.current;
    if (at === null || count <= at) return;
    firstNew.current = null;
    body.current?.rows[at]?.focus();
  }, [count]);
  return {
    body,
    expectMore: () => {
      firstNew.current = count;
    },
  };
}

/**
 * Filters applied through the URL: call `applying(next query string)` before navigating; once the
 * list for it has loaded, `target` (its count, or "nothing matches"; tabIndex={-1}) takes the focus.
 */
export function useFocusAfterApply<T extends HTMLElement>(current: string, loaded: boolean) {
  const target = useRef<T>(null);
  const applied = useRef<string | null>(null);
  useEffect(() => {
    if (applied.current === current && loaded) {
      applied.current = null;
      target.current?.focus();
    }
  }, [current, loaded]);
  return {
    target,
    applying: (next: string) => {
      applied.current = next;
    },
  };
}
