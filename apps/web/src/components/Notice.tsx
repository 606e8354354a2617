import type { ReactNode } from 'react';

/** A calm status box: success after a form, or information while loading. */
export function Notice({ tone = 'success', children }: { tone?: 'success' | 'info' | 'error'; children: ReactNode }) {
  return (
    <div className={`alert alert-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
