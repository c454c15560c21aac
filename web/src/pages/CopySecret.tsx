import { useState } from 'react';

/** A secret the API shows once (a new key, a webhook's signing secret), with a Copy button. */
export function CopySecret({ value, testId }: { value: string; testId: string }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div className="pair">
      <code className="secret" data-testid={testId}>
        {value}
      </code>
      <button type="button" onClick={() => void copy()}>
        Copy
      </button>
      <span role="status" className="muted">
        {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Could not copy: select it and copy it by hand.' : ''}
      </span>
    </div>
  );
}
