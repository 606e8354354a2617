import { useEffect, useRef } from 'react';
import type { Choices } from './choices.ts';
import { stepChoices } from './PeriodStepper.tsx';

/** The dashboard's keys, as Plausible has them; the help lists them in this order. */
export const SHORTCUTS = [
  { key: 'T', does: 'Today' },
  { key: 'Y', does: 'Yesterday' },
  { key: 'W', does: 'Last 7 days' },
  { key: 'M', does: 'Last 30 days' },
  { key: '←', does: 'Previous period' },
  { key: '→', does: 'Next period' },
  { key: 'C', does: 'Compare on or off' },
  { key: 'Escape', does: 'Clear filters' },
  { key: '?', does: 'Show or hide these shortcuts' },
] as const;

/** Typing somewhere (a field, a list, an editable text, a tab list's own arrow keys): keys are not shortcuts there. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.closest('input, select, textarea, [role="tablist"]')) return true;
  return false;
}

/** What a key does to the choices, or null when it is no shortcut. */
export function shortcutPatch(key: string, choices: Choices): Partial<Choices> | null {
  switch (key) {
    case 't':
    case 'T':
      return { range: 'today' };
    case 'y':
    case 'Y':
      return { range: 'yesterday' };
    case 'w':
    case 'W':
      return { range: '7d' };
    case 'm':
    case 'M':
      return { range: '30d' };
    case 'ArrowLeft':
      return stepChoices(choices, -1);
    case 'ArrowRight':
      return stepChoices(choices, 1);
    case 'c':
    case 'C':
      return { compare: !choices.compare };
    case 'Escape':
      return Object.keys(choices.filters).length ? { filters: {} } : null;
    default:
      return null;
  }
}

/** Listens for the shortcuts on the page while it is shown; `onHelp` for `?`. */
export function useShortcuts(choices: Choices, onChange: (patch: Partial<Choices>) => void, onHelp: () => void): void {
  // The listener stays the same; it reads the latest choices.
  const latest = useRef({ choices, onChange, onHelp });
  latest.current = { choices, onChange, onHelp };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      if (e.key === '?') {
        latest.current.onHelp();
        return;
      }
      const patch = shortcutPatch(e.key, latest.current.choices);
      if (!patch) return;
      e.preventDefault();
      latest.current.onChange(patch);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
