import { useMutation, useQueryClient } from '@tanstack/react-query';
import { SCRIPT_FEATURE_TEXT, SCRIPT_FEATURES, type ScriptFeature, type SnippetOutput } from '@us/shared';
import { type FormEvent, useState } from 'react';
import { IfWritable, useReadOnly } from '../../../components/ReadOnly.tsx';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { useRefreshSite } from '../parts/useRefreshSite.ts';

const NAMES: Record<ScriptFeature, string> = {
  events: 'Custom events',
  clicks: 'Element clicks',
  navigation: 'Single-page navigation',
};
const bytes = (n: number | null | undefined) => (n == null ? '…' : `${n.toLocaleString('en')} B`);

/**
 * The parts of the page script this site gets beside its core (pageviews, leave reports, experiments and
 * properties from the tag), each with what it adds (gzip). The snippet stays the same: its address serves
 * the site's build, which pages pick up within the hour the script is cached.
 */
export function ScriptPartsForm({ siteId, script }: { siteId: string; script: SnippetOutput['script'] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refreshSite = useRefreshSite(siteId);
  const update = useMutation(trpc.siteSettings.update.mutationOptions());
  const [chosen, setChosen] = useState<ScriptFeature[]>(script.features);
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const readOnly = useReadOnly();
  const toggle = (f: ScriptFeature, on: boolean) => {
    setChosen((list) => (on ? [...list, f] : list.filter((x) => x !== f)));
    setMessage(null);
  };

  const save = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (update.isPending) return;
    try {
      await update.mutateAsync({ id: siteId, scriptFeatures: chosen });
      await Promise.all([refreshSite(), queryClient.invalidateQueries(trpc.sites.snippet.queryFilter({ id: siteId }))]);
      setMessage({ tone: 'ok', text: 'Saved: pages get the new script within an hour, with the same snippet.' });
    } catch (err) {
      setMessage({ tone: 'error', text: toProblem(err).title });
    }
  };

  return (
    <form name="scriptFeatures" className="site-subsection" onSubmit={(e) => void save(e)} aria-labelledby="script-parts-title">
      <h3 className="site-subheading" id="script-parts-title">
        Parts of the script
      </h3>
      <p className="site-host-help">
        Every page gets the core: pageviews, time and scroll on the page, <code>data-exp</code> and <code>data-prop-…</code> (
        {bytes(script.coreGzipBytes)} gzip). Turn on only what the site uses. This site's script is now{' '}
        <strong id="script-bytes">{bytes(script.gzipBytes)}</strong> gzip.
      </p>
      <fieldset className="site-script-parts" disabled={readOnly}>
        <legend className="site-visually-hidden">Parts of the script</legend>
        {SCRIPT_FEATURES.map((f) => (
          <label key={f} className="check">
            <input type="checkbox" name={f} checked={chosen.includes(f)} onChange={(e) => toggle(f, e.target.checked)} />
            <span>
              {NAMES[f]} (+{bytes(script.featureGzipBytes[f])})<span className="check-note">{SCRIPT_FEATURE_TEXT[f]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {message && (
        <p
          className={message.tone === 'ok' ? 'site-saved' : 'alert alert-error'}
          role={message.tone === 'ok' ? 'status' : 'alert'}
        >
          {message.text}
        </p>
      )}
      <IfWritable>
        <button type="submit" className="button button-secondary button-small" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save parts'}
        </button>
      </IfWritable>
    </form>
  );
}
