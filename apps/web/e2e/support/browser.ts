import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium with the flags this closed network needs (no background calls home). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

const DIST_INDEX = path.resolve(import.meta.dirname, '../../dist/index.html');

/** The browser tests load the built dashboard the API serves; say how to build it when it is missing. */
export function requireBuiltDashboard() {
  if (!existsSync(DIST_INDEX)) {
    throw new Error(`The dashboard is not built (${DIST_INDEX} is missing): run \`npm run build -w @us/web\` first`);
  }
}
