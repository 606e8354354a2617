// `.env.example` and the settings tables of docs/configuration.md, rendered from the settings' schema and
// help in apps/api/src/core/env.ts. `npm run env:example` writes them (env-example.ts); a test holds the
// committed files to what this renders.
import path from 'node:path';
import { z } from 'zod';
import { help, SETTING_GROUPS, SETTINGS, type SettingHelp } from '../src/core/env.ts';

export interface Setting {
  name: string;
  /** The schema's default as text, when it has one. */
  default?: string;
  /** Undefined when the setting has no help yet (a test fails on it). */
  help?: SettingHelp;
}

const OTHER = 'Other settings';

export function settings(): Setting[] {
  return SETTINGS.map(([name, schema]) => ({
    name,
    default: schema instanceof z.ZodDefault ? String(schema.def.defaultValue) : undefined,
    help: help.get(schema),
  }));
}

/** The settings by group, in `SETTING_GROUPS` order; settings without help come last, under "Other settings". */
export function grouped(all = settings()): [title: string, settings: Setting[]][] {
  const groups: [string, Setting[]][] = Object.entries(SETTING_GROUPS).map(([key, title]) => [
    title,
    all.filter((s) => s.help?.group === key),
  ]);
  groups.push([OTHER, all.filter((s) => !s.help)]);
  return groups.filter(([, members]) => members.length > 0);
}

// ---------------------------------------------------------------------------------------------------
// .env.example

/** Markdown links as plain text with the path from the repository's root (the help's links are relative to docs/). */
function plain(markdown: string): string {
  return markdown.replace(/\[([^\]]+)\]\(([^)]+)\)/g, (_, text: string, href: string) => {
    const target = href.startsWith('#') ? `docs/configuration.md${href}` : path.posix.join('docs', href);
    // A link whose text is the file itself (`infra/README.md`) needs it only once.
    return text.startsWith('`') ? `\`${target}\`` : `${text} (${target})`;
  });
}

function wrap(text: string, width = 100, prefix = '# '): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && prefix.length + line.length + 1 + word.length > width) {
      lines.push(prefix + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(prefix + line);
  return lines;
}

/** A comment's sentence: a capital first letter and a full stop. */
const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;

/** A value as a `.env` line carries it: quoted when it holds spaces, quotes or `#`. */
const dotenvValue = (v: string) => (/[\s"'#]/.test(v) ? `"${v}"` : v);

export function renderEnvExample(): string {
  const out = [
    '# Every setting of the Unseen Stats server, with its default and meaning, grouped as in docs/configuration.md.',
    '# Generated from apps/api/src/core/env.ts by `npm run env:example`: edit that file, not this one.',
    '#',
    '# Copy it to `.env` in the directory the server starts in (or name another file with ENV_FILE) and',
    '# uncomment what you change. Variables set in the environment win over the file; an empty value is unset.',
    '# Each line shows the default, or nothing where the setting is unset by default (secrets always so).',
  ];
  for (const [title, members] of grouped()) {
    out.push('', `# ── ${title} ${'─'.repeat(Math.max(3, 96 - title.length))}`);
    for (const s of members) {
      out.push('');
      out.push(...wrap(sentence(plain(s.help?.meaning ?? '(no description yet)'))));
      if (s.help?.unset) out.push(...wrap(sentence(`unset: ${plain(s.help.unset)}`)));
      const value = s.default === undefined || s.help?.secret ? '' : dotenvValue(s.default);
      out.push(`# ${s.name}=${value}`);
    }
  }
  return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------
// docs/configuration.md

export const DOCS_BEGIN = '<!-- settings tables: generated from apps/api/src/core/env.ts by `npm run env:example` -->';
export const DOCS_END = '<!-- end of the generated settings tables -->';

const cell = (markdown: string) => markdown.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderSettingsTables(): string {
  const out: string[] = [];
  for (const [title, members] of grouped()) {
    out.push(`### ${title}`, '', '| variable | default | what it does | who sets it |', '|---|---|---|---|');
    for (const s of members) {
      const byDefault = s.default !== undefined ? `\`${s.default}\`` : `unset → ${s.help?.unset ?? '?'}`;
      const meaning = s.help?.meaning ?? '(no description yet)';
      out.push(`| \`${s.name}\` | ${cell(byDefault)} | ${cell(meaning)} | ${cell(s.help?.who ?? 'operator')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** `doc` with the text between the markers replaced by the tables. */
export function withSettingsTables(doc: string): string {
  const begin = doc.indexOf(DOCS_BEGIN);
  const end = doc.indexOf(DOCS_END);
  if (begin < 0 || end < begin) throw new Error(`docs/configuration.md lacks the markers ${DOCS_BEGIN} … ${DOCS_END}`);
  return `${doc.slice(0, begin + DOCS_BEGIN.length)}\n\n${renderSettingsTables()}\n${doc.slice(end)}`;
}
