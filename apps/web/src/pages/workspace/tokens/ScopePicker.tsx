import { isReadScope, SCOPE_AREAS, SCOPES, type Scope } from '../scopes.ts';

interface ScopePickerProps {
  /** Id of the group, focused when the server names `scopes` as the problem. */
  id: string;
  selected: ReadonlySet<Scope>;
  /** The scopes the person holds: a token can be given no others. */
  allowed: readonly Scope[];
  error: string | undefined;
  onChange: (next: Set<Scope>) => void;
}

/** The token's scopes as checkboxes grouped by area, with shortcuts for common choices. */
export function ScopePicker({ id, selected, allowed, error, onChange }: ScopePickerProps) {
  const errorId = `${id}-error`;
  const may = (s: Scope) => allowed.includes(s);
  const toggle = (s: Scope, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(s);
    else next.delete(s);
    onChange(next);
  };
  const pick = (which: (s: Scope) => boolean) => onChange(new Set(SCOPES.filter((s) => may(s) && which(s))));

  return (
    <fieldset
      id={id}
      tabIndex={-1}
      className={error ? 'scope-picker field-invalid' : 'scope-picker'}
      aria-describedby={error ? errorId : undefined}
    >
      <legend>Scopes</legend>
      <div className="shortcuts">
        <span className="muted small">Choose:</span>
        <button type="button" className="button button-secondary button-small" onClick={() => pick(isReadScope)}>
          Read-only
        </button>
        <button type="button" className="button button-secondary button-small" onClick={() => pick(() => true)}>
          Everything my role allows
        </button>
        <button type="button" className="button button-link small" onClick={() => onChange(new Set())}>
          Clear
        </button>
      </div>
      <div className="scope-areas">
        {SCOPE_AREAS.map((area) => (
          <fieldset key={area.area} className="scope-area">
            <legend>{area.label}</legend>
            {area.scopes.map(({ scope, what }) => (
              <label key={scope} className={may(scope) ? 'check' : 'check check-disabled'}>
                <input
                  type="checkbox"
                  name="scopes"
                  value={scope}
                  checked={selected.has(scope)}
                  disabled={!may(scope)}
                  onChange={(e) => toggle(scope, e.target.checked)}
                />
                <span>
                  <code>{scope}</code>
                  <span className="check-note">{may(scope) ? what : `${what} (not in your role)`}</span>
                </span>
              </label>
            ))}
          </fieldset>
        ))}
      </div>
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
