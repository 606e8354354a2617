import { useEffect, useRef } from 'react';
import { CopyButton } from '../parts/CopyButton.tsx';
import type { SiteKey } from '../types.ts';

/** A server secret's value, shown this once with a Copy button; dismissing it forgets the value. */
export function NewSecret({ secret, onDone }: { secret: SiteKey; onDone: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <div ref={box} className="site-secret" tabIndex={-1} role="status" aria-labelledby="site-new-secret-title">
      <p id="site-new-secret-title" className="site-secret-title">
        <strong>Your new server secret. Copy it now: it is not shown again.</strong>
      </p>
      <div className="site-secret-row">
        <code id="site-new-secret" className="site-secret-value">
          {secret.value}
        </code>
        <CopyButton value={secret.value ?? ''} label="Copy server secret" />
      </div>
      <button type="button" className="button button-link" onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}
