import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useMemo, useState } from 'react';
import { Notice } from '../../../components/Notice.tsx';
import { CannotChange, ReadOnly, useCan } from '../../../components/ReadOnly.tsx';
import { type Problem, toProblem } from '../../../problem.ts';
import { usePath } from '../../../router.tsx';
import { useTRPC } from '../../../trpc.ts';
import { SiteLinks } from '../parts/SiteLinks.tsx';
import { SiteMissing } from '../parts/SiteMissing.tsx';
import { SitesFrame } from '../parts/SitesFrame.tsx';
import { isMissingSite, siteIdOf } from '../parts/siteId.ts';
import { AiTrafficCard } from './AiTrafficCard.tsx';
import { DecisionsCard } from './DecisionsCard.tsx';
import { DryRunCard } from './DryRunCard.tsx';
import { useDryRun, useSavedSettings, useSaveSettings } from './data.ts';
import { type Draft, draftOf, ruleInputId, type SettingsError, sameSettings, settingsErrorOf, settingsOf } from './draft.ts';
import { EdgeInstallCard } from './EdgeInstallCard.tsx';
import { PassKeyCard } from './PassKeyCard.tsx';
import { ProtectionTabList, ProtectionTabPanel, type TabKey, tabHref, useProtectionTab } from './ProtectionTabs.tsx';
import { SettingsCard } from './SettingsCard.tsx';
import { SetupProblems } from './SetupProblems.tsx';
import { TryRequestCard } from './TryRequestCard.tsx';
import { type BotSettings, type DryRun, MODES } from './types.ts';

/**
 * `/sites/<id>/protection`: the site's bot protection. The setup problems above the tabs, on every tab; then
 * Settings (mode, rules, dry run, pass key, edge install), Decisions, AI traffic and Try a request, each
 * at its own address (`?tab=`).
 */
export function ProtectionPage() {
  const id = siteIdOf(usePath());
  const tab = useProtectionTab();
  const [opened, setOpened] = useState<ReadonlySet<TabKey>>(() => new Set([tab]));
  if (!opened.has(tab)) setOpened(new Set([...opened, tab]));
  const site = useQuery(useTRPC().sites.get.queryOptions({ id }));
  const saved = useSavedSettings(id);
  const [decisionDays, setDecisionDays] = useState(7);
  const [aiDays, setAiDays] = useState(30);
  const error = site.error ?? saved.error;
  const problem = error ? toProblem(error) : null;
  const name = site.data?.site.name;
  const canWrite = useCan('bot:write');
  if (isMissingSite(problem)) return <SiteMissing />;

  return (
    <SitesFrame title={name ? `${name} protection` : 'Protection'}>
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {!saved.data && !problem && <p className="loading">Loading…</p>}
      {site.data && <SiteLinks siteId={id} current="protection" />}
      {saved.data && (
        <ReadOnly when={canWrite === false}>
          <div className="site-stack protection">
            {canWrite === false && <CannotChange what="this site's protection and try changes on it" change="save them" />}
            <SetupProblems siteId={id} mode={saved.data.mode} />
            <ProtectionTabList current={tab} opened={opened} />
            <ProtectionEditor siteId={id} siteName={name ?? ''} saved={saved.data} tab={tab} opened={opened}>
              <ProtectionTabPanel tab="decisions" current={tab} opened={opened}>
                <DecisionsCard siteId={id} days={decisionDays} onDays={setDecisionDays} />
              </ProtectionTabPanel>
              <ProtectionTabPanel tab="ai-traffic" current={tab} opened={opened}>
                <AiTrafficCard siteId={id} days={aiDays} onDays={setAiDays} />
              </ProtectionTabPanel>
            </ProtectionEditor>
          </div>
        </ReadOnly>
      )}
    </SitesFrame>
  );
}

/** Moves focus to the input a refusal names. */
function focusError(e: SettingsError) {
  const id =
    e.at === 'rule' ? ruleInputId(e.key, e.field === 'match' ? 'category' : e.field) : e.at === 'bots' ? 'protection-bots' : null;
  requestAnimationFrame(() => {
    const el = id
      ? document.getElementById(id)
      : e.at === 'mode'
        ? document.querySelector<HTMLElement>('input[name="mode"]:checked')
        : null;
    el?.focus();
  });
}

