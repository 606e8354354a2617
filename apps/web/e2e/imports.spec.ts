import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runDueImports } from '../../api/src/features/imports/index.ts';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

const UI_TIMEOUT = 15_000;
const PLAUSIBLE = fileURLToPath(new URL('../../api/test/features/imports/fixtures/plausible/', import.meta.url));
const plausibleFiles = readdirSync(PLAUSIBLE)
  .filter((f) => f.endsWith('.csv'))
  .map((f) => path.join(PLAUSIBLE, f));

describe('imports page in a real browser', () => {
  const suite = dashboardSuite();

  it('makes a Plausible import, uploads its files (a wrong one refused, naming the column), starts it, follows it to done, and deletes it', {
    timeout: 180_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Imports workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Shop' });
    const { context, page } = await signedInPage(suite, owner.email, UI_TIMEOUT);

    await page.goto(`${t.url}/sites/${siteId}`);
    await page.getByRole('link', { name: 'Imports', exact: true }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/imports$`));
    await page.getByRole('heading', { name: 'Shop imports', level: 1 }).waitFor();
    await page.getByText('No imports yet.').waitFor();

    await page.getByLabel('Plausible CSV export').check();
    await page.getByRole('button', { name: 'New import' }).click();
    await page.getByRole('heading', { name: 'New Plausible CSV export import' }).waitFor();

    // A pages file without its pageviews column: refused beside the file, the title naming what is missing.
    const input = page.getByLabel('CSV files', { exact: true });
    await input.setInputFiles({
      name: 'imported_pages_20240101_20240102.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('date,page,visitors\n2024-01-01,/,1\n'),
    });
    const uploads = page.getByRole('list', { name: 'Uploaded files' });
    const pagesRow = uploads.getByRole('listitem').filter({ hasText: 'imported_pages_20240101_20240102.csv' });
    await expect.poll(() => pagesRow.getAttribute('data-state')).toBe('refused');
    expect(await pagesRow.textContent()).toMatch(/lacks the column pageviews/);
    await expect.poll(() => page.getByRole('button', { name: 'Start the import' }).isDisabled()).toBe(true);

    // The real files: the refused one is replaced by its good namesake.
    await input.setInputFiles(plausibleFiles);
    await expect
      .poll(() => uploads.locator('li[data-state="stored"]').count(), { timeout: UI_TIMEOUT })
      .toBe(plausibleFiles.length);
    expect(await pagesRow.textContent()).not.toMatch(/lacks/);
    await page.getByText(`${plausibleFiles.length} of ${plausibleFiles.length} files stored`).waitFor();
    expect(await uploads.getByRole('progressbar').count()).toBe(plausibleFiles.length);

    await page.getByRole('button', { name: 'Start the import' }).click();
    const imports = page.getByRole('list', { name: 'Imports' });
    const row = imports.getByRole('listitem').first();
    await expect.poll(() => row.getAttribute('data-status')).toBe('queued');

    // The imports job, run now rather than on its 10-second round; the row asks again until it is done.
    await runDueImports(t.deps.orm, { siteIds: [siteId] });
    await expect.poll(() => row.getAttribute('data-status'), { timeout: UI_TIMEOUT }).toBe('done');
    const facts = (await row.locator('.import-facts').textContent()) ?? '';
    expect(facts).toContain('2024-01-01 to 2024-01-02');
    expect(facts).toMatch(/[1-9][\d,]* read, [1-9][\d,]* stored, 0 bad/);
    expect(await row.textContent()).toContain('Plausible CSV export');
    expect(await page.getByRole('heading', { name: 'New import' }).count()).toBe(1);
    await page.screenshot({ path: '/tmp/e2e-imports.png', fullPage: true });
    expect(await accessibilityProblems(page)).toEqual([]);

    // A second import over one of those days, with a row that is no day: the day is replaced, the row named.
    await page.getByRole('button', { name: 'New import' }).click();
    await page.getByLabel('CSV files', { exact: true }).setInputFiles({
      name: 'imported_visitors_20240102_20240102.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-02,7,11,2,8,100\nyesterday,1,1,0,1,0\n',
      ),
    });
    await page.getByText('1 of 1 files stored').waitFor();
    await page.getByRole('button', { name: 'Start the import' }).click();
    await expect.poll(() => imports.getByRole('listitem').count()).toBe(2);
    const second = imports.getByRole('listitem').first();
    await expect.poll(() => second.getAttribute('data-status')).toBe('queued');
    await runDueImports(t.deps.orm, { siteIds: [siteId] });
    await expect.poll(() => second.getAttribute('data-status'), { timeout: UI_TIMEOUT }).toBe('done');
    await second.getByText('Replaced days (an earlier import had them): 1').click();
    await second.getByText('2024-01-02', { exact: true }).waitFor();
    await second.getByText('Bad rows (1)').click();
    const bad = second.getByRole('table', { name: 'Bad rows' }).locator('tbody tr');
    expect(await bad.locator('td').allTextContents()).toEqual([
      'imported_visitors_20240102_20240102.csv',
      '3',
      expect.stringMatching(/\S/),
    ]);

    // Deleting asks first, then the import and its figures are gone.
    for (const left of [1, 0]) {
      const last = imports.getByRole('listitem').first();
      await last.getByRole('button', { name: /^Delete the import of Plausible CSV export/ }).click();
      await last.getByRole('button', { name: 'Delete the import', exact: true }).click();
      if (left) await expect.poll(() => imports.getByRole('listitem').count()).toBe(left);
    }
    await page.getByText('No imports yet.').waitFor();
    await context.close();
  });
});
