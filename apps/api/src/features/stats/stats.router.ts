import {
  SiteProperties,
  SitePropertiesInput,
  SiteStatsInput,
  SiteStatsQuery,
  StatsBatchInput,
  StatsBatchResult,
  StatsCatalogue,
  StatsResult,
  Summary,
  SummaryQuery,
  TopQuery,
  TopTable,
  zEmpty,
} from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { publicCatalogue } from './public-catalogue.ts';
import { siteProperties, siteStats, siteStatsBatch, siteSummary, siteTop } from './service.ts';

const tags = ['Analytics'];
const WHERE_NOTE =
  'Filters as where.<name>=<value> (names from the catalogue; `(none)` matches an empty value). Custom properties as prop:<key> (by=prop:plan, where.prop:plan=pro; pageviews, sessions and events, the last 90 days).';

export const statsRouter = router({
  catalogue: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      shareable: true,
      mcp: {
        tool: 'get_stats_catalogue',
        description:
          'The names stats questions may use: for each metric set (pageviews, sessions, events, requests) its lanes, dimensions, filters and countable measures. Read it before get_site_stats or query_site_stats.',
      },
      openapi: {
        method: 'GET',
        path: '/v1/stats/catalogue',
        summary: 'For each metric set: its lanes, dimensions, filters and sortable counts',
        tags,
      },
    })
    .input(zEmpty.optional())
    .output(StatsCatalogue)
    .query(() => publicCatalogue()),

  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      shareable: true,
      mcp: {
        tool: 'get_site_stats',
        description:
          'Answer one stats question with flat arguments: `id` (site), `metrics` (pageviews, sessions, events or requests), `by` (a dimension such as page, channel, source, country, a custom property as prop:<key> (keys from list_site_properties, the last 90 days only), or a time series: hour, day, week (ISO, named by its Monday), month), `lane` (human, bot, internal), `days` (1 = today so far, default 7) or `from`/`to` (YYYY-MM-DD, site time zone), filters as `where.<dimension>`, `sort`, `limit`, `offset` and `search` to page through or search a ranked table, `compare` for the previous period, or `compareFrom`/`compareTo` (YYYY-MM-DD) to compare with a custom earlier range.',
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/stats',
        summary: 'Run a stats spec given as query parameters',
        description: `Days are calendar days in the site’s time zone. ${WHERE_NOTE} Older than 90 days: answered from daily rollups.`,
        tags,
      },
    })
    .input(SiteStatsQuery)
    .output(StatsResult)
    .query(({ ctx, input }) => siteStats(ctx.deps, ctx.em, ctx.actor, input)),

  query: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      shareable: true,
      readOnly: true,
      mcp: {
        tool: 'query_site_stats',
        description:
          'The same question as get_site_stats with a JSON `where` object instead of flat filters (custom properties as "prop:<key>": value). Use it when filters are many or built programmatically. Changes nothing.',
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/stats/query',
        summary: 'Run a stats spec given as JSON',
        tags,
      },
    })
    .input(SiteStatsInput)
    .output(StatsResult)
    .mutation(({ ctx, input }) => siteStats(ctx.deps, ctx.em, ctx.actor, input)),

  batch: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      shareable: true,
      readOnly: true,
      mcp: {
        tool: 'batch_site_stats',
        description:
          'Up to 40 named stats questions in one call (`queries`: name \u2192 question as for query_site_stats). A refused question answers {error} under its name while the others answer. Prefer it over many single calls.',
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/stats/batch',
        summary: 'Run up to 40 named stats specs at once',
        description: 'A refused spec answers {error: {status, title, field}} under its name; the others still answer.',
        tags,
      },
    })
    .input(StatsBatchInput)
    .output(StatsBatchResult)
    .mutation(({ ctx, input }) => siteStatsBatch(ctx.deps, ctx.em, ctx.actor, input)),

  properties: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      shareable: true,
      mcp: {
        tool: 'list_site_properties',
        description:
          'The custom property keys the site’s pageviews and events carried over the last 30 days (People traffic), the most used first (at most 100), with their counts and the keys kept past 90 days. Ask for one in get_site_stats as by=prop:<key> or where.prop:<key>=<value>.',
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/properties',
        summary: 'Custom property keys seen in the last 30 days, the most used first',
        tags,
      },
    })
    .input(SitePropertiesInput)
    .output(SiteProperties)
    .query(({ ctx, input }) => siteProperties(ctx.deps, ctx.em, ctx.actor, input)),

  summary: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      shareable: true,
      mcp: {
        tool: 'get_site_summary',
        description:
          "The headline figures of People traffic for a range (`days` or `from`/`to`; `compareFrom`/`compareTo` for a custom earlier comparison range): sessions, pageviews, visits from search, average session, bounce rate, pages per session, each with the previous period, change and whether that is good or bad. Start here for 'how is the site doing'.",
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/summary',
        summary: 'Headline measures of People traffic with the previous period, change and tone',
        tags,
      },
    })
    .input(SummaryQuery)
    .output(Summary)
    .query(({ ctx, input }) => siteSummary(ctx.deps, ctx.em, ctx.actor, input)),

  top: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      shareable: true,
      mcp: {
        tool: 'get_site_top',
        description:
          'A ranked table for one `dimension` (channel, source, page, country, device, browser, browser_version, os, os_version, referrer, campaign; bot, category, path, network, status for crawler requests; event) with counts and shares; `limit` 1-100, `count`=pageviews to count pageviews instead of sessions.',
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/top/{dimension}',
        summary: 'A ranked table for one dimension',
        description:
          'Page dimensions count People sessions where each began (count=pageviews: pageviews); request dimensions count requests; event counts events.',
        tags,
      },
    })
    .input(TopQuery)
    .output(TopTable)
    .query(({ ctx, input }) => siteTop(ctx.deps, ctx.em, ctx.actor, input)),
});
