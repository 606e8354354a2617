import { BOT_LISTS_DATED } from '@us/protection';
import { ipDataDated } from './core/enrich/index.ts';
import { ConfigError, type Env, givenSettings, loadEnvFile, parseEnv } from './core/env.ts';
import { checkProduction } from './core/production-checks.ts';
import { type DatedData, staleDataWarnings } from './core/stale-data.ts';
import { crawlerRangesDated } from './features/protection/crawler-ranges.ts';

/**
 * What main.ts does before anything starts: the `.env` file, the settings, production's refusals (a
 * `ConfigError` listing every one) and warnings. docs/configuration.md says what each check is for.
 */
export interface Settings {
  env: Env;
  /** The `.env` file read, if any. */
  envFile?: string;
  warnings: string[];
}

export function readSettings(): Settings {
  const envFile = loadEnvFile();
  const env = parseEnv();
  const { refusals, warnings } = checkProduction(env, givenSettings());
  if (refusals.length) throw new ConfigError('Refusing to start with NODE_ENV=production:', refusals);
  return { env, envFile, warnings };
}

/** Every piece of offline data the service ships, with its date. */
export function offlineData(): DatedData[] {
  return [...ipDataDated(), crawlerRangesDated(), ...Object.values(BOT_LISTS_DATED)];
}

/** One line per piece of offline data older than 90 days. */
export const staleOfflineData = (now = new Date()) => staleDataWarnings(offlineData(), now);