/** Whether an edit touched what a refusal is about (then the refusal is cleared). */
function touches(e: SettingsError, before: Draft, after: Draft): boolean {
  if (e.at === 'mode' || e.at === 'bots') return before[e.at] !== after[e.at];
  if (e.at === 'rules') return before.rules.length !== after.rules.length;
  if (e.at !== 'rule') return false;
  const a = before.rules.find((r) => r.key === e.key);
  const b = after.rules.find((r) => r.key === e.key);
  if (!a || !b) return true;
  if (e.field === 'match') return JSON.stringify(a) !== JSON.stringify(b);
  return JSON.stringify(a[e.field]) !== JSON.stringify(b[e.field]);
}

/**
 * The edited settings, and what works on them before they are saved: the dry run (Settings tab) and "try a
 * request" (its own tab). The edits live here, above the tabs, so they are kept while another tab is shown.
 */
function ProtectionEditor({
  siteId,
  siteName,
  saved,
  tab,
  opened,
  children,
}: {
  siteId: string;
  siteName: string;
  saved: BotSettings;
  tab: TabKey;
  opened: ReadonlySet<TabKey>;
  /** The other tabs' panels, between Settings and Try a request. */
  children: ReactNode;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(saved));
  const [error, setError] = useState<SettingsError | null>(null);
  const [savedNote, setSavedNote] = useState<string | null>(null);
  const [dry, setDry] = useState<{ for: BotSettings; result: DryRun } | null>(null);
  const [dryProblem, setDryProblem] = useState<string | null>(null);
  const save = useSaveSettings(siteId);
  const dryRun = useDryRun();
  const current = useMemo(() => settingsOf(draft), [draft]);
  const savedAsEdited = useMemo(() => settingsOf(draftOf(saved)), [saved]);
  const dirty = !sameSettings(current, savedAsEdited);
  const fresh = dry !== null && sameSettings(dry.for, current);

  const onDraft = (change: (d: Draft) => Draft) => {
    const after = change(draft);
    setDraft(after);
    if (error && touches(error, draft, after)) setError(null);
  };

  /** Shows a refusal of the settings under the field it names; answers whether it named one. */
  const showProblem = (p: Problem, prefix = ''): boolean => {
    const e = settingsErrorOf(p, draft, prefix);
    setError(e);
    if (e.at !== 'form') focusError(e);
    return e.at !== 'form';
  };

  const onSave = async () => {
    setError(null);
    setSavedNote(null);
    try {
      const stored = await save.mutateAsync({ id: siteId, ...current });
      setDraft(draftOf(stored));
      const mode = MODES.find((m) => m.value === stored.mode)?.label ?? stored.mode;
      const n = stored.rules.length;
      setSavedNote(
        `Saved: ${mode} mode, ${n === 0 ? 'no rules' : n === 1 ? '1 rule' : `${n} rules`}. Edges pick it up within a minute.`,
      );
    } catch (err) {
      showProblem(toProblem(err));
    }
  };

  const onDryRun = async () => {
    setDryProblem(null);
    const sent = current;
    try {
      setDry({ for: sent, result: await dryRun.mutateAsync({ id: siteId, ...sent }) });
    } catch (err) {
      const p = toProblem(err);
      if (showProblem(p)) setDryProblem('The edited settings are refused: fix the field marked in the settings above.');
      else {
        setError(null);
        setDryProblem(p.title);
      }
    }
  };

  return (
    <>
      <ProtectionTabPanel tab="settings" current={tab} opened={opened}>
        <SettingsCard
          draft={draft}
          onDraft={onDraft}
          error={error}
          dirty={dirty}
          saving={save.isPending}
          saved={savedNote}
          outcomes={fresh ? (dry?.result.rules ?? null) : null}
          onSave={() => void onSave()}
          onDiscard={() => {
            setDraft(draftOf(saved));
            setError(null);
          }}
        />
        <DryRunCard
          result={dry?.result ?? null}
          fresh={fresh}
          running={dryRun.isPending}
          problem={dryProblem}
          onRun={() => void onDryRun()}
        />
        <PassKeyCard siteId={siteId} />
        <EdgeInstallCard siteId={siteId} siteName={siteName} />
      </ProtectionTabPanel>
      {children}
      <ProtectionTabPanel tab="try" current={tab} opened={opened}>
        <TryRequestCard
          siteId={siteId}
          edited={current}
          settingsHref={tabHref(siteId, 'settings')}
          onSettingsProblem={(p) => showProblem(p, 'settings.')}
        />
      </ProtectionTabPanel>
    </>
  );
}
