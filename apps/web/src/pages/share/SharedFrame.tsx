import type { ReactNode } from 'react';
import { Page } from '../../components/Page.tsx';
import { ThemeSelect } from '../../theme/ThemeSelect.tsx';

/**
 * The page around a shared dashboard: the product's name (no account, workspace or navigation: the
 * viewer may have none), the theme menu, the heading and, for the figures, the dashboard's full width.
 */
export function SharedFrame({ title, figures, children }: { title: string; figures?: boolean; children: ReactNode }) {
  return (
    <div className="shell">
      <header className="header">
        <div className="header-start">
          <a href="/" className="brand">
            <span className="brand-mark" aria-hidden="true" />
            Unseen Stats
          </a>
        </div>
        <div className="header-actions">
          <p className="header-note muted">Shared dashboard · read-only</p>
          <ThemeSelect />
        </div>
      </header>
      <main className="main">
        <Page title={title} wide={figures ? 'dash' : undefined}>
          {children}
        </Page>
      </main>
    </div>
  );
}
