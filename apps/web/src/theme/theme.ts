/**
 * The dashboard's colour theme. A person chooses System (follow the device's light/dark setting), Light or
 * Dark; the choice is remembered in this browser's localStorage (never a cookie, never sent to the
 * server). What is shown is `<html data-theme="light|dark">`, which picks the palette in styles/base.css.
 * public/theme-boot.js applies the same rules before the first paint; `followTheme` keeps it true after.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

/** The localStorage key (also in public/theme-boot.js). */
export const THEME_KEY = 'unseen-stats.theme';

const DARK_QUERY = '(prefers-color-scheme: dark)';

/** The remembered choice; System when none is (or storage is refused). */
export function storedThemeChoice(): ThemeChoice {
  try {
    const stored = localStorage.getItem(THEME_KEY);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    return 'system';
  }
}

/** The theme a choice shows, given whether the system prefers dark. */
export function resolveTheme(choice: ThemeChoice, systemPrefersDark: boolean): Theme {
  if (choice === 'system') return systemPrefersDark ? 'dark' : 'light';
  return choice;
}

function applyTheme(choice: ThemeChoice) {
  document.documentElement.dataset.theme = resolveTheme(choice, window.matchMedia(DARK_QUERY).matches);
}

/** Remembers the choice (System forgets any) and shows it at once. */
export function chooseTheme(choice: ThemeChoice) {
  try {
    if (choice === 'system') localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, choice);
  } catch {
    // Storage refused: the choice holds for this page only.
  }
  applyTheme(choice);
}

/**
 * Shows the remembered theme and keeps following the system's setting while the choice is System, and a
 * choice made in another tab. Called once, when the app starts.
 */
export function followTheme() {
  applyTheme(storedThemeChoice());
  window.matchMedia(DARK_QUERY).addEventListener('change', () => applyTheme(storedThemeChoice()));
  window.addEventListener('storage', (event) => {
    if (event.key === THEME_KEY || event.key === null) applyTheme(storedThemeChoice());
  });
}
