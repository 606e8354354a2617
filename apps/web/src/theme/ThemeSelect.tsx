import { type ChangeEvent, useEffect, useId, useState } from 'react';
import { chooseTheme, storedThemeChoice, THEME_CHOICES, THEME_KEY, type ThemeChoice } from './theme.ts';

const LABELS: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** The header's theme menu (System · Light · Dark): shows the choice at once and remembers it in this browser. */
export function ThemeSelect() {
  const id = useId();
  const [choice, setChoice] = useState<ThemeChoice>(storedThemeChoice);

  // A choice made in another tab shows here too (theme.ts applies it to the page).
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === THEME_KEY || event.key === null) setChoice(storedThemeChoice());
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  const choose = (e: ChangeEvent<HTMLSelectElement>) => {
    const next = e.target.value as ThemeChoice;
    chooseTheme(next);
    setChoice(next);
  };

  return (
    <div className="theme-select">
      <label htmlFor={id} className="visually-hidden">
        Theme
      </label>
      <select id={id} className="select-small" value={choice} onChange={choose}>
        {THEME_CHOICES.map((c) => (
          <option key={c} value={c}>
            {LABELS[c]}
          </option>
        ))}
      </select>
    </div>
  );
}
