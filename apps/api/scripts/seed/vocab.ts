// The vocabulary of generated traffic: weighted lists the set-based SQL of generate.ts picks from.
// Everything here is a constant of this file (never request input), inlined into SQL as literals.

/** [country, weight, language, browser time zone, three access networks [asn, organisation]] */
export const COUNTRIES: [string, number, string, string, [number, string][]][] = [
  [
    'DE',
    22,
    'de-DE',
    'Europe/Berlin',
    [
      [3320, 'Deutsche Telekom AG'],
      [3209, 'Vodafone GmbH'],
      [6805, 'Telefonica Germany GmbH & Co.OHG'],
    ],
  ],
  [
    'US',
    20,
    'en-US',
    'America/New_York',
    [
      [7922, 'Comcast Cable Communications, LLC'],
      [7018, 'AT&T Enterprises, LLC'],
      [701, 'Verizon Business'],
    ],
  ],
  [
    'GB',
    8,
    'en-GB',
    'Europe/London',
    [
      [2856, 'British Telecommunications PLC'],
      [5089, 'Virgin Media Limited'],
      [5607, 'Sky UK Limited'],
    ],
  ],
  [
    'FR',
    6,
    'fr-FR',
    'Europe/Paris',
    [
      [3215, 'Orange S.A.'],
      [12322, 'Free SAS'],
      [5410, 'Bouygues Telecom SA'],
    ],
  ],
  [
    'NL',
    4,
    'nl-NL',
    'Europe/Amsterdam',
    [
      [1136, 'KPN B.V.'],
      [33915, 'Vodafone Libertel B.V.'],
      [50266, 'Odido Netherlands B.V.'],
    ],
  ],
  [
    'AT',
    3,
    'de-AT',
    'Europe/Vienna',
    [
      [8447, 'A1 Telekom Austria AG'],
      [25255, 'Hutchison Drei Austria GmbH'],
      [8412, 'Magenta Telekom'],
    ],
  ],
  [
    'CH',
    3,
    'de-CH',
    'Europe/Zurich',
    [
      [3303, 'Swisscom (Schweiz) AG'],
      [6730, 'Sunrise GmbH'],
      [15796, 'Salt Mobile SA'],
    ],
  ],
  [
    'ES',
    3,
    'es-ES',
    'Europe/Madrid',
    [
      [3352, 'Telefonica de Espana S.A.U.'],
      [12479, 'Orange Espagne SA'],
      [12430, 'Vodafone Espana S.A.U.'],
    ],
  ],
  [
    'IT',
    3,
    'it-IT',
    'Europe/Rome',
    [
      [3269, 'Telecom Italia S.p.A.'],
      [30722, 'Vodafone Italia S.p.A.'],
      [1267, 'Wind Tre S.p.A.'],
    ],
  ],
  [
    'CA',
    3,
    'en-CA',
    'America/Toronto',
    [
      [812, 'Rogers Communications Canada Inc.'],
      [577, 'Bell Canada'],
      [852, 'TELUS Communications Inc.'],
    ],
  ],
  [
    'IN',
    3,
    'en-IN',
    'Asia/Kolkata',
    [
      [55836, 'Reliance Jio Infocomm Limited'],
      [45609, 'Bharti Airtel Ltd.'],
      [9829, 'Bharat Sanchar Nigam Ltd'],
    ],
  ],
  [
    'PL',
    2,
    'pl-PL',
    'Europe/Warsaw',
    [
      [5617, 'Orange Polska Spolka Akcyjna'],
      [12912, 'T-Mobile Polska S.A.'],
      [29314, 'Vectra S.A.'],
    ],
  ],
  [
    'SE',
    2,
    'sv-SE',
    'Europe/Stockholm',
    [
      [3301, 'Telia Company AB'],
      [1257, 'Tele2 Sverige AB'],
      [39651, 'Com Hem AB'],
    ],
  ],
  [
    'AU',
    2,
    'en-AU',
    'Australia/Sydney',
    [
      [1221, 'Telstra Limited'],
      [4804, 'Optus'],
      [7545, 'TPG Telecom Limited'],
    ],
  ],
  [
    'BR',
    2,
    'pt-BR',
    'America/Sao_Paulo',
    [
      [28573, 'Claro NXT Telecomunicacoes Ltda'],
      [18881, 'Telefonica Brasil S.A'],
      [26599, 'TIM S/A'],
    ],
  ],
  [
    'BE',
    1.5,
    'nl-BE',
    'Europe/Brussels',
    [
      [5432, 'Proximus NV'],
      [6848, 'Telenet BV'],
      [12392, 'VOO S.A.'],
    ],
  ],
  [
    'JP',
    1.5,
    'ja-JP',
    'Asia/Tokyo',
    [
      [4713, 'NTT Communications Corporation'],
      [2516, 'KDDI CORPORATION'],
      [17676, 'SoftBank Corp.'],
    ],
  ],
  [
    'DK',
    1,
    'da-DK',
    'Europe/Copenhagen',
    [
      [3292, 'TDC Holding A/S'],
      [9158, 'Telenor A/S'],
      [203953, 'Hiper A/S'],
    ],
  ],
];

