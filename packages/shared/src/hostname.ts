/**
 * Normalises what a person typed as a hostname to the bare, lower-case form the service stores, or
 * says what is wrong with it in words to act on. A scheme, path, port or query is refused rather than
 * silently dropped, so nobody is surprised by what was saved.
 */
export type HostnameCheck = { ok: true; hostname: string } | { ok: false; problem: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export function normaliseHostname(input: string): HostnameCheck {
  const raw = input.trim().toLowerCase().replace(/\.$/, '');
  if (raw === '') return { ok: false, problem: 'Give a hostname such as www.example.com' };
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(raw))
    return { ok: false, problem: 'Leave out the scheme: give www.example.com, not https://www.example.com' };
  if (raw.includes('/')) return { ok: false, problem: 'Leave out the path: give the hostname only, such as www.example.com' };
  if (/[?#]/.test(raw)) return { ok: false, problem: 'Leave out the query: give the hostname only, such as www.example.com' };
  if (raw.includes(':')) return { ok: false, problem: 'Leave out the port: give the hostname only, such as www.example.com' };
  if (raw.length > 253) return { ok: false, problem: 'Use a hostname of at most 253 characters' };
  const labels = raw.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1] as string)) {
    return { ok: false, problem: 'Give a valid hostname such as www.example.com (letters, digits and hyphens between dots)' };
  }
  return { ok: true, hostname: raw };
}
