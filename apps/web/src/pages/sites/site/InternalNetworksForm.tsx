import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { IfWritable, useReadOnly } from '../../../components/ReadOnly.tsx';
import { fieldMessage, toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { useRefreshSite } from '../parts/useRefreshSite.ts';

interface Row {
  key: number;
  value: string;
}

const ROW_FIELD = /^internalNetworks\[(\d+)\]$/;

/**
 * The internal networks as a list of CIDRs to edit, add to and remove from; saving replaces the list.
 * A refused network is shown under its own row (the API names it `internalNetworks[i]`).
 */
export function InternalNetworksForm({ siteId, initial }: { siteId: string; initial: string[] }) {
  const refresh = useRefreshSite(siteId);
  const update = useMutation(useTRPC().siteSettings.update.mutationOptions({ onSuccess: refresh }));
  const nextKey = useRef(0);
  const toRows = (list: string[]): Row[] => list.map((value) => ({ key: nextKey.current++, value }));
  const [rows, setRows] = useState<Row[]>(() => toRows(initial));
  const [rowError, setRowError] = useState<{ key: number; message: string } | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const readOnly = useReadOnly();

  const edit = (key: number, value: string) => {
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, value } : r)));
    if (rowError?.key === key) setRowError(null);
    setSaved(null);
  };
  const add = () => {
    const row = { key: nextKey.current++, value: '' };
    setRows((rs) => [...rs, row]);
    setSaved(null);
    requestAnimationFrame(() => document.getElementById(`internal-network-${row.key}`)?.focus());
  };
  const remove = (key: number) => {
    setRows((rs) => rs.filter((r) => r.key !== key));
    if (rowError?.key === key) setRowError(null);
    setSaved(null);
  };

  const save = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (update.isPending) return;
    // Empty rows are left out; `sent[i]` is the row the API's internalNetworks[i] is about.
    const sent = rows.filter((r) => r.value.trim() !== '');
    setRowError(null);
    setFormError(null);
    setSaved(null);
    try {
      const { site } = await update.mutateAsync({ id: siteId, internalNetworks: sent.map((r) => r.value.trim()) });
      const list = site.settings.internalNetworks;
      setRows(toRows(list));
      setSaved(
        list.length === 0
          ? 'Saved: no network counts as internal.'
          : list.length === 1
            ? 'Saved: 1 network counts as internal.'
            : `Saved: ${list.length} networks count as internal.`,
      );
    } catch (err) {
      const p = toProblem(err);
      const index = p.field ? ROW_FIELD.exec(p.field)?.[1] : undefined;
      const row = index === undefined ? undefined : sent[Number(index)];
      if (row) {
        setRowError({ key: row.key, message: fieldMessage(p) });
        requestAnimationFrame(() => document.getElementById(`internal-network-${row.key}`)?.focus());
      } else setFormError(p.title);
    }
  };

  return (
    <form
      name="internalNetworks"
      className="site-subsection"
      onSubmit={(e) => void save(e)}
      noValidate
      aria-labelledby="internal-networks-title"
    >
      <h3 className="site-subheading" id="internal-networks-title">
        Internal networks
      </h3>
      <p className="site-host-help" id="internal-networks-hint">
        Networks in CIDR form, such as 203.0.113.0/24 or 2001:db8::/48. Visits from them count as internal.
      </p>
      {formError && (
        <p className="alert alert-error" role="alert">
          {formError}
        </p>
      )}
      {rows.length === 0 ? (
        <p className="site-none">No internal networks.</p>
      ) : (
        <ul className="site-networks">
          {rows.map((r, i) => {
            const id = `internal-network-${r.key}`;
            const error = rowError?.key === r.key ? rowError.message : null;
            return (
              <li key={r.key} className={error ? 'field field-invalid site-network' : 'field site-network'}>
                <label htmlFor={id} className="site-visually-hidden">
                  Network {i + 1}
                </label>
                <span className="site-network-row">
                  <input
                    id={id}
                    name="internalNetworks"
                    value={r.value}
                    onChange={(e) => edit(r.key, e.target.value)}
                    readOnly={readOnly}
                    placeholder="203.0.113.0/24"
                    autoCapitalize="none"
                    spellCheck={false}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? `${id}-error` : 'internal-networks-hint'}
                  />
                  <IfWritable>
                    <button
                      type="button"
                      className="button button-secondary button-small"
                      onClick={() => remove(r.key)}
                      aria-label={`Remove network ${i + 1}${r.value ? ` (${r.value})` : ''}`}
                    >
                      Remove
                    </button>
                  </IfWritable>
                </span>
                {error && (
                  <p id={`${id}-error`} className="field-error">
                    {error}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {saved && (
        <p className="site-saved" role="status">
          {saved}
        </p>
      )}
      <IfWritable>
        <div className="form-actions">
          <button type="button" className="button button-secondary button-small" onClick={add}>
            Add network
          </button>
          <button type="submit" className="button button-primary button-small" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save networks'}
          </button>
        </div>
      </IfWritable>
    </form>
  );
}
