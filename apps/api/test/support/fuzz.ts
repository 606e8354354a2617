/**
 * Building blocks of the OpenAPI-driven fuzz test: a seeded random source, values generated from JSON
 * Schemas by json-schema-faker, hostile values and mutations, request encoding that survives lone
 * surrogates, and the judge of every answer (spec §7: never a 5xx; every non-2xx is problem+json).
 */
import { generateSync, type JsonSchema } from 'json-schema-faker';
import { STACK_OR_SQL } from './auth-helpers.ts';

export type Js = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------
// Random source

/** Mulberry32: small, fast and reproducible from a 32-bit seed. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let x = this.state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  }
  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  seed(): number {
    return this.int(2 ** 31);
  }
}

/** A stable 32-bit hash of a text (FNV-1a), to derive one operation's seed from the run's seed. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// ---------------------------------------------------------------------------------------------------
// Generation from a schema

/** A value the schema accepts, from json-schema-faker with a seed of `rng`; `undefined` when it cannot make one. */
export function fromSchema(schema: Js, rng: Rng): unknown {
  try {
    return generateSync(schema as JsonSchema, {
      seed: rng.seed(),
      optionalsProbability: rng.pick([0.2, 0.5, 0.9]),
      maxDefaultItems: 3,
      maxDepth: 6,
    });
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------
// Hostile values

const deepArray = (n: number): unknown => {
  let v: unknown = [];
  for (let i = 0; i < n; i++) v = [v];
  return v;
};

/** Strings that break naive code: sizes, encodings, directions, surrogates, escapes, dates, networks. */
export const NASTY_STRINGS: readonly string[] = [
  'x'.repeat(10_000),
  '😀'.repeat(3_000),
  '\u202Eevil\u202C.example',
  '\u200F\u05D0\u05D1\u05D2',
  'مرحبا',
  '\uD800',
  'a\uDFFFb',
  '\uDBFF\uDBFF',
  '\u0000',
  'a\u0000b',
  '\u001B[31m',
  '\uFEFF',
  '\u2028\u2029',
  '\u00A0',
  '',
  ' ',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '-0',
  '0x1F',
  '9'.repeat(400),
  "' OR '1'='1",
  '%',
  '_%_',
  '\\',
  '"',
  '../../etc/passwd',
  '%00',
  '%E0%A4%A',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal template injection attempt
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  'toString',
  '0000-00-00',
  '2024-02-30',
  '9999-12-31',
  '0001-01-01',
  '1970-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '2026-13-45T25:61:61Z',
  'Etc/GMT+14',
  'Europe/Nowhere',
  '::',
  '0.0.0.0/0',
  '::/0',
  '999.999.999.999/99',
  '10.0.0.0/-1',
  'fe80::1%eth0/64',
  '::ffff:10.0.0.1/128',
  'xn--',
  `${'a'.repeat(64)}.example.com`,
  `${'a.'.repeat(200)}com`,
  '.',
  '-.example.com',
  'localhost',
  '127.0.0.1',
  '[::1]',
  'ß.example',
  'ＡＢＣ.example',
  '/*',
  '*',
  'a'.repeat(81),
  'a'.repeat(256),
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];

/** Any JSON value that breaks naive code: wrong types, huge and negative numbers, deep nesting. */
export function nastyValue(rng: Rng): unknown {
  const numbers = [1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -1, 0, -2147483649, 2147483648, 1.5, -0.000001, 3661, 1e21];
  const others: unknown[] = [
    true,
    false,
    null,
    [],
    {},
    [null],
    [1, 2, 3],
    { a: 1 },
    [[[]]],
    deepArray(3_000),
    ['x'.repeat(10_000)],
  ];
  const r = rng.next();
  if (r < 0.6) return rng.pick(NASTY_STRINGS);
  if (r < 0.85) return rng.pick(numbers);
  return rng.pick(others);
}

/** Field names a request must refuse as extra fields. */
const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'id',
  'workspaceId',
  'role',
  'admin',
  '',
  ' ',
  'a'.repeat(300),
  '😀',
  'x\uD800',
];

// ---------------------------------------------------------------------------------------------------
// Mutations of a JSON value

type Path = (string | number)[];

/** Every path into a value (containers included), so a mutation can aim anywhere. */
export function pathsOf(value: unknown, path: Path = [], out: Path[] = [], depth = 0): Path[] {
  if (depth > 6) return out;
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push([...path, i]);
      pathsOf(v, [...path, i], out, depth + 1);
    });
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push([...path, k]);
      pathsOf(v, [...path, k], out, depth + 1);
    }
  }
  return out;
}

function setOwn(target: Record<string | number, unknown>, key: string | number, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
}

