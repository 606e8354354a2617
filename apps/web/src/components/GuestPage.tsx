import type { ReactNode } from 'react';
import { useFlash } from '../router.tsx';
import { GuestActions, Layout } from './Layout.tsx';
import { Notice } from './Notice.tsx';
import { Page } from './Page.tsx';

/** A page for people who are not signed in: sign-in links in the header, one narrow column. */
export function GuestPage({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  const flash = useFlash();
  return (
    <Layout actions={<GuestActions />}>
      <Page title={title}>
        {flash && <Notice tone="info">{flash}</Notice>}
        {intro && <p className="lead">{intro}</p>}
        {children}
      </Page>
    </Layout>
  );
}