/** Hosting networks: headless browsers and HTTP tools come from these. [asn, organisation, country] */
export const HOSTING: [number, string, string][] = [
  [16509, 'Amazon.com, Inc.', 'US'],
  [14061, 'DigitalOcean, LLC', 'US'],
  [24940, 'Hetzner Online GmbH', 'DE'],
  [16276, 'OVH SAS', 'FR'],
  [396982, 'Google LLC', 'US'],
  [8075, 'Microsoft Corporation', 'US'],
];

/** [device, weight, window widths] */
export const DEVICES: [string, number, number[]][] = [
  ['desktop', 50, [1280, 1366, 1440, 1536, 1600, 1680, 1920, 1920, 2560]],
  ['mobile', 43, [360, 375, 390, 393, 412, 414, 430]],
  ['tablet', 6, [768, 810, 820, 834, 1024]],
  ['other', 1, [960, 1920]],
];

/** Per device class, ten equally likely [browser, major, system, major] of its visits (the names of core/enrich/software.ts). */
export const SOFTWARE: Record<string, [string, number | null, string, number | null][]> = {
  desktop: [
    ...Array.from({ length: 4 }, () => ['Chrome', 131, 'Windows', null] as [string, number, string, null]),
    ['Edge', 131, 'Windows', null],
    ['Firefox', 133, 'Windows', null],
    ['Chrome', 131, 'macOS', null],
    ['Safari', 18, 'macOS', null],
    ['Safari', 17, 'macOS', null],
    ['Firefox', 133, 'Linux', null],
  ],
  mobile: [
    ...Array.from({ length: 3 }, () => ['Safari', 18, 'iOS', 18] as [string, number, string, number]),
    ['Safari', 17, 'iOS', 17],
    ['In-app browser', null, 'iOS', 18],
    ['Chrome', 131, 'Android', null],
    ['Chrome', 131, 'Android', null],
    ['Chrome', 130, 'Android', 14],
    ['Samsung Internet', 27, 'Android', 14],
    ['Firefox', 133, 'Android', 15],
  ],
  tablet: [
    ...Array.from({ length: 6 }, () => ['Safari', 18, 'iOS', 18] as [string, number, string, number]),
    ['Safari', 17, 'iOS', 17],
    ['Chrome', 131, 'Android', null],
    ['Chrome', 131, 'Android', null],
    ['Samsung Internet', 27, 'Android', 14],
  ],
  other: [
    ...Array.from({ length: 5 }, () => ['Other', null, 'Other', null] as [string, null, string, null]),
    ...Array.from({ length: 5 }, () => ['Chrome', 131, 'Linux', null] as [string, number, string, null]),
  ],
};

export const PRODUCTS = [
  'trail-runner-2',
  'road-racer-pro',
  'summit-hiker-gtx',
  'everyday-sneaker',
  'kids-explorer',
  'merino-running-socks',
  'ultralight-rain-jacket',
  'alpine-backpack-30l',
  'carbon-trekking-poles',
  'recovery-slides',
  'winter-trail-boot',
  'track-spike-sprint',
];

export const ARTICLES = [
  'how-to-choose-running-shoes',
  'marathon-training-plan',
  'best-hiking-trails-europe',
  'shoe-care-guide',
  'winter-running-tips',
  'what-is-heel-drop',
];

/** Landing pages of visits. [path, weight] */
export const ENTRY_PAGES: [string, number][] = [
  ['/', 26],
  ...PRODUCTS.map((p, i): [string, number] => [`/products/${p}`, 6 / (1 + i * 0.35)]),
  ['/category/running', 5],
  ['/category/hiking', 3],
  ['/category/sale', 4],
  ['/category/kids', 1.2],
  ...ARTICLES.map((a, i): [string, number] => [`/blog/${a}`, 4 / (1 + i * 0.5)]),
  ['/blog', 1],
  ['/pricing', 3],
  ['/about', 1],
  ['/stores', 1],
  ['/signup', 1],
  ['/search', 1],
  ['/shipping', 0.6],
];

