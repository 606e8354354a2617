import { type FormEvent, useId } from 'react';
import { Card } from '../../../components/Card.tsx';
import { IfWritable, useReadOnly } from '../../../components/ReadOnly.tsx';
import { type Draft, emptyRule, type RuleDraft, ruleInputId, type SettingsError } from './draft.ts';
import { RuleEditor } from './RuleEditor.tsx';
import { BOT_DEFAULTS, type DryRun, MODES } from './types.ts';

interface SettingsCardProps {
  draft: Draft;
  onDraft: (change: (d: Draft) => Draft) => void;
  error: SettingsError | null;
  dirty: boolean;
  saving: boolean;
  saved: string | null;
  /** Per rule, what the dry run of exactly these edits said (null when there is none or the edits changed). */
  outcomes: DryRun['rules'] | null;
  onSave: () => void;
  onDiscard: () => void;
}

const MAX_RULES = 100;

/** Mode, the default for bots and the ordered rules, saved together (the API replaces all three). */
export function SettingsCard({ draft, onDraft, error, dirty, saving, saved, outcomes, onSave, onDiscard }: SettingsCardProps) {
  const modeId = 'protection-mode';
  const botsId = 'protection-bots';
  const rulesId = useId();
  // A role that cannot save still edits the draft: the dry run and the tried request read it.
  const readOnly = useReadOnly();
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!saving && !readOnly) onSave();
  };
  const patchRule = (key: number, patch: Partial<RuleDraft>) =>
    onDraft((d) => ({ ...d, rules: d.rules.map((r) => (r.key === key ? { ...r, ...patch } : r)) }));
  const move = (index: number, by: -1 | 1) =>
    onDraft((d) => {
      const rules = [...d.rules];
      const [rule] = rules.splice(index, 1);
      if (rule) rules.splice(index + by, 0, rule);
      return { ...d, rules };
    });
  const add = () => {
    const rule = emptyRule();
    onDraft((d) => ({ ...d, rules: [...d.rules, rule] }));
    requestAnimationFrame(() => document.getElementById(ruleInputId(rule.key, 'action'))?.focus());
  };
  const topError = (at: 'mode' | 'bots' | 'rules') => (error?.at === at ? error.message : null);

  return (
    <Card title="Protection settings">
      <form name="protection" className="protection-form" noValidate onSubmit={submit} aria-busy={saving}>
        {error?.at === 'form' && (
          <div className="alert alert-error" role="alert">
            {error.message}
          </div>
        )}
        <fieldset
          className={topError('mode') ? 'field field-invalid protection-modes' : 'field protection-modes'}
          aria-describedby={topError('mode') ? `${modeId}-error` : undefined}
        >
          <legend>Mode</legend>
          {MODES.map((m) => (
            <label key={m.value} className="check protection-mode">
              <input
                type="radio"
                name="mode"
                value={m.value}
                checked={draft.mode === m.value}
                onChange={() => onDraft((d) => ({ ...d, mode: m.value }))}
              />
              <span>
                <strong>{m.label}</strong>
                <span className="check-note">{m.text}</span>
              </span>
            </label>
          ))}
          {topError('mode') && (
            <p id={`${modeId}-error`} className="field-error">
              {topError('mode')}
            </p>
          )}
        </fieldset>

        <div className={topError('bots') ? 'field field-invalid protection-bots' : 'field protection-bots'}>
          <label htmlFor={botsId}>Default for bots</label>
          <p id={`${botsId}-hint`} className="field-hint">
            What a declared bot that no rule names gets when it cannot be verified. Verified bots are served unless a rule names
            them; a claim to be a crawler we can verify that fails verification is refused.
          </p>
          <select
            id={botsId}
            name="bots"
            value={draft.bots}
            onChange={(e) => onDraft((d) => ({ ...d, bots: e.target.value as Draft['bots'] }))}
            aria-invalid={topError('bots') ? true : undefined}
            aria-describedby={[`${botsId}-hint`, topError('bots') ? `${botsId}-error` : null].filter(Boolean).join(' ')}
          >
            {BOT_DEFAULTS.map((b) => (
              <option key={b.value} value={b.value}>
                {b.label}
              </option>
            ))}
          </select>
          {topError('bots') && (
            <p id={`${botsId}-error`} className="field-error">
              {topError('bots')}
            </p>
          )}
        </div>

        <section className="protection-rules" aria-labelledby={rulesId}>
          <h3 id={rulesId} className="site-subheading">
            Rules
          </h3>
          <p className="field-hint">
            Checked top to bottom before anything else; the first rule that matches decides. A passed check satisfies a challenge
            rule, never a deny rule. Verified search engines are out of reach of rules that match only networks, countries or
            paths.
          </p>
          {topError('rules') && (
            <p className="field-error" role="alert">
              {topError('rules')}
            </p>
          )}
          {draft.rules.length === 0 ? (
            <p className="site-none">No rules: the decision order’s own steps decide.</p>
          ) : (
            <ol className="rule-list">
              {draft.rules.map((r, i) => (
                <RuleEditor
                  key={r.key}
                  rule={r}
                  index={i}
                  count={draft.rules.length}
                  error={error?.at === 'rule' && error.key === r.key ? error : null}
                  outcome={outcomes?.[i] ?? null}
                  onChange={(patch) => patchRule(r.key, patch)}
                  onMove={(by) => move(i, by)}
                  onRemove={() => onDraft((d) => ({ ...d, rules: d.rules.filter((x) => x.key !== r.key) }))}
                />
              ))}
            </ol>
          )}
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={add}
            disabled={draft.rules.length >= MAX_RULES}
          >
            Add rule
          </button>
        </section>

        {saved && !dirty && (
          <p className="site-saved" role="status">
            {saved}
          </p>
        )}
        <div className="form-actions">
          <IfWritable>
            <button type="submit" className="button button-primary" disabled={saving}>
              {saving ? 'Saving…' : 'Save settings'}
            </button>
          </IfWritable>
          {dirty && (
            <>
              <span className="protection-dirty">Unsaved changes</span>
              <button type="button" className="button button-link" onClick={onDiscard}>
                Discard changes
              </button>
            </>
          )}
        </div>
      </form>
    </Card>
  );
}
