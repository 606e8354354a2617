// Accessibility checks in a real browser: axe-core (Deque's rules engine) run on the page shown.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * The serious and critical problems axe finds on the page, one line each (rule, what to fix, where), once
 * nothing on it is loading: figures being fetched are drawn dimmed (their contrast is not the page's).
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await expect.poll(() => page.locator('[aria-busy="true"], .loading').count(), { timeout: 30_000 }).toBe(0);
  // Evaluated by the browser's devtools protocol rather than added as an inline <script>: the dashboard's
  // CSP refuses inline scripts, and that is no reason to weaken it for the checker.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (o: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run({ resultTypes: ['violations'] });
    return result.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id}: ${v.help} (${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join('; ')})`,
    );
}
