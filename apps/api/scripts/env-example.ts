// `npm run env:example`: writes `.env.example` and the settings tables of docs/configuration.md from
// apps/api/src/core/env.ts. Run it after adding or changing a setting, and commit both files.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderEnvExample, withSettingsTables } from './settings-docs.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const example = path.join(root, '.env.example');
const docs = path.join(root, 'docs/configuration.md');

writeFileSync(example, renderEnvExample());
writeFileSync(docs, withSettingsTables(readFileSync(docs, 'utf8')));
console.log(`wrote ${path.relative(root, example)} and the settings tables of ${path.relative(root, docs)}`);
