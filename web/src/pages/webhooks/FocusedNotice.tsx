import { useFocusOnMount } from '../focus';

/** The result of an action in a sentence; it takes the focus when it appears (remount it, with a key, for the next one). */
export function FocusedNotice({ text }: { text: string }) {
  const note = useFocusOnMount<HTMLParagraphElement>();
  return (
    <p className="notice" ref={note} tabIndex={-1} role="status">
      {text}
    </p>
  );
}
