import { type ReactNode, useEffect } from 'react';
import { Layout } from '../../../components/Layout.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { Page } from '../../../components/Page.tsx';
import type { Problem } from '../../../problem.ts';
import { navigate, useFlash } from '../../../router.tsx';

/**
 * The frame of the site pages: the dashboard header, the page heading and any flash. A 401 from the
 * page's first load means the session is gone: on to sign-in, saying why.
 */
export function SitesFrame({ title, problem, children }: { title: string; problem: Problem | null; children: ReactNode }) {
  const flash = useFlash();
  const signedOut = problem?.status === 401;
  useEffect(() => {
    if (signedOut) navigate('/login', { replace: true, flash: problem?.title });
  }, [signedOut, problem?.title]);
  if (signedOut) return null;
  return (
    <Layout>
      <Page title={title} wide>
        <div className="site-pages">
          {flash && <Notice tone="info">{flash}</Notice>}
          {children}
        </div>
      </Page>
    </Layout>
  );
}
