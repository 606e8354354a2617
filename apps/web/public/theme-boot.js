// Sets <html data-theme> before the first paint, so a dark page never flashes light. A classic script of the
// dashboard's own (the CSP refuses inline scripts), loaded blocking from <head>. The same rules as
// src/theme/theme.ts, which takes over once the app runs: keep the two in step.
(() => {
  let choice = null;
  try {
    choice = localStorage.getItem('unseen-stats.theme');
  } catch {
    // Storage refused (a blocked third-party frame): follow the system.
  }
  const dark = choice === 'dark' || (choice !== 'light' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
})();
