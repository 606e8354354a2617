import type { BotCategory } from '@us/shared/bot-vocabulary';

/**
 * AI agents by the name they send, filed by what their operators document them doing:
 * - `ai-assistant`: fetches a page because a person asked (assistants, agents that browse, coding agents);
 * - `ai-search`: indexes pages for an AI answer or search engine that cites its sources;
 * - `ai-training`: collects pages for models or AI data sets (also scrapers selling data to AI makers).
 * The names follow the ai.robots.txt list (robots.json) and crawler-user-agents' `ai-crawler` tag; a name is
 * matched as a whole word, case-insensitively. Agents with a table entry of their own in `known-bots.ts` are
 * matched there first (with whether they are verifiable).
 */
export const AI_AGENTS: Record<'ai-assistant' | 'ai-search' | 'ai-training', readonly string[]> = {
  'ai-assistant': [
    'AI2Bot-DeepResearchEval',
    'amazon-QBusiness',
    'Amzn-User',
    'bigsur.ai',
    'BuddyBot',
    'ChatGPT Agent',
    'claude-code',
    'cohere-ai',
    'GeistHaus-PageFetcher',
    'Gemini-Deep-Research',
    'Google-Firebase',
    'Google-Gemini-CLI',
    'Google-NotebookLM',
    'GoogleAgent-URLContext',
    'kagi-fetcher',
    'Kimi-User',
    'KlaviyoAIBot',
    'LinerBot',
    'NotebookLM',
    'NovaAct',
    'opencode',
    'opencode-smartfetch',
    'PerplexityUser',
    'PhindBot',
    'Poggio-Citations',
    'QualifiedBot',
    'Shap-User',
    'TongyiBot',
    'TwinAgent',
    'wpbot',
    'YiyanBot',
  ],
  'ai-search': [
    'AddSearchBot',
    'AISearchBot',
    'amazon-kendra',
    'Amzn-SearchBot',
    'Andibot',
    'Anomura',
    'Aranet-SearchBot',
    'atlassian-bot',
    'AzureAI-SearchBot',
    'Bravebot',
    'Channel3Bot',
    'Cloudflare-AutoRAG',
    'ExaBot',
    'ExaSearchBot',
    'HenkBot',
    'iAskBot',
    'iaskspider',
    'KendraBot',
    'LinkupBot',
    'meta-webindexer',
    'Querit-SearchBot',
    'QueritBot',
    'ShapBot',
    'TavilyBot',
    'Terra Cotta',
    'TerraCotta',
    'YandexAdditional',
    'YandexAdditionalBot',
    'ZanistaBot',
  ],
  'ai-training': [
    'AgentTimes',
    'Ai2Bot-Dolma',
    'aiHitBot',
    'AIWebIndex',
    'ApifyBot',
    'ApifyWebsiteContentCrawler',
    'Awario',
    'bedrockbot',
    'Brightbot',
    'ChatGLM-Spider',
    'CloudVertexBot',
    'Cotoyogi',
    'CragCrawler',
    'Crawl4AI',
    'Crawlspace',
    'Datenbank Crawler',
    'DeepSeekBot',
    'Echobot Bot',
    'EchoboxBot',
    'ExteContextCrawl',
    'FacebookBot',
    'Factset_spyderbot',
    'FirecrawlAgent',
    'Flyriverbot',
    'FriendlyCrawler',
    'Google-CloudVertexBot',
    'ICC-Crawler',
    'imageSpider',
    'ImageMind',
    'ISSCyberRiskCrawler',
    'Kangaroo Bot',
    'KunatoCrawler',
    'laion-huggingface-processor',
    'LAIONDownloader',
    'Lightpanda',
    'Linguee Bot',
    'linkReader',
    'Mozilla-Tabstack',
    'MyCentralAIScraperBot',
    'NagetBot',
    'netEstate Imprint Crawler',
    'newsai',
    'Novellum',
    'Panscient',
    'panscient.com',
    'Poseidon Research Crawler',
    'QuillBot',
    'quillbot.com',
    'Reflectionbot',
    'SBIntuitionsBot',
    'SemrushBot-OCOB',
    'SemrushBot-SWA',
    'Sidetrade indexer bot',
    'Spawning-AI',
    'TaraGroup Intelligent Bot',
    'The Knowledge AI',
    'Thinkbot',
    'TikTokSpider',
    'VelenPublicWebCrawler',
    'WARDBot',
    'Webzio-Extended',
    'WRTNBot',
  ],
};

/**
 * Names too common as words to match anywhere (`Code/1.9 Chrome/…` is VS Code, `Spider 8` a phone): these
 * count only as the whole user agent (`Cursor`, `Operator/1.0`) or as a product token after `compatible; ` or
 * `; ` (`(compatible; Spider; +https://…)`, `Safari/537.36; Devin/1.0`).
 */
export const AI_AGENTS_WORDS: Record<'ai-assistant' | 'ai-training', readonly string[]> = {
  'ai-assistant': ['Code', 'Cursor', 'Devin', 'Operator', 'Trae', 'UseAI'],
  'ai-training': ['LCC', 'OpenAI', 'Spider', 'YaK'],
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const longestFirst = (a: string, b: string) => b.length - a.length;

interface AiAgent {
  name: string;
  category: BotCategory;
}

function table(groups: Record<string, readonly string[]>): Map<string, AiAgent> {
  const byName = new Map<string, AiAgent>();
  for (const [category, names] of Object.entries(groups)) {
    for (const name of names) byName.set(name.toLowerCase(), { name, category: category as BotCategory });
  }
  return byName;
}

const NAMES = table(AI_AGENTS);
const WORDS = table(AI_AGENTS_WORDS);

/** One pass for every name, longest first (`AI2Bot-Dolma` before `AI2Bot`), never inside a longer word. */
const NAMES_RE = new RegExp(
  `(?<![\\w-])(${[...NAMES.values()]
    .map((a) => a.name)
    .sort(longestFirst)
    .map(escapeRe)
    .join('|')})(?![A-Za-z0-9])`,
  'i',
);
const WORDS_RE = new RegExp(
  `(?:^|compatible; ?|; )(${[...WORDS.values()].map((a) => escapeRe(a.name)).join('|')})(?=$|[/;]| \\(| \\+)`,
  'i',
);

/** The AI agent a user agent names, if any. */
export function aiAgentOf(ua: string): AiAgent | undefined {
  const m = NAMES_RE.exec(ua);
  if (m) return NAMES.get(m[1]!.toLowerCase());
  const w = WORDS_RE.exec(ua);
  return w ? WORDS.get(w[1]!.toLowerCase()) : undefined;
}
