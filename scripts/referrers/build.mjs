#!/usr/bin/env node
// Builds apps/api/src/core/enrich/referrers.json from snowplow-referer-parser's `resources/referers.yml`:
// for each medium of the list (search, social, email, chatbot, paid, unknown), each family name with its
// hostnames. Entries with a path (`google.com/imgres`) are left out: the service keeps only a referrer's host.
//
//   node scripts/referrers/build.mjs <referers.yml> <commit> <commit date YYYY-MM-DD>
//
// Get the file with `git show <commit>:resources/referers.yml` in a clone of
// https://github.com/snowplow-referer-parser/referer-parser (docs/product/channels.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [file, commit, date] = process.argv.slice(2);
if (!file || !/^[0-9a-f]{40}$/.test(commit ?? '') || !/^\d{4}-\d{2}-\d{2}$/.test(date ?? '')) {
  console.error('usage: node scripts/referrers/build.mjs <referers.yml> <40-hex commit> <YYYY-MM-DD>');
  process.exit(2);
}

/** The list's media as the service names them (`chatbot` is the channel "AI assistants"). */
const MEDIUM = { search: 'search', social: 'social', email: 'email', chatbot: 'ai', paid: 'paid', unknown: 'unknown' };

/** medium → family → hosts, in the file's order. The file is a fixed three-level shape; no YAML library needed. */
const media = {};
let medium = null;
let family = null;
let inDomains = false;
const seen = new Map();
let skippedPaths = 0;
for (const [i, raw] of readFileSync(file, 'utf8').split('\n').entries()) {
  const line = raw.replace(/\s+#.*$/, '').replace(/^\s*#.*$/, '');
  if (!line.trim()) continue;
  let m = /^([a-z]+):$/.exec(line);
  if (m) {
    medium = MEDIUM[m[1]];
    if (!medium) throw new Error(`line ${i + 1}: unknown medium ${m[1]}`);
    media[medium] ??= {};
    family = null;
    continue;
  }
  m = /^ {2}(\S.*):$/.exec(line);
  if (m) {
    family = m[1].replace(/^"(.*)"$/, '$1');
    inDomains = false;
    continue;
  }
  m = /^ {4}(domains|parameters):$/.exec(line);
  if (m) {
    inDomains = m[1] === 'domains';
    continue;
  }
  m = /^ {5,6}- (.+)$/.exec(line);
  if (m && medium && family) {
    if (!inDomains) continue;
    const host = m[1].trim().toLowerCase();
    if (host.includes('/')) {
      skippedPaths++;
      continue;
    }
    // A host listed twice keeps its first entry (the file lists `unknown` first to head off false matches).
    if (seen.has(host)) continue;
    seen.set(host, `${medium}/${family}`);
    media[medium][family] ??= [];
    media[medium][family].push(host);
    continue;
  }
  throw new Error(`line ${i + 1}: not understood: ${raw}`);
}

const out = {
  about:
    'Referrer hosts by medium and family, an offline copy of snowplow-referer-parser\'s resources/referers.yml (GPL-3.0, itself based on Matomo\'s lists). Built by scripts/referrers/build.mjs; entries with a path are left out (the service keeps a referrer\'s host only); a host listed twice keeps its first entry. Medium "ai" is the list\'s "chatbot".',
  source: {
    repository: 'https://github.com/snowplow-referer-parser/referer-parser',
    file: 'resources/referers.yml',
    commit,
    date,
    licence: 'GPL-3.0',
  },
  media,
};
const target = join(dirname(fileURLToPath(import.meta.url)), '../../apps/api/src/core/enrich/referrers.json');
writeFileSync(target, `${JSON.stringify(out, null, 1)}\n`);
const counts = Object.entries(media).map(([k, v]) => `${k} ${Object.keys(v).length}`);
console.log(`${seen.size} hosts (${counts.join(', ')}); ${skippedPaths} entries with a path left out → ${target}`);
