import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Import } from '@us/shared';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatCount, formatDateTime } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC, useTRPCClient } from '../../../trpc.ts';
import { sourceLabel } from './sources.ts';

/** How often an import being read is asked for again. */
const RUNNING_EVERY_MS = 3000;
const PAGE = 10;

const STATUS: Record<Import['status'], string> = {
  awaiting_files: 'waiting for files',
  queued: 'queued',
  running: 'running',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};

const isActive = (status: Import['status']) => status === 'queued' || status === 'running';

/** The site's imports, newest first, a page at a time. */
export function ImportList({ siteId }: { siteId: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  // Pages asked for by hand: the procedure's input is strict, and the infinite helper adds a `direction` to it.
  const list = useInfiniteQuery({
    queryKey: [...trpc.imports.list.queryKey({ id: siteId, limit: PAGE }), 'pages'],
    queryFn: ({ pageParam }) =>
      client.imports.list.query({ id: siteId, limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Card title="Imports">
      {list.error && <Notice tone="error">{toProblem(list.error).title}</Notice>}
      {list.isPending && <p className="muted">Loading the imports…</p>}
      {list.data && items.length === 0 && <p className="muted">No imports yet.</p>}
      {items.length > 0 && (
        <ul className="import-list" aria-label="Imports">
          {items.map((imp) => (
            <ImportRow key={imp.id} siteId={siteId} listed={imp} />
          ))}
        </ul>
      )}
      {list.hasNextPage && (
        <button
          type="button"
          className="button button-secondary"
          disabled={list.isFetchingNextPage}
          onClick={() => list.fetchNextPage()}
        >
          {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </Card>
  );
}

/** One import; while it is queued or running it is asked for again every few seconds. */
function ImportRow({ siteId, listed }: { siteId: string; listed: Import }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const fresh = useQuery({
    ...trpc.imports.get.queryOptions({ id: siteId, importId: listed.id }),
    enabled: isActive(listed.status),
    refetchInterval: (q) => (isActive(q.state.data?.status ?? listed.status) ? RUNNING_EVERY_MS : false),
  });
  const remove = useMutation(
    trpc.imports.delete.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.imports.list.pathFilter()) }),
  );
  // The row's own answer once asked for (it is the newer), else the list's.
  const imp = fresh.data && fresh.dataUpdatedAt > 0 ? fresh.data : listed;
  const { progress } = imp;
  const title = `${sourceLabel(imp.source)}, ${formatDateTime(imp.createdAt)}`;
  return (
    <li className="import-row" aria-label={title} data-status={imp.status}>
      <div className="import-row-head">
        <strong>{sourceLabel(imp.source)}</strong>{' '}
        <span className={`import-status import-status-${imp.status}`}>{STATUS[imp.status]}</span>
        <ConfirmButton
          label="Delete"
          name={`Delete the import of ${title}`}
          question="Delete this import and every figure it brought in?"
          confirmLabel="Delete the import"
          busy={remove.isPending}
          busyLabel="Deleting…"
          onConfirm={() => remove.mutate({ id: siteId, importId: imp.id })}
        />
      </div>
      <dl className="import-facts">
        <dt>Days</dt>
        <dd>{imp.days ? `${imp.days.from} to ${imp.days.to}` : '—'}</dd>
        <dt>Rows</dt>
        <dd>
          {formatCount(progress.rowsRead)} read, {formatCount(progress.rowsStored)} stored, {formatCount(progress.badRows)} bad
        </dd>
        <dt>Created</dt>
        <dd>{formatDateTime(imp.createdAt)}</dd>
        {imp.finishedAt && (
          <>
            <dt>Finished</dt>
            <dd>{formatDateTime(imp.finishedAt)}</dd>
          </>
        )}
        {imp.files.length > 0 && (
          <>
            <dt>Files</dt>
            <dd>{imp.files.map((f) => f.name).join(', ')}</dd>
          </>
        )}
      </dl>
      {imp.error && <Notice tone="error">{imp.error}</Notice>}
      {remove.error && <Notice tone="error">{toProblem(remove.error).title}</Notice>}
      <DayList label="Skipped days (the site has its own data)" days={imp.skippedDays} />
      <DayList label="Replaced days (an earlier import had them)" days={imp.replacedDays} />
      {!isActive(imp.status) && imp.badRowSamples.length > 0 && (
        <details>
          <summary>
            Bad rows ({formatCount(progress.badRows)}
            {progress.badRows > imp.badRowSamples.length ? `, the first ${imp.badRowSamples.length} shown` : ''})
          </summary>
          <table className="import-bad-rows">
            <caption className="visually-hidden">Bad rows</caption>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Line</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {imp.badRowSamples.map((b) => (
                <tr key={`${b.file}:${b.line}`}>
                  <td>{b.file}</td>
                  <td>{b.line}</td>
                  <td>{b.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </li>
  );
}

function DayList({ label, days }: { label: string; days: string[] }) {
  if (days.length === 0) return null;
  return (
    <details>
      <summary>
        {label}: {formatCount(days.length)}
      </summary>
      <p>{days.join(', ')}</p>
    </details>
  );
}
