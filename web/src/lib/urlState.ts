import { useLocation, useSearch } from 'wouter';

/**
 * A list's filter kept in the URL's query string (`?q=…`), so a reload, the back button or a link
 * shared to someone else shows the same list. Typing replaces the history entry rather than adding
 * one per keystroke. '' removes the parameter.
 */
export function useSearchParam(name: string): [string, (value: string) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const value = new URLSearchParams(search).get(name) ?? '';
  const set = (next: string) => {
    const params = new URLSearchParams(search);
    if (next === '') params.delete(name);
    else params.set(name, next);
    const qs = params.toString();
    navigate(qs === '' ? location : `${location}?${qs}`, { replace: true });
  };
  return [value, set];
}
