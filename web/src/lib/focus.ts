import { useEffect, useRef } from 'react';
import { useLocation } from 'wouter';

/** How long a page may take to show its heading (its data, a lazy chunk) before focus settles on <main> itself. */
const HEADING_WAIT_MS = 5_000;

/**
 * Moves keyboard and screen-reader focus to the new page's main heading after each page change (a
 * path change, not a change of the query string: filters typed on a page keep their focus), so
 * the next Tab starts in the new content rather than in the header. The one place that does it for
 * every page. Pages load their data, so the heading is waited for; without one, <main> gets focus.
 * `onMount`: also on the first render (after signing in), not on a fresh page load, where the skip
 * link stays the first thing Tab reaches.
 */
export function useFocusOnNavigation(onMount: boolean) {
  const [location] = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: it runs on each page change (location), which it does not read
  useEffect(() => {
    const root = main.current;
    if (first.current) {
      first.current = false;
      if (!onMount) return;
    }
    if (root === null) return;
    const focusHeading = (): boolean => {
      const heading = root.querySelector('h1');
      if (heading === null) return false;
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      heading.focus();
      return true;
    };
    if (focusHeading()) return;
    const observer = new MutationObserver(() => {
      if (focusHeading()) stop();
    });
    const timer = setTimeout(() => {
      stop();
      root.focus();
    }, HEADING_WAIT_MS);
    const stop = () => {
      observer.disconnect();
      clearTimeout(timer);
    };
    observer.observe(root, { childList: true, subtree: true });
    return stop;
  }, [location, onMount]);
  return main;
}
