import { SHORTCUTS } from './shortcuts.ts';

/** "Keyboard shortcuts": a disclosure listing them (the `?` key opens and closes it too). */
export function ShortcutsHelp({ open, onToggle }: { open: boolean; onToggle: (open: boolean) => void }) {
  return (
    <details className="dash-shortcuts" open={open} onToggle={(e) => onToggle(e.currentTarget.open)}>
      <summary>Keyboard shortcuts</summary>
      <dl>
        {SHORTCUTS.map((s) => (
          <div key={s.key}>
            <dt>
              <kbd>{s.key}</kbd>
            </dt>
            <dd>{s.does}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
