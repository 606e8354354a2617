// User agents that are a browser's although a word of them looks like a bot's or a library's.

/**
 * The browser's own requests without a page (Safari's icons and previews, WebKit's networking process, the
 * in-app Safari view): Apple's networking framework under the browser's name, unlike an app's
 * `MyApp/1 CFNetwork/…`.
 */
export const BROWSER_OWN =
  /^(?:Mobile)?Safari\/?\d|^com\.apple\.WebKit\.Networking\/|^NetworkingExtension\/|^SafariViewService\//;

/**
 * Browsers named by a token a bot list can misread: in-app browsers and the apps people read links in
 * (WeChat's `Process/tools`, Facebook's bare `[FBAN/FB4A;…]`, `Instagram 5.0.2 (iPhone5,1; …)`, Apple News'
 * `News/582.1`), feature-phone and TV browsers (`WAP Browser/MAUI (HTTP PGDL;HTTPS)`, `UP.Browser`, `CE-HTML/1.0;`)
 * and Google's own devices and apps (`Google Nexus 4`, `Google Earth/5.2`). Link previews these apps fetch by
 * themselves carry other names (`facebookexternalhit`, `WhatsApp/2…`, `Snap URL Preview`); a string that also
 * names a crawler, a developer tool or a web address is left to the bot check.
 */
export const NAMED_BROWSER = new RegExp(
  '^(?!.*(?:bot\\b|crawl|spider|devtools|qcloudcdn|https?://)).*(?:' +
    [
      // in-app browsers
      '\\bFB(?:AN|AV|_IAB)/|\\bInstagram \\d|\\bMicroMessenger/|\\bMQQBrowser/|\\bmusical_ly|\\bBytedanceWebview|\\bLinkedInApp',
      '\\[Pinterest/|\\bPinterest for (?:Android|iOS)|\\bKAKAOTALK|\\bNAVER\\(inapp|\\bAppleNews/|\\) News/\\d',
      // feature phones and TVs
      '\\bMAUI|WAP[- ]?Browser|\\bNetFront|\\bUP\\.Browser|\\bDolfin/|\\bPOLARIS/|\\bDorado|\\bBada/|CE-HTML/|\\bREX/1|\\bwebOS/',
      // Google's devices and apps
      '\\bGoogle (?:Nexus|Earth|TV)|\\bGmmClient',
    ].join('|') +
    ')',
  'i',
);
