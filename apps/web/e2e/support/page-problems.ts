import type { BrowserContext, Page } from 'playwright-core';

/** What went wrong in a page as a person's browser saw it: console errors, uncaught errors, CSP violations. */
export interface PageProblems {
  consoleErrors: string[];
  pageErrors: string[];
  /** `directive blocked-URI (source:line)` for each securitypolicyviolation event. */
  cspViolations: string[];
}

/**
 * Starts recording every page of `context` (call before its first page opens): the browser's console
 * errors and uncaught exceptions, and each Content-Security-Policy violation as the page itself is told
 * of it (the `securitypolicyviolation` event, which also names what a blocked eval came from).
 */
export async function recordPageProblems(context: BrowserContext): Promise<PageProblems> {
  const problems: PageProblems = { consoleErrors: [], pageErrors: [], cspViolations: [] };
  await context.exposeFunction('__recordCspViolation', (line: string) => {
    problems.cspViolations.push(line);
  });
  // A string of script: the e2e project has no DOM types.
  await context.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => {
    window.__recordCspViolation(\`\${e.violatedDirective} \${e.blockedURI || '(inline)'} (\${e.sourceFile}:\${e.lineNumber})\`);
  });`);
  const watch = (page: Page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') problems.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => problems.pageErrors.push(String(e)));
  };
  context.on('page', watch);
  for (const page of context.pages()) watch(page);
  return problems;
}
