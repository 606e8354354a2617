import type { MetricSet, TopDimension } from '@us/shared';

/** Top-table dimension → the metric set it ranks (page dimensions: sessions, or pageviews with count=pageviews). */
export const TOP_SETS: Record<TopDimension, MetricSet> = {
  source: 'sessions',
  channel: 'sessions',
  medium: 'sessions',
  referrer: 'sessions',
  campaign: 'sessions',
  page: 'sessions',
  page_type: 'sessions',
  country: 'sessions',
  device: 'sessions',
  browser: 'sessions',
  browser_version: 'sessions',
  os: 'sessions',
  os_version: 'sessions',
  bot: 'requests',
  category: 'requests',
  kind: 'requests',
  network: 'requests',
  path: 'requests',
  status: 'requests',
  cache: 'requests',
  decision: 'requests',
  event: 'events',
  label: 'events',
  language: 'sessions',
  timezone: 'sessions',
  screen: 'sessions',
  exit_page: 'sessions',
};

/** Network figures come from DB-IP's ASN data (CC BY 4.0), which asks for this credit beside them. */
export const NETWORK_ATTRIBUTION = 'IP Geolocation by DB-IP (https://db-ip.com)';
