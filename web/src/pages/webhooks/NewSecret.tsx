import type { ReactNode } from 'react';
import { CopySecret } from '../CopySecret';
import { useFocusOnMount } from '../focus';

/** A signing secret, this once (after a create or a rotation), with a Copy button; it takes the focus. */
export function NewSecret({ title, secret, onDone, children }: { title: string; secret: string; onDone: () => void; children?: ReactNode }) {
  const heading = useFocusOnMount<HTMLHeadingElement>();
  return (
    <section className="new-key" aria-labelledby="new-secret-title">
      <h2 id="new-secret-title" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p>
        <strong>Copy the signing secret now: it will not be shown again.</strong> The receiver checks each delivery's <code>Promptline-Signature</code> header
        with it; a lost secret cannot be read back, only rotated.
      </p>
      <CopySecret value={secret} testId="webhook-secret" />
      {children}
      <button type="button" onClick={onDone}>
        Done: hide the secret
      </button>
    </section>
  );
}
