/**
 * AI assistants whose links bring visitors (channel "AI assistants"), kept by hand: they change faster
 * than the referrer list (`referrers.json`), and an entry here wins over that list's entry for the same
 * host. Written 2026-11-28 from each assistant's own address; `docs/product/channels.md` says how to add one.
 */
export const AI_ASSISTANTS_WRITTEN = '2026-11-28';

export const AI_ASSISTANTS: Readonly<Record<string, readonly string[]>> = {
  ChatGPT: ['chatgpt.com', 'chat.openai.com'],
  Perplexity: ['perplexity.ai', 'www.perplexity.ai'],
  Gemini: ['gemini.google.com', 'bard.google.com'],
  Copilot: ['copilot.microsoft.com', 'copilot.cloud.microsoft'],
  Claude: ['claude.ai'],
  'You.com': ['you.com'],
  Phind: ['phind.com', 'www.phind.com'],
  Poe: ['poe.com'],
  DeepSeek: ['chat.deepseek.com'],
  'Meta AI': ['meta.ai', 'www.meta.ai'],
  Grok: ['grok.com'],
  'Le Chat': ['chat.mistral.ai'],
  'Duck.ai': ['duck.ai'],
  Qwen: ['chat.qwen.ai'],
  NotebookLM: ['notebooklm.google.com'],
  'Character.AI': ['character.ai'],
  Andi: ['andisearch.com'],
  Komo: ['komo.ai'],
  iAsk: ['iask.ai'],
};

/** Of those, the ones that answer like a search engine (AI search) rather than a chat (the Protection page tells them apart). */
export const AI_SEARCH_ENGINES: ReadonlySet<string> = new Set(['Perplexity', 'You.com', 'Phind', 'Andi', 'Komo', 'iAsk']);
