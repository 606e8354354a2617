/**
 * The page script's tag as it sends it (`pd`: the script tag's dataset, data-* attributes named the browser's
 * way): the collector, not the script, reads its A/B exposures and custom properties, which keeps the script
 * within its size budget (apps/script/build.mjs). Any shape is accepted; what does not fit is skipped.
 */

import { MAX_EXPOSURES } from './intake.ts';

const EXPERIMENT_KEY = /^[a-z0-9_-]{1,64}$/;
/** `data-prop-plan` is `propPlan` in a dataset, `data-prop-team-size` is `propTeamSize`. */
const PROPERTY_NAME = /^prop([A-Z0-9].*)$/;

const textOf = (v: unknown) => (typeof v === 'string' ? v : null);

/**
 * `data-exp="pricing:b,hero:control"` as experiment key → variant (as the script once parsed it): keys of
 * `[a-z0-9_-]{1,64}`, variants of 1-64 characters, each part trimmed; other pairs skipped; at most 20.
 */
export function exposuresOfTag(exp: string): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const pair of exp.slice(0, 4096).split(',')) {
    const [key = '', variant = ''] = pair.split(':').map((part) => part.trim());
    if (!EXPERIMENT_KEY.test(key) || !variant || variant.length > 64) continue;
    out = out ?? {};
    if (Object.keys(out).length < MAX_EXPOSURES) out[key] = variant;
  }
  return out;
}

/** The tag's `data-prop-<key>` attributes as properties: `propPlan` → `plan`, `propTeamSize` → `teamSize`. */
export function propertiesOfTag(data: Record<string, unknown>): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(data)) {
    const m = PROPERTY_NAME.exec(name);
    if (!m) continue;
    const key = m[1] as string;
    out = out ?? {};
    out[key.charAt(0).toLowerCase() + key.slice(1)] = value;
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A pageview's properties to clean: those of the tag (`pd`), and those sent as `pr` over them. */
export function pageviewProperties(pr: unknown, tagProps: Record<string, unknown> | undefined): unknown {
  if (pr === undefined) return tagProps;
  return tagProps && isObject(pr) ? { ...tagProps, ...pr } : pr;
}

/** What a pageview's `pd` adds: its exposures (`exp`) and custom properties (`prop*`). */
export function pageDataOf(pd: unknown): { exposures?: Record<string, string>; props?: Record<string, unknown> } {
  if (!isObject(pd)) return {};
  const data = pd;
  const exp = textOf(data.exp);
  return { exposures: exp ? exposuresOfTag(exp) : undefined, props: propertiesOfTag(data) };
}
