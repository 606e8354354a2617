import type { ReactNode } from 'react';
import { Layout } from '../../components/Layout.tsx';
import { Notice } from '../../components/Notice.tsx';
import { Page } from '../../components/Page.tsx';
import { useFlash } from '../../router.tsx';

/** The frame of a signed-in workspace page: the dashboard header, the page heading and any flash. */
export function WorkspaceFrame({ title, children }: { title: string; children: ReactNode }) {
  const flash = useFlash();
  return (
    <Layout>
      <Page title={title} wide>
        {flash && <Notice tone="info">{flash}</Notice>}
        {children}
      </Page>
    </Layout>
  );
}
