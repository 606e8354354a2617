import type { ReactNode } from 'react';
import { formatCount } from '../../../lib/format.ts';
import { type RuleDraft, type RuleField, ruleInputId } from './draft.ts';
import { ACTIONS, CATEGORIES, type Category, type DryRun, KINDS } from './types.ts';

interface RuleEditorProps {
  rule: RuleDraft;
  index: number;
  count: number;
  /** The server's message for one of this rule's fields. */
  error: { field: RuleField; message: string } | null;
  /** What the last dry run said this rule would have done (only while it is the dry run of these edits). */
  outcome: DryRun['rules'][number] | null;
  onChange: (patch: Partial<RuleDraft>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}

/** The ids that describe an input: its hint and, when it is the one refused, the server's message. */
function describedBy(id: string, hint: boolean, error: boolean) {
  return [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
}

function ErrorText({ id, message }: { id: string; message: string | null }) {
  return message ? (
    <p id={`${id}-error`} className="field-error">
      {message}
    </p>
  ) : null;
}

/** A labelled control of a rule with its hint and its error. */
function RuleInput({
  rule,
  field,
  label,
  hint,
  error,
  children,
}: {
  rule: RuleDraft;
  field: RuleField;
  label: string;
  hint?: string;
  error: string | null;
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: true }) => ReactNode;
}) {
  const id = ruleInputId(rule.key, field);
  return (
    <div className={error ? 'field field-invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      )}
      {children({
        id,
        'aria-describedby': describedBy(id, Boolean(hint), Boolean(error)),
        'aria-invalid': error ? true : undefined,
      })}
      <ErrorText id={id} message={error} />
    </div>
  );
}

/** One rule of the ordered list: its action and label, what it matches, and its place in the list. */
export function RuleEditor({ rule, index, count, error, outcome, onChange, onMove, onRemove }: RuleEditorProps) {
  const n = index + 1;
  const name = rule.label.trim() ? `Rule ${n} (${rule.label.trim()})` : `Rule ${n}`;
  const errorOf = (field: RuleField) => (error?.field === field ? error.message : null);
  const matchId = ruleInputId(rule.key, 'match');
  const categoryId = ruleInputId(rule.key, 'category');
  const text = (field: 'bot' | 'asn' | 'country' | 'path', label: string, hint: string, placeholder: string) => (
    <RuleInput rule={rule} field={field} label={label} hint={hint} error={errorOf(field)}>
      {(props) => (
        <input
          {...props}
          name={field}
          value={rule[field]}
          placeholder={placeholder}
          autoCapitalize="none"
          spellCheck={false}
          onChange={(e) => onChange({ [field]: e.target.value })}
        />
      )}
    </RuleInput>
  );
  const choice = (field: 'ai' | 'kind' | 'verified', label: string, options: readonly { value: string; label: string }[]) => (
    <RuleInput rule={rule} field={field} label={label} error={errorOf(field)}>
      {(props) => (
        <select {...props} name={field} value={rule[field]} onChange={(e) => onChange({ [field]: e.target.value })}>
          <option value="">Any</option>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </RuleInput>
  );
  const toggle = (c: Category, on: boolean) =>
    onChange({
      category: on
        ? CATEGORIES.map((x) => x.value).filter((v) => v === c || rule.category.includes(v))
        : rule.category.filter((v) => v !== c),
    });

  return (
    <li className="rule" data-rule={index}>
      <fieldset className="rule-box" aria-describedby={errorOf('match') ? `${matchId}-error` : undefined}>
        <legend className="rule-legend">{name}</legend>
        <div className="rule-order">
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => onMove(-1)}
            disabled={index === 0}
            aria-label={`Move ${name} up`}
          >
            Up
          </button>
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => onMove(1)}
            disabled={index === count - 1}
            aria-label={`Move ${name} down`}
          >
            Down
          </button>
          <button type="button" className="button button-secondary button-small" onClick={onRemove} aria-label={`Remove ${name}`}>
            Remove
          </button>
        </div>
        <div className="rule-head">
          <RuleInput rule={rule} field="action" label="Action" error={errorOf('action')}>
            {(props) => (
              <select
                {...props}
                name="action"
                value={rule.action}
                onChange={(e) => onChange({ action: e.target.value as RuleDraft['action'] })}
              >
                {ACTIONS.map((a) => (
                  <option key={a.value} value={a.value}>
                    {a.label}
                  </option>
                ))}
              </select>
            )}
          </RuleInput>
          <RuleInput
            rule={rule}
            field="label"
            label="Label"
            hint={`Reasons name the rule “rule: ${rule.label.trim() || `#${n}`}”.`}
            error={errorOf('label')}
          >
            {(props) => (
              <input
                {...props}
                name="label"
                value={rule.label}
                maxLength={80}
                onChange={(e) => onChange({ label: e.target.value })}
              />
            )}
          </RuleInput>
        </div>
        <p className="rule-match-intro" id={`${matchId}-hint`}>
          Matches a request when every field filled in holds; lists are comma-separated and match any of their items.
        </p>
        <div className="rule-match">
          <fieldset
            className={errorOf('category') ? 'field field-invalid rule-categories' : 'field rule-categories'}
            aria-describedby={errorOf('category') ? `${categoryId}-error` : undefined}
          >
            <legend>Categories</legend>
            <ul className="rule-category-list">
              {CATEGORIES.map((c, i) => (
                <li key={c.value}>
                  <label className="check">
                    <input
                      type="checkbox"
                      id={i === 0 ? categoryId : undefined}
                      name="category"
                      value={c.value}
                      checked={rule.category.includes(c.value)}
                      onChange={(e) => toggle(c.value, e.target.checked)}
                    />
                    {c.label}
                  </label>
                </li>
              ))}
            </ul>
            <ErrorText id={categoryId} message={errorOf('category')} />
          </fieldset>
          {text('bot', 'Bot names', 'Such as GPTBot, Bytespider.', 'GPTBot, Bytespider')}
          {choice('ai', 'AI bots', [
            { value: 'true', label: 'AI bots only' },
            { value: 'false', label: 'Not AI bots' },
          ])}
          {choice('kind', 'Client kind', KINDS)}
          {choice('verified', 'Verified', [
            { value: 'true', label: 'Verified only' },
            { value: 'false', label: 'Not verified' },
          ])}
          {text('asn', 'Networks (AS numbers)', 'Such as 16509 or AS14061.', '16509, 14061')}
          {text('country', 'Countries', 'Two-letter codes, such as DE.', 'DE, FR')}
          {text('path', 'Paths', 'Prefixes such as /admin.', '/admin, /api')}
        </div>
        <ErrorText id={matchId} message={errorOf('match')} />
        {outcome && (
          <p className="rule-outcome" data-testid="rule-outcome">
            Dry run: first match for {formatCount(outcome.matched)} request{outcome.matched === 1 ? '' : 's'}
            {outcome.matched > 0 &&
              ` (${ACTIONS.filter((a) => outcome[a.value] > 0)
                .map((a) => `${formatCount(outcome[a.value])} ${a.done}`)
                .join(', ')})`}
            .
          </p>
        )}
      </fieldset>
    </li>
  );
}
