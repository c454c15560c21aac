import { useEffect, useRef } from 'react';

/**
 * Focus for keyboard and screen-reader users after an action: the returned ref's element (a heading
 * with tabIndex -1, say) takes the focus whenever `key` changes to a defined value, so that what an
 * action brought up is where the reading continues.
 */
export function useFocusWhen<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (key !== undefined && key !== null && key !== false) ref.current?.focus();
  }, [key]);
  return ref;
}

/** The first error a failed submit put in `container`, focused (made focusable first), so it is read out where the user is. */
export function focusFirstError(container: HTMLElement | null): void {
  const error = container?.querySelector<HTMLElement>('.error');
  if (!error) return;
  error.tabIndex = -1;
  error.focus();
}