function parentOf(root: unknown, path: Path): Record<string | number, unknown> | undefined {
  let node = root as Record<string | number, unknown> | undefined;
  for (const part of path.slice(0, -1)) {
    node = node?.[part] as Record<string | number, unknown> | undefined;
    if (!node || typeof node !== 'object') return undefined;
  }
  return node;
}

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** One mutation of an object: a hostile value somewhere, a field dropped, or an extra field. Returns its name. */
export function mutateObject(value: Record<string, unknown>, schema: Js | undefined, rng: Rng): { value: unknown; what: string } {
  const v = clone(value);
  const paths = pathsOf(v);
  // Declared fields the generated value left out: a hostile value there reaches their checks too.
  const declared = Object.keys((schema?.properties ?? {}) as Js).filter((k) => !(k in v));
  const r = rng.next();
  if (r < 0.55 && (paths.length || declared.length)) {
    const usePath = paths.length && (!declared.length || rng.chance(0.75));
    const path: Path = usePath ? rng.pick(paths) : [rng.pick(declared)];
    const parent = parentOf(v, path);
    if (parent) {
      const nasty = nastyValue(rng);
      setOwn(parent, path[path.length - 1] as string | number, nasty);
      return { value: v, what: `set ${path.join('.')}` };
    }
  }
  if (r < 0.75 && paths.length) {
    const path = rng.pick(paths);
    const parent = parentOf(v, path);
    const key = path[path.length - 1] as string | number;
    if (parent) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      return { value: v, what: `drop ${path.join('.')}` };
    }
  }
  if (r < 0.9) {
    const containers = [
      [] as Path,
      ...paths.filter((p) => {
        const node = p.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)?.[k], v);
        return node !== null && typeof node === 'object' && !Array.isArray(node);
      }),
    ];
    const at = rng.pick(containers);
    const node = at.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)[k], v) as Record<string, unknown>;
    const key = rng.pick(EXTRA_KEYS);
    setOwn(node, key, nastyValue(rng));
    return { value: v, what: `extra ${[...at, key].join('.')}` };
  }
  // The whole value of the wrong type.
  return { value: nastyValue(rng), what: 'replace body' };
}

/** Texts sent as a JSON body that is not a usable object. */
export const RAW_BODIES: readonly string[] = [
  '{',
  '{"a":',
  '[]',
  'null',
  '"text"',
  '42',
  'true',
  '{"a":1,"a":2}',
  `{"x":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
  '\uFEFF{}',
  '{}garbage',
  'NaN',
];

// ---------------------------------------------------------------------------------------------------
// Encoding

/** Percent-encodes a text for a URL; a lone surrogate becomes the bytes of its (invalid) UTF-8 form. */
export function encodePart(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += `%${(0xe0 | (code >> 12)).toString(16).toUpperCase()}%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`;
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/** A query-string value for a generated value (arrays as repeated keys, objects as JSON). */
export function queryValues(value: unknown, depth = 0): string[] {
  if (Array.isArray(value) && depth === 0) return value.flatMap((v) => queryValues(v, 1));
  if (value === null || value === undefined) return [''];
  if (typeof value === 'object') return [JSON.stringify(value)];
  return [String(value)];
}

// ---------------------------------------------------------------------------------------------------
// Judging an answer

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Internals a problem body must not name (an answer with data may legitimately carry such words). */
const INTERNALS = [/postgres|mikro-?orm|zod|TypeError|ReferenceError|RangeError|Cannot read propert/i];

/**
 * What is wrong with an answer under spec §7, or undefined when it is a good answer. `sent`: the request's
 * text, whose own words a problem may echo (a random name holding "zod" named back in the title is no leak).
 */
export function judge(answer: Answer, sent = ''): string | undefined {
  const { status, contentType, text } = answer;
  if (status >= 500) return `${status} answer`;
  for (const leak of STACK_OR_SQL) if (leak.test(text)) return `leaks ${leak}`;
  if (status < 300) return undefined;
  if (!/^application\/problem\+json/.test(contentType)) return `non-2xx ${status} with content type "${contentType}"`;
  let body: { title?: unknown; status?: unknown; field?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    return `non-2xx ${status} whose body is not JSON`;
  }
  if (typeof body.title !== 'string' || !body.title.trim()) return `problem ${status} without a title`;
  if (body.status !== status) return `problem status ${String(body.status)} differs from HTTP ${status}`;
  if (status === 400 && (typeof body.field !== 'string' || !body.field)) return 'problem 400 without a field';
  const echoes = sent.toLowerCase();
  for (const leak of INTERNALS) {
    const named = [...text.matchAll(new RegExp(leak.source, 'gi'))].map((m) => m[0].toLowerCase());
    if (named.some((word) => !echoes.includes(word))) return `problem names internals (${leak})`;
  }
  return undefined;
}
