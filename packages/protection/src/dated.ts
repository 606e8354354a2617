/**
 * When each offline list of this package was last taken from its source. The service warns at start-up
 * when one is older than 90 days (docs/configuration.md, "Start-up checks"); update the date with the list.
 */
export interface DatedList {
  what: string;
  /** `YYYY-MM-DD`: the source's release or snapshot this copy follows. */
  date: string;
  update: string;
}

export const BOT_LISTS_DATED = {
  crawlerUserAgents: {
    what: 'Bot user-agent patterns (crawler-user-agents 1.60.0, packages/protection/src/crawlers.json)',
    // The package's release date on the npm registry.
    date: '2026-08-10',
    update:
      'npm update crawler-user-agents -w @us/protection, run packages/protection/scripts/slim-crawlers.mjs, then set this date',
  },
  aiAgents: {
    what: 'AI agent names (packages/protection/src/ai-agents.ts, after ai.robots.txt robots.json)',
    // ai-robots-txt/ai.robots.txt at 738c80df (the snapshot test/corpora/ai-agents.json holds too).
    date: '2026-08-22',
    update: 'compare ai-agents.ts with https://github.com/ai-robots-txt/ai.robots.txt/blob/main/robots.json, then set this date',
  },
  knownBots: {
    what: 'Well-known bots (packages/protection/src/known-bots.ts, curated)',
    // The table's last revision.
    date: '2026-11-28',
    update: "review known-bots.ts against the operators' crawler pages, then set this date",
  },
  hostingNetworks: {
    what: 'Hosting networks (packages/protection/src/hosting.ts, curated)',
    date: '2026-11-22',
    update: "cross-check HOSTING_ASNS against the ip-location-db asn data's operator names, then set this date",
  },
} as const satisfies Record<string, DatedList>;
