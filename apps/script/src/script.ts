// The page script arrives with the data path (issue 4). This placeholder keeps the build pipeline honest.
(() => {
  const el = document.currentScript as HTMLScriptElement | null;
  if (!el) return;
})();
