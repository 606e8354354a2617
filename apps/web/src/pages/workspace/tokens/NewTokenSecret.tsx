import { useEffect, useRef, useState } from 'react';
import type { CreatedToken } from '../types.ts';
import { ConnectSnippets } from './ConnectSnippets.tsx';

type CopyState = 'idle' | 'copied' | 'failed';

/**
 * The new token's secret, shown this once with a Copy button and the snippets that use it (MCP clients,
 * curl); dismissing it forgets the secret.
 */
export function NewTokenSecret({ token, onDismiss }: { token: CreatedToken; onDismiss: () => void }) {
  const [copy, setCopy] = useState<CopyState>('idle');
  const box = useRef<HTMLElement>(null);

  useEffect(() => {
    box.current?.focus();
    box.current?.scrollIntoView({ block: 'nearest' });
  }, []);

  const copySecret = () => {
    navigator.clipboard
      .writeText(token.token)
      .then(() => setCopy('copied'))
      .catch(() => setCopy('failed'));
  };

  return (
    <section ref={box} className="secret-box" tabIndex={-1} aria-labelledby="new-token-heading">
      <h2 id="new-token-heading">Your new token “{token.name}”</h2>
      <p className="secret-warning">
        <strong>Copy it now: you won’t see it again.</strong> Only its first characters are kept, to tell it apart in the list. If
        you lose it, revoke it and create another.
      </p>
      <div className="secret-row">
        <code id="new-token-secret" className="secret secret-large">
          {token.token}
        </code>
        <button type="button" className="button button-primary" onClick={copySecret}>
          {copy === 'copied' ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p className="copy-status" role="status">
        {copy === 'copied' && 'The token is on your clipboard.'}
        {copy === 'failed' && 'This browser did not allow copying: select the token and copy it by hand.'}
      </p>
      <ConnectSnippets token={token.token} />
      <button type="button" className="button button-secondary" onClick={onDismiss}>
        I have stored it: hide the token
      </button>
    </section>
  );
}
