import type { BotCategory } from '@us/shared/bot-vocabulary';

/** A pattern, the name it stands for, its category and whether its operator lets us verify it. */
export type Known = [RegExp, string, BotCategory, boolean];

/**
 * Well-known bots and client software; the first match wins, so the more specific names come first.
 * Other AI agents are named in `ai-agents.ts`; everything else that declares itself a bot is found by
 * `isbot` and named from the crawler-user-agents list.
 */
export const KNOWN: Known[] = [
  // AI assistants acting for one user (fetches triggered by a person's question).
  [/ChatGPT-User/i, 'ChatGPT-User', 'ai-assistant', true],
  [/Claude-User/i, 'Claude-User', 'ai-assistant', true],
  [/Perplexity-User/i, 'Perplexity-User', 'ai-assistant', true],
  [/MistralAI-User/i, 'MistralAI-User', 'ai-assistant', false],
  [/Meta-ExternalFetcher/i, 'Meta-ExternalFetcher', 'ai-assistant', false],
  [/DuckAssistBot/i, 'DuckAssistBot', 'ai-assistant', true],
  [/GoogleAgent-Mariner|Google-Agent/i, 'Google-Agent', 'ai-assistant', true],
  [/Manus-User/i, 'Manus-User', 'ai-assistant', false],
  [/AmazonBuyForMe|Amazon-Bedrock-AgentCore/i, 'Amazon-Agent', 'ai-assistant', false],
  // AI search indexes.
  [/OAI-SearchBot/i, 'OAI-SearchBot', 'ai-search', true],
  [/Claude-SearchBot/i, 'Claude-SearchBot', 'ai-search', true],
  [/PerplexityBot/i, 'PerplexityBot', 'ai-search', true],
  [/YouBot/i, 'YouBot', 'ai-search', false],
  // AI training crawlers.
  [/GPTBot/i, 'GPTBot', 'ai-training', true],
  [/ClaudeBot/i, 'ClaudeBot', 'ai-training', true],
  [/anthropic-ai|Claude-Web/i, 'anthropic-ai', 'ai-training', false],
  [/CCBot/i, 'CCBot', 'ai-training', true],
  [/Google-Extended/i, 'Google-Extended', 'ai-training', true],
  [/Applebot-Extended/i, 'Applebot-Extended', 'ai-training', true],
  [/Bytespider/i, 'Bytespider', 'ai-training', false],
  [/Meta-ExternalAgent/i, 'Meta-ExternalAgent', 'ai-training', false],
  [/Amazonbot/i, 'Amazonbot', 'ai-training', true],
  [/cohere-training/i, 'cohere-training-data-crawler', 'ai-training', false],
  [/Diffbot/i, 'Diffbot', 'ai-training', false],
  [/AI2Bot(?!-DeepResearch)/i, 'AI2Bot', 'ai-training', false],
  [/Omgili/i, 'Omgilibot', 'ai-training', false],
  [/img2dataset/i, 'img2dataset', 'ai-training', false],
  [/PanguBot/i, 'PanguBot', 'ai-training', false],
  [/Timpibot/i, 'Timpibot', 'ai-training', false],
  [/ImagesiftBot/i, 'ImagesiftBot', 'ai-training', false],
  // Google's generic crawler: "one-off crawls for internal research and development", not Search.
  [/GoogleOther/i, 'GoogleOther', 'ai-training', true],
  // Search engines.
  // Google's user-triggered fetchers (Google publishes their address lists; never Search crawlers).
  [/Feedfetcher-Google/i, 'FeedFetcher-Google', 'other', true],
  [/Google-Read-Aloud/i, 'Google-Read-Aloud', 'other', true],
  [/Google-Site-Verification/i, 'Google-Site-Verification', 'tool', true],
  [/Google-InspectionTool/i, 'Google-InspectionTool', 'search-engine', true],
  [/Googlebot/i, 'Googlebot', 'search-engine', true],
  [/Storebot-Google|AdsBot-Google|Mediapartners-Google/i, 'Google', 'search-engine', true],
  [/bingbot/i, 'Bingbot', 'search-engine', true],
  [/BingPreview/i, 'BingPreview', 'preview', true],
  [/adidxbot|msnbot/i, 'Bingbot', 'search-engine', true],
  [/Applebot/i, 'Applebot', 'search-engine', true],
  [/DuckDuckBot/i, 'DuckDuckBot', 'search-engine', true],
  [/Yandex(?:Bot|Mobile|Images|Accessibility|RenderResources)/i, 'YandexBot', 'search-engine', true],
  [/Baiduspider/i, 'Baiduspider', 'search-engine', true],
  [/Slurp/i, 'Yahoo! Slurp', 'search-engine', true],
  [/SeznamBot/i, 'SeznamBot', 'search-engine', true],
  [/Qwantbot|Qwantify/i, 'Qwantbot', 'search-engine', false],
  [/PetalBot/i, 'PetalBot', 'search-engine', true],
  // Sogou's spiders, not its mobile browser (`SogouMobileBrowser`).
  [/Sogou[\w -]*spider|Sogou Orion/i, 'Sogou', 'search-engine', false],
  [/360Spider/i, '360Spider', 'search-engine', false],
  [/Yeti\/|NaverBot/i, 'NaverBot', 'search-engine', true],
  [/MojeekBot/i, 'MojeekBot', 'search-engine', false],
  [/coccocbot/i, 'coccocbot', 'search-engine', true],
  [/YisouSpider/i, 'YisouSpider', 'search-engine', false],
  // Exalead's crawler (its string names exabot.com); a bare `ExaBot` is Exa's AI search.
  [/Exabot[^;)]*[;)].*exabot\.com/i, 'Exabot', 'search-engine', false],
  // Link previews.
  [/facebookexternalhit|facebookcatalog|meta-externalads/i, 'facebookexternalhit', 'preview', true],
  [/Slackbot|Slack-ImgProxy/i, 'Slackbot', 'preview', false],
  [/Twitterbot/i, 'Twitterbot', 'preview', false],
  [/Discordbot/i, 'Discordbot', 'preview', false],
  [/LinkedInBot/i, 'LinkedInBot', 'preview', false],
  [/WhatsApp/i, 'WhatsApp', 'preview', false],
  [/TelegramBot/i, 'TelegramBot', 'preview', false],
  // Pinterest's crawler (`Pinterestbot`, `Pinterest/0.2 (+http://www.pinterest.com/)`), not its app.
  [/Pinterestbot|^Pinterest\/0\./i, 'Pinterestbot', 'preview', false],
  [/redditbot/i, 'redditbot', 'preview', false],
  [/SkypeUriPreview/i, 'SkypeUriPreview', 'preview', false],
  [/Embedly|Iframely|vkShare|Mastodon\//i, 'link-preview', 'preview', false],
  // SEO tools.
  [/AhrefsBot|AhrefsSiteAudit/i, 'AhrefsBot', 'seo', true],
  [/SemrushBot(?!-OCOB|-SWA)|SiteAuditBot|SplitSignalBot/i, 'SemrushBot', 'seo', false],
  [/MJ12bot/i, 'MJ12bot', 'seo', false],
  [/DotBot/i, 'DotBot', 'seo', false],
  [/rogerbot/i, 'rogerbot', 'seo', false],
  [/BLEXBot/i, 'BLEXBot', 'seo', false],
  [/DataForSeoBot/i, 'DataForSeoBot', 'seo', false],
  [/Screaming Frog/i, 'Screaming Frog', 'seo', false],
  [/serpstatbot/i, 'serpstatbot', 'seo', false],
  [/barkrowler/i, 'Barkrowler', 'seo', false],
  [/SEOkicks/i, 'SEOkicks', 'seo', false],
  // Uptime monitors.
  [/UptimeRobot/i, 'UptimeRobot', 'monitor', true],
  [/Pingdom/i, 'Pingdom', 'monitor', true],
  [/StatusCake/i, 'StatusCake', 'monitor', true],
  [/Site24x7/i, 'Site24x7', 'monitor', true],
  [/Better ?Uptime|Better Stack/i, 'Better Stack', 'monitor', true],
  [/Uptime-Kuma/i, 'Uptime Kuma', 'monitor', false],
  [/Datadog/i, 'Datadog', 'monitor', false],
  [/NewRelicPinger/i, 'New Relic', 'monitor', false],
  [/Checkly/i, 'Checkly', 'monitor', false],
  [/Freshping/i, 'Freshping', 'monitor', false],
  // Archivers.
  [/archive\.org_bot|Wayback|special_archiver/i, 'archive.org_bot', 'archiver', false],
  [/ia_archiver/i, 'ia_archiver', 'archiver', false],
  [/heritrix/i, 'Heritrix', 'archiver', false],
  [/Arquivo-web-crawler/i, 'Arquivo', 'archiver', false],
  // HTTP libraries and command-line tools.
  [/^curl\/|\blibcurl\//i, 'curl', 'tool', false],
  [/^Wget\//i, 'Wget', 'tool', false],
  [/python-requests/i, 'python-requests', 'tool', false],
  [/python-urllib|Python-urllib/i, 'python-urllib', 'tool', false],
  [/python-httpx/i, 'httpx', 'tool', false],
  [/aiohttp/i, 'aiohttp', 'tool', false],
  [/Scrapy/i, 'Scrapy', 'tool', false],
  [/Go-http-client/i, 'Go-http-client', 'tool', false],
  [/^axios\//i, 'axios', 'tool', false],
  [/node-fetch/i, 'node-fetch', 'tool', false],
  [/^undici|^node$/i, 'undici', 'tool', false],
  [/okhttp/i, 'okhttp', 'tool', false],
  [/Apache-HttpClient/i, 'Apache-HttpClient', 'tool', false],
  [/^Java\//i, 'Java', 'tool', false],
  [/libwww-perl/i, 'libwww-perl', 'tool', false],
  [/PostmanRuntime/i, 'Postman', 'tool', false],
  [/insomnia/i, 'Insomnia', 'tool', false],
  [/HTTPie/i, 'HTTPie', 'tool', false],
  [/GuzzleHttp/i, 'Guzzle', 'tool', false],
  [/^Ruby|Faraday/i, 'Ruby', 'tool', false],
  [/reqwest/i, 'reqwest', 'tool', false],
  [/\baws-sdk-|\bBoto3\/|\bbotocore\//i, 'AWS SDK', 'tool', false],
  [/ReactorNetty|Java-http-client|^Jersey\/|Apache-CXF/i, 'Java', 'tool', false],
  [/^git-annex\//i, 'git-annex', 'tool', false],
  [/^go-cli\b/i, 'go-cli', 'tool', false],
  [/\bvert\.x\//i, 'Vert.x', 'tool', false],
  // Not here: the HTTP stacks of native apps (Android's `Dalvik/…`, an app's `MyApp/1 CFNetwork/… Darwin/…`,
  // Alamofire). They are the requests of apps people hold in their hands, so they stay in People, as the
  // public browser corpora file them (lanes-corpus.test.ts, broad-browsers.txt).
];

/** One pass over every table pattern first, so a browser string costs a single regex test. */
export const KNOWN_ANY = new RegExp(KNOWN.map(([re]) => `(?:${re.source})`).join('|'), 'i');
