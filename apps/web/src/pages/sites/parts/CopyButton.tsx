import { useEffect, useState } from 'react';

type CopyState = 'idle' | 'copied' | 'failed';

/**
 * Copies `value` to the clipboard. The visible text says whether it worked; `label` is the accessible
 * name ("Copy TXT record value") when "Copy" alone would be ambiguous.
 */
export function CopyButton({ value, label }: { value: string; label?: string }) {
  const [state, setState] = useState<CopyState>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2500);
    return () => window.clearTimeout(timer);
  }, [state]);
  const copy = () => {
    navigator.clipboard
      .writeText(value)
      .then(() => setState('copied'))
      .catch(() => setState('failed'));
  };
  return (
    <button type="button" className="button button-secondary button-small site-copy" aria-label={label} onClick={copy}>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : 'Copy'}</span>
    </button>
  );
}