/** Pages after the first of a visit. [path, weight] */
export const NEXT_PAGES: [string, number][] = [
  ['/', 8],
  ...PRODUCTS.map((p, i): [string, number] => [`/products/${p}`, 6 / (1 + i * 0.3)]),
  ['/category/running', 6],
  ['/category/hiking', 4],
  ['/category/sale', 4],
  ['/category/kids', 1.5],
  ['/cart', 10],
  ['/checkout', 4],
  ['/checkout/thanks', 1.6],
  ['/pricing', 5],
  ['/signup', 3],
  ['/account', 3],
  ['/account/orders', 1.2],
  ...ARTICLES.map((a, i): [string, number] => [`/blog/${a}`, 2 / (1 + i * 0.5)]),
  ['/faq', 2],
  ['/shipping', 2],
  ['/returns', 1.2],
  ['/search', 3],
  ['/contact', 1],
];

/** Page type from a path (what data-page-type would say), as SQL over column `path`. */
export const PAGE_TYPE_SQL = `case
  when path = '/' then 'home'
  when path like '/products/%' then 'product'
  when path like '/category/%' then 'category'
  when path like '/blog/%' then 'article'
  when path in ('/cart', '/checkout', '/checkout/thanks') then 'checkout'
  when path like '/account%' or path = '/signup' then 'account'
  else 'page' end`;

/** Where visits come from. [referrer host, utm_source, utm_medium, utm_campaign, weight] */
export type Source = [string | null, string | null, string | null, string | null, number];

export function sourcesFor(day: string, opts: { newsletterDay: boolean; spike: string | null }): Source[] {
  const month = day.slice(0, 7);
  const list: Source[] = [
    [null, null, null, null, 28],
    ['www.google.com', null, null, null, 22],
    ['www.google.de', null, null, null, 5],
    ['www.google.co.uk', null, null, null, 2],
    ['www.bing.com', null, null, null, 4],
    ['duckduckgo.com', null, null, null, 3],
    ['search.brave.com', null, null, null, 0.7],
    ['www.ecosia.org', null, null, null, 1],
    ['search.yahoo.com', null, null, null, 0.5],
    ['chatgpt.com', null, null, null, 1.2],
    ['www.perplexity.ai', null, null, null, 0.4],
    ['news.ycombinator.com', null, null, null, 0.6],
    ['www.reddit.com', null, null, null, 2.5],
    ['t.co', null, null, null, 1.2],
    ['www.facebook.com', null, null, null, 1.8],
    ['l.instagram.com', null, null, null, 1.5],
    ['www.linkedin.com', null, null, null, 0.8],
    ['www.youtube.com', null, null, null, 1],
    ['www.pinterest.com', null, null, null, 0.8],
    ['www.theguardian.com', null, null, null, 0.5],
    ['www.spiegel.de', null, null, null, 0.5],
    ['www.nytimes.com', null, null, null, 0.3],
    ['www.heise.de', null, null, null, 0.3],
    ['www.runnersworld.com', null, null, null, 0.8],
    [null, 'newsletter', 'email', `newsletter-${month}`, opts.newsletterDay ? 14 : 2],
    ['www.google.com', 'google', 'cpc', 'brand', 3],
    ['www.google.com', 'google', 'cpc', 'running-shoes', 2],
    ['www.facebook.com', 'facebook', 'paid-social', 'autumn-drop', 1.2],
    ['l.instagram.com', 'instagram', 'paid-social', 'trail-season', 0.8],
    [null, 'partner', 'affiliate', 'runclub-2026', 0.6],
  ];
  // Late November: the Black Friday preview campaign.
  if (day.slice(5) >= '11-14' && day.slice(5) <= '11-30') list.push([null, 'newsletter', 'email', 'black-friday', 9]);
  if (opts.spike) list.push([opts.spike, null, null, null, 45]);
  return list;
}

/** Local-hour weights of human traffic (a shop: evenings peak). */
export const HOURS = [
  1.2, 0.7, 0.5, 0.4, 0.4, 0.6, 1.2, 2.2, 3.4, 4.4, 5, 5.3, 5.6, 5.5, 5.3, 5.2, 5.2, 5.4, 5.9, 6.4, 6.6, 5.9, 4.2, 2.4,
];

/** Pages per visit: [pages, weight]; mean about 2.6, so about 40% of pageviews begin a visit. */
export const PAGES_PER_VISIT: [number, number][] = [
  [1, 45],
  [2, 20],
  [3, 12],
  [4, 8],
  [5, 5],
  [6, 3.5],
  [7, 2.5],
  [8, 1.5],
  [10, 1.2],
  [12, 0.8],
  [15, 0.5],
];

