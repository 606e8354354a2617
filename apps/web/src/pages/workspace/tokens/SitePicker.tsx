import type { SiteSummary } from '../types.ts';

interface SitePickerProps {
  id: string;
  /** The workspace's sites; null when they could not be listed. */
  sites: SiteSummary[] | null;
  /** null = every site (no restriction). */
  chosen: string[] | null;
  error: string | undefined;
  onChange: (next: string[] | null) => void;
}

/** Optional restriction of a token to some sites: "All sites" or a chosen few. */
export function SitePicker({ id, sites, chosen, error, onChange }: SitePickerProps) {
  const errorId = `${id}-error`;
  const restricted = chosen !== null;
  const toggle = (siteId: string, on: boolean) => {
    const current = chosen ?? [];
    onChange(on ? [...current, siteId] : current.filter((s) => s !== siteId));
  };

  return (
    <fieldset
      id={id}
      tabIndex={-1}
      className={error ? 'site-picker field-invalid' : 'site-picker'}
      aria-describedby={error ? errorId : undefined}
    >
      <legend>Sites</legend>
      <label className="check">
        <input type="radio" name="siteScope" checked={!restricted} onChange={() => onChange(null)} />
        <span>All sites of the workspace, including ones added later</span>
      </label>
      <label className={sites?.length ? 'check' : 'check check-disabled'}>
        <input type="radio" name="siteScope" checked={restricted} disabled={!sites?.length} onChange={() => onChange([])} />
        <span>Only the sites I choose{sites && sites.length === 0 && ' (the workspace has no sites yet)'}</span>
      </label>
      {restricted && sites && (
        <ul className="site-choices" aria-label="Sites the token may use">
          {sites.map((s) => (
            <li key={s.id}>
              <label className="check">
                <input
                  type="checkbox"
                  name="siteIds"
                  value={s.id}
                  checked={chosen.includes(s.id)}
                  onChange={(e) => toggle(s.id, e.target.checked)}
                />
                <span>
                  {s.name}
                  {s.hostnames[0] && <span className="check-note">{s.hostnames[0].hostname}</span>}
                </span>
              </label>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
