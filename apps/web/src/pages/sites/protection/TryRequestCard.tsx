import { type FormEvent, type ReactNode, useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { fieldMessage, type Problem, toProblem } from '../../../problem.ts';
import { Link } from '../../../router.tsx';
import { useTryRequest } from './data.ts';
import { ActionBadge } from './parts.tsx';
import { type BotSettings, CATEGORIES, KINDS, MODES, type TryAnswer, type TryInput } from './types.ts';

type Field = 'userAgent' | 'path' | 'country' | 'asn' | 'verified';
type Values = Record<Field, string> & { pass: boolean; use: 'saved' | 'edited' };

const EXAMPLES: { label: string; values: Partial<Values> }[] = [
  {
    label: 'Chrome on Windows',
    values: {
      userAgent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      asn: '3320',
      country: 'DE',
      verified: '',
    },
  },
  { label: 'curl from a cloud server', values: { userAgent: 'curl/8.5.0', asn: '16509', country: 'US', verified: '' } },
  {
    label: 'Googlebot, verified',
    values: {
      userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      asn: '15169',
      country: 'US',
      verified: 'true',
    },
  },
  {
    label: '“Googlebot” that failed verification',
    values: {
      userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      asn: '14061',
      country: 'NL',
      verified: 'false',
    },
  },
  {
    label: 'GPTBot',
    values: {
      userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
      asn: '8075',
      country: 'US',
      verified: '',
    },
  },
  {
    label: 'Headless Chrome on a hosting network',
    values: {
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
      asn: '24940',
      country: 'DE',
      verified: '',
    },
  },
];

const INITIAL: Values = { userAgent: '', path: '/', country: '', asn: '', verified: '', pass: false, use: 'edited' };

/** "AS16509" or "16509" as the number; anything else as typed, for the server to refuse by name. */
const asnOf = (s: string) => {
  const digits = /^(?:AS)?\s*(\d+)$/i.exec(s.trim())?.[1];
  return digits === undefined ? s.trim() : Number(digits);
};

interface TryRequestCardProps {
  siteId: string;
  /** The settings as edited on the page (its Settings tab). */
  edited: BotSettings;
  /** Where the settings are edited: the Settings tab. */
  settingsHref: string;
  /** A refusal of the edited settings (field `settings.…`), to show under its field in the editor. */
  onSettingsProblem: (p: Problem) => void;
}

/** One made-up request: the decision and its reason under the saved or edited settings, and how the client was classified. */
export function TryRequestCard({ siteId, edited, settingsHref, onSettingsProblem }: TryRequestCardProps) {
  const [values, setValues] = useState<Values>(INITIAL);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<ReactNode>(null);
  const [answer, setAnswer] = useState<TryAnswer | null>(null);
  const ask = useTryRequest();

  const set = (patch: Partial<Values>) => {
    setValues((v) => ({ ...v, ...patch }));
    setErrors((e) => {
      const next = { ...e };
      for (const k of Object.keys(patch)) delete next[k as Field];
      return next;
    });
  };

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (ask.isPending) return;
    setErrors({});
    setFormError(null);
    const input = {
      id: siteId,
      userAgent: values.userAgent,
      path: values.path.trim(),
      ...(values.country.trim() ? { country: values.country.trim() } : {}),
      ...(values.asn.trim() ? { asn: asnOf(values.asn) } : {}),
      ...(values.verified ? { verified: values.verified === 'true' } : {}),
      pass: values.pass,
      ...(values.use === 'edited' ? { settings: edited } : {}),
    } as TryInput;
    try {
      setAnswer(await ask.mutateAsync(input));
    } catch (err) {
      const p = toProblem(err);
      const field = p.field as Field | undefined;
      if (field && field in INITIAL) {
        setErrors({ [field]: fieldMessage(p) });
        requestAnimationFrame(() => document.getElementById(`try-${field}`)?.focus());
      } else if (p.field?.startsWith('settings.')) {
        setFormError(
          <>
            The edited settings are refused: fix the field marked on the <Link to={settingsHref}>Settings tab</Link>, or try the
            saved settings.
          </>,
        );
        onSettingsProblem(p);
      } else setFormError(p.title);
    }
  };

  const input = (field: Field, label: string, hint: string | null, extra: Record<string, unknown> = {}) => {
    const id = `try-${field}`;
    const error = errors[field];
    return (
      <div className={error ? 'field field-invalid' : 'field'}>
        <label htmlFor={id}>{label}</label>
        {hint && (
          <p id={`${id}-hint`} className="field-hint">
            {hint}
          </p>
        )}
        <input
          id={id}
          name={field}
          value={values[field]}
          onChange={(e) => set({ [field]: e.target.value })}
          autoCapitalize="none"
          spellCheck={false}
          aria-invalid={error ? true : undefined}
          aria-describedby={[hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined}
          {...extra}
        />
        {error && (
          <p id={`${id}-error`} className="field-error">
            {error}
          </p>
        )}
      </div>
    );
  };

  return (
    <Card title="Try a request">
      <p className="card-intro">Describe a request and see what the gate would do with it, and why.</p>
      <form name="tryRequest" className="form try-form" noValidate onSubmit={(e) => void submit(e)} aria-busy={ask.isPending}>
        {formError && (
          <div className="alert alert-error" role="alert">
            {formError}
          </div>
        )}
        <div className="field">
          <label htmlFor="try-example">Start from an example</label>
          <select
            id="try-example"
            value=""
            onChange={(e) => {
              const ex = EXAMPLES[Number(e.target.value)];
              if (ex) set(ex.values);
            }}
          >
            <option value="">Choose…</option>
            {EXAMPLES.map((ex, i) => (
              <option key={ex.label} value={i}>
                {ex.label}
              </option>
            ))}
          </select>
        </div>
        {input('userAgent', 'User agent', 'The User-Agent header as sent; leave it empty for a client that sends none.', {
          maxLength: 1024,
        })}
        <div className="site-form-row try-row">
          {input('path', 'Path', null, { placeholder: '/pricing' })}
          {input('country', 'Country', 'Two-letter code, optional.', { placeholder: 'DE', maxLength: 2 })}
          {input('asn', 'Network (AS number)', 'Optional, such as 16509.', { placeholder: '16509', inputMode: 'numeric' })}
        </div>
        <div className={errors.verified ? 'field field-invalid' : 'field'}>
          <label htmlFor="try-verified">Crawler verification</label>
          <p id="try-verified-hint" className="field-hint">
            Only matters for a declared bot.
          </p>
          <select
            id="try-verified"
            name="verified"
            value={values.verified}
            onChange={(e) => set({ verified: e.target.value })}
            aria-describedby="try-verified-hint"
          >
            <option value="">Could not be checked</option>
            <option value="true">Verified by the edge or reverse DNS</option>
            <option value="false">Failed verification</option>
          </select>
        </div>
        <label className="check">
          <input type="checkbox" name="pass" checked={values.pass} onChange={(e) => set({ pass: e.target.checked })} />
          <span>
            Carries a valid pass
            <span className="check-note">The browser passed the check page within the last day (us_pass cookie).</span>
          </span>
        </label>
        <fieldset className="field try-use">
          <legend>Decide with</legend>
          <label className="check">
            <input type="radio" name="use" checked={values.use === 'edited'} onChange={() => set({ use: 'edited' })} />
            The settings as edited on the Settings tab
          </label>
          <label className="check">
            <input type="radio" name="use" checked={values.use === 'saved'} onChange={() => set({ use: 'saved' })} />
            The saved settings
          </label>
        </fieldset>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={ask.isPending}>
            {ask.isPending ? 'Deciding…' : 'Decide'}
          </button>
        </div>
      </form>
      <div className="try-answer" role="status" aria-live="polite" data-testid="try-answer">
        {answer && <TryAnswerView answer={answer} />}
      </div>
    </Card>
  );
}

function TryAnswerView({ answer }: { answer: TryAnswer }) {
  const { decision, client, network, rule } = answer;
  const category = CATEGORIES.find((c) => c.value === client.category)?.label ?? client.category;
  const kind = KINDS.find((k) => k.value === client.kind)?.label ?? client.kind;
  const mode = MODES.find((m) => m.value === answer.mode)?.label ?? answer.mode;
  return (
    <>
      <p className="try-decision">
        <ActionBadge action={decision.action} /> <span className="try-reason">{decision.reason}</span>
      </p>
      <dl className="facts">
        <dt>Client</dt>
        <dd>
          {kind}
          {client.name ? `: ${client.name}` : ''}
          {category ? ` (${category}${client.ai ? ', AI' : ''})` : ''}
          {client.verifiable ? ' · its operator publishes how to verify it' : ''}
        </dd>
        <dt>Signs</dt>
        <dd>{decision.signals.length ? decision.signals.join(', ') : 'none'}</dd>
        <dt>Network</dt>
        <dd>
          {network
            ? `AS${network.asn}${network.name ? ` ${network.name}` : ''}${network.hosting ? ' · hosting network' : ''}`
            : 'not given'}
        </dd>
        <dt>Risk</dt>
        <dd>{decision.risk < 0 ? 'not scored (a declared bot is judged by who it is)' : `${decision.risk} of 100`}</dd>
        <dt>Decided by</dt>
        <dd>
          The {answer.settings === 'saved' ? 'saved' : 'edited'} settings in {mode} mode
          {rule ? `, rule #${rule.index + 1}${rule.label ? ` ${rule.label}` : ''}` : ''}
        </dd>
      </dl>
    </>
  );
}