/** Bots that run the page script (lane bot). [bot name, category, device, weight] — null name: a headless browser. */
export const PAGE_BOTS: [string | null, string | null, string, number][] = [
  [null, null, 'desktop', 50],
  ['Googlebot', 'search-engine', 'bot', 25],
  ['Bingbot', 'search-engine', 'bot', 8],
  ['ChatGPT-User', 'ai-assistant', 'bot', 5],
  ['AhrefsBot', 'seo', 'bot', 7],
  ['Applebot', 'search-engine', 'bot', 5],
];

/**
 * Clients of server requests. [bot name, category, verifiable, asn, organisation, country, path class, weight]
 * Path class: 1 browser pages, 2 crawler (pages, robots.txt, sitemap), 3 tool (probes), 4 monitor.
 * The first entry is people's browsers; the second headless browsers on hosting networks.
 */
export type Client = [string | null, string | null, boolean, number | null, string | null, string | null, number, number];
export const CLIENTS: Client[] = [
  [null, null, false, null, null, null, 1, 52],
  [null, null, false, null, null, null, 1, 2],
  ['Googlebot', 'search-engine', true, 15169, 'Google LLC', 'US', 2, 9],
  ['Bingbot', 'search-engine', true, 8075, 'Microsoft Corporation', 'US', 2, 3.5],
  ['Applebot', 'search-engine', true, 714, 'Apple Inc.', 'US', 2, 1],
  ['YandexBot', 'search-engine', true, 13238, 'YANDEX LLC', 'RU', 2, 0.8],
  ['GPTBot', 'ai-training', true, 8075, 'Microsoft Corporation', 'US', 2, 5],
  ['ClaudeBot', 'ai-training', true, 16509, 'Amazon.com, Inc.', 'US', 2, 3.5],
  ['CCBot', 'ai-training', true, 16509, 'Amazon.com, Inc.', 'US', 2, 1.5],
  ['Bytespider', 'ai-training', false, 396986, 'Bytedance Inc.', 'SG', 2, 2.5],
  ['Meta-ExternalAgent', 'ai-training', false, 32934, 'Meta Platforms, Inc.', 'US', 2, 1.5],
  ['OAI-SearchBot', 'ai-search', true, 8075, 'Microsoft Corporation', 'US', 2, 1.2],
  ['PerplexityBot', 'ai-search', true, 16509, 'Amazon.com, Inc.', 'US', 2, 1],
  ['ChatGPT-User', 'ai-assistant', true, 8075, 'Microsoft Corporation', 'US', 1, 1.5],
  ['Claude-User', 'ai-assistant', true, 16509, 'Amazon.com, Inc.', 'US', 1, 0.5],
  ['AhrefsBot', 'seo', true, 16276, 'OVH SAS', 'FR', 2, 2.5],
  ['SemrushBot', 'seo', false, 209366, 'Semrush CY LTD', 'US', 2, 1.5],
  ['MJ12bot', 'seo', false, 16276, 'OVH SAS', 'GB', 2, 0.6],
  ['facebookexternalhit', 'preview', true, 32934, 'Meta Platforms, Inc.', 'US', 1, 1],
  ['Slackbot', 'preview', false, 16509, 'Amazon.com, Inc.', 'US', 1, 0.4],
  ['Twitterbot', 'preview', false, 13414, 'Twitter Inc.', 'US', 1, 0.4],
  ['UptimeRobot', 'monitor', true, 14061, 'DigitalOcean, LLC', 'US', 4, 1.5],
  ['python-requests', 'tool', false, 24940, 'Hetzner Online GmbH', 'DE', 3, 1.2],
  ['curl', 'tool', false, 14061, 'DigitalOcean, LLC', 'US', 3, 0.5],
  ['Go-http-client', 'tool', false, 14061, 'DigitalOcean, LLC', 'NL', 3, 0.6],
  ['archive.org_bot', 'archiver', false, 7941, 'Internet Archive', 'US', 2, 0.3],
  ['ZoominfoBot', 'other', false, 16509, 'Amazon.com, Inc.', 'US', 2, 0.5],
];

/** Paths only crawlers and tools ask for. */
export const CRAWLER_PATHS = ['/robots.txt', '/sitemap.xml', '/feed.xml', '/llms.txt'];
export const PROBE_PATHS = ['/wp-login.php', '/.env', '/xmlrpc.php', '/admin', '/.git/config', '/phpmyadmin/'];

/** [status, weight] for pages served to browsers and crawlers. */
export const STATUSES: [number, number][] = [
  [200, 88],
  [304, 5],
  [301, 1.5],
  [404, 3],
  [500, 0.4],
  [503, 0.1],
];
export const CACHE: [string, number][] = [
  ['HIT', 55],
  ['MISS', 25],
  ['DYNAMIC', 15],
  ['EXPIRED', 3],
  ['BYPASS', 2],
];
