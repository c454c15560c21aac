import { useEffect, useRef, useState } from 'react';
import { ErrorNote } from '../parts';

/**
 * A button whose action is asked twice. The question takes the focus on its safe choice, so Enter
 * right after opening does nothing harmful; Cancel gives the focus back to the button.
 */
export function ConfirmAction({
  label,
  question,
  confirmLabel,
  pending,
  error,
  onConfirm,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  pending: boolean;
  error: Error | null;
  onConfirm: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  useEffect(() => {
    if (confirming) cancelRef.current?.focus();
    else if (wasConfirming.current) openRef.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);

  if (!confirming) {
    return (
      <button type="button" ref={openRef} onClick={() => setConfirming(true)}>
        {label}
      </button>
    );
  }
  return (
    <fieldset className="confirm">
      <legend>{question}</legend>
      <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
        {confirmLabel}
      </button>
      <button type="button" ref={cancelRef} onClick={() => setConfirming(false)}>
        Cancel
      </button>
      <ErrorNote error={error} />
    </fieldset>
  );
}
