import { useCallback, useEffect, useState } from 'react';
import { Notice } from '../../components/Notice.tsx';
import { type Problem, toProblem } from '../../problem.ts';
import { usePath } from '../../router.tsx';
import { trpcClient } from '../../trpc.ts';
import { keepView, type OpenedView, openedView } from './openedViews.ts';
import { SharedFrame } from './SharedFrame.tsx';
import { SharedView } from './SharedView.tsx';
import { SharePassword } from './SharePassword.tsx';

/**
 * `/share/<token>` (and `/share/<token>/<dimension>`, a table in full): a site's dashboard, read-only, for
 * whoever holds the link. Opening it (with its password, when it has one) gives a view for 12 hours.
 */
export function SharePage() {
  const [, , token = '', dimension] = usePath().split('/');
  const [view, setView] = useState<OpenedView | null>(() => openedView(token));
  // Why there is no view: being opened (null), a password to ask for, or what the link's answer said.
  const [problem, setProblem] = useState<Problem | null>(null);

  const open = useCallback(
    async (password?: string) => {
      const opened = await trpcClient.shares.open.mutate({ token, ...(password === undefined ? {} : { password }) });
      keepView(token, opened);
      setView(opened);
    },
    [token],
  );
  useEffect(() => {
    if (!view && !problem) open().catch((err: unknown) => setProblem(toProblem(err)));
  }, [view, problem, open]);

  // The API said the view has ended (revoked, or 12 hours over): open the link again, and say why.
  const ended = useCallback(
    (title: string) => {
      keepView(token, null);
      setView(null);
      setProblem({ title, status: 401 });
      open().catch((err: unknown) => setProblem(toProblem(err)));
    },
    [token, open],
  );

  if (view) return <SharedView token={token} view={view} dimension={dimension} onEnded={ended} />;
  const protectedLink = problem?.field === 'password';
  return (
    <SharedFrame title="Shared dashboard">
      {!problem && <p className="loading">Opening the shared dashboard…</p>}
      {protectedLink && <SharePassword onSubmit={open} />}
      {problem && !protectedLink && <Notice tone="error">{problem.title}</Notice>}
    </SharedFrame>
  );
}
