import type { ReactNode } from 'react';
import { Layout } from '../../../components/Layout.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { Page } from '../../../components/Page.tsx';
import { useFlash } from '../../../router.tsx';

/**
 * The frame of the site pages: the dashboard header, the page heading and any flash. `figures`: a page
 * of charts and tables, as wide as the dashboard from the start.
 */
export function SitesFrame({ title, figures, children }: { title: string; figures?: boolean; children: ReactNode }) {
  const flash = useFlash();
  return (
    <Layout>
      <Page title={title} wide={figures ? 'dash' : true}>
        <div className="site-pages">
          {flash && <Notice tone="info">{flash}</Notice>}
          {children}
        </div>
      </Page>
    </Layout>
  );
}
