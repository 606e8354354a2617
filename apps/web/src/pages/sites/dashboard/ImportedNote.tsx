import type { ImportedMeta } from '@us/shared';

const SOURCE_NAMES: Record<string, string> = { plausible: 'Plausible', umami: 'Umami', ga4: 'Google Analytics 4' };

/** Under the chart when the period has days of imported history: whether they are in the figures shown. */
export function ImportedNote({ imported }: { imported: ImportedMeta | undefined }) {
  if (!imported) return null;
  const from = imported.sources.map((s) => SOURCE_NAMES[s] ?? s).join(', ');
  const days = `${imported.days} day${imported.days === 1 ? '' : 's'}`;
  return (
    <p className="muted dash-imported-note" role="note">
      {imported.included
        ? `Includes history imported from ${from} on ${days} of this period.`
        : `${days} of this period have history imported from ${from}, left out here: this view needs figures an import does not keep.`}
    </p>
  );
}
