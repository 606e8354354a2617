import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RouterOutputs } from '@us/api';
import { IMPORT_LIMITS, type ImportSourceName } from '@us/shared';
import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatCount } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { SOURCES, sourceLabel } from './sources.ts';
import { uploadFile } from './uploadFile.ts';

type Made = RouterOutputs['imports']['create'];

/** One chosen file: its upload's progress, then what the API said. */
interface Upload {
  file: File;
  sent: number;
  state: 'sending' | 'stored' | 'refused';
  problem?: string;
}

/** Make an import: choose the source, upload its files (each may be sent again), then start it. */
export function NewImport({ siteId }: { siteId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refreshList = () => queryClient.invalidateQueries(trpc.imports.list.pathFilter());
  const [source, setSource] = useState<ImportSourceName>('plausible');
  const [made, setMade] = useState<Made | null>(null);
  const [uploads, setUploads] = useState<Record<string, Upload>>({});
  const create = useMutation(trpc.imports.create.mutationOptions({ onSuccess: refreshList }));
  const start = useMutation(trpc.imports.start.mutationOptions({ onSuccess: refreshList }));

  const send = async (importId: string, file: File) => {
    const set = (patch: Partial<Upload>) =>
      setUploads((all) => ({ ...all, [file.name]: { ...(all[file.name] ?? { file, sent: 0, state: 'sending' }), ...patch } }));
    set({ file, sent: 0, state: 'sending', problem: undefined });
    const outcome = await uploadFile(siteId, importId, file, (sent) => set({ sent }));
    set(outcome.ok ? { state: 'stored', sent: file.size } : { state: 'refused', problem: outcome.title });
  };

  const files = Object.values(uploads);
  const busy = files.some((u) => u.state === 'sending');
  const stored = files.filter((u) => u.state === 'stored').length;

  if (!made) {
    return (
      <Card title="New import">
        <p>
          Bring in your history from another analytics tool. Days on which this site has its own data are skipped; days an earlier
          import covered are replaced.
        </p>
        <form
          name="new-import"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ id: siteId, source }, { onSuccess: (imp) => setMade(imp) });
          }}
        >
          <fieldset className="import-sources">
            <legend>Source</legend>
            {SOURCES.map((s) => (
              <label key={s.value} className="import-source">
                <input
                  type="radio"
                  name="source"
                  value={s.value}
                  checked={source === s.value}
                  onChange={() => setSource(s.value)}
                />{' '}
                <strong>{s.label}</strong>
                <span className="muted"> — {s.files}</span>
              </label>
            ))}
          </fieldset>
          {create.error && <Notice tone="error">{toProblem(create.error).title}</Notice>}
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? 'Making the import…' : 'New import'}
          </button>
        </form>
      </Card>
    );
  }

  return (
    <Card title={`New ${sourceLabel(made.source)} import`}>
      <p>
        Choose the .csv files (at most {IMPORT_LIMITS.filesPerImport}, 200 MB each). Each is sent as soon as it is chosen; choose
        a file again to replace it. Then start the import.
      </p>
      <label className="field">
        <span className="field-label">CSV files</span>
        <input
          type="file"
          multiple
          accept=".csv,text/csv"
          onChange={(e) => {
            for (const file of Array.from(e.target.files ?? [])) void send(made.id, file);
            e.target.value = '';
          }}
        />
      </label>
      {files.length > 0 && (
        <ul className="import-uploads" aria-label="Uploaded files">
          {files.map((u) => (
            <li key={u.file.name} data-state={u.state}>
              <span className="import-upload-name">{u.file.name}</span>{' '}
              <progress
                max={Math.max(u.file.size, 1)}
                value={u.state === 'refused' ? 0 : u.sent}
                aria-label={`Upload of ${u.file.name}`}
              />{' '}
              {u.state === 'sending' && <span className="muted">sending…</span>}
              {u.state === 'stored' && <span>stored, {formatCount(u.file.size)} bytes</span>}
              {u.state === 'refused' && <span className="field-error">{u.problem}</span>}
              {u.state !== 'sending' && (
                <button
                  type="button"
                  className="button button-link"
                  aria-label={`Send ${u.file.name} again`}
                  onClick={() => void send(made.id, u.file)}
                >
                  Send again
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {start.error && <Notice tone="error">{toProblem(start.error).title}</Notice>}
      <div className="form-actions">
        <button
          type="button"
          className="button button-primary"
          disabled={busy || stored === 0 || start.isPending}
          onClick={() =>
            start.mutate(
              { id: siteId, importId: made.id },
              {
                onSuccess: () => {
                  setMade(null);
                  setUploads({});
                },
              },
            )
          }
        >
          {start.isPending ? 'Starting…' : 'Start the import'}
        </button>{' '}
        <span className="muted">
          {stored} of {files.length} files stored
        </span>
      </div>
    </Card>
  );
}
