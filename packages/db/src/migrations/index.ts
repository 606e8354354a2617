import { Migration20261122055824_initial } from './Migration20261122055824_initial.ts';
import { Migration20261122063516_sites_members } from './Migration20261122063516_sites_members.ts';
import { Migration20261122080000_analytics } from './Migration20261122080000_analytics.ts';
import { Migration20261123013000_leaves_usage_rollups } from './Migration20261123013000_leaves_usage_rollups.ts';
import { Migration20261123140000_ingest_dead_letters } from './Migration20261123140000_ingest_dead_letters.ts';
import { Migration20261123170000_protection } from './Migration20261123170000_protection.ts';
import { Migration20261124090000_pageview_journeys } from './Migration20261124090000_pageview_journeys.ts';
import { Migration20261125090000_result_days } from './Migration20261125090000_result_days.ts';
import { Migration20261126090000_day_arrivals } from './Migration20261126090000_day_arrivals.ts';
import { Migration20261127090000_result_packed } from './Migration20261127090000_result_packed.ts';
import { Migration20261128090000_exports } from './Migration20261128090000_exports.ts';
import { Migration20261129090000_search } from './Migration20261129090000_search.ts';
import { Migration20261130090000_search_top } from './Migration20261130090000_search_top.ts';
import { Migration20261201090000_billing } from './Migration20261201090000_billing.ts';
import { Migration20261202090000_rollup_pairs } from './Migration20261202090000_rollup_pairs.ts';
import { Migration20261203090000_rollup_today } from './Migration20261203090000_rollup_today.ts';
import { Migration20261204090000_share_links } from './Migration20261204090000_share_links.ts';
import { Migration20261205090000_email_reports } from './Migration20261205090000_email_reports.ts';
import { Migration20261206090000_rollup_arrivals } from './Migration20261206090000_rollup_arrivals.ts';
import { Migration20261207090000_arrival_indexes } from './Migration20261207090000_arrival_indexes.ts';
import { Migration20261208090000_billing_segments } from './Migration20261208090000_billing_segments.ts';
import { Migration20261209090000_report_optin } from './Migration20261209090000_report_optin.ts';
import { Migration20261210090000_search_nulls } from './Migration20261210090000_search_nulls.ts';
import { Migration20261212090000_pageview_tab_page } from './Migration20261212090000_pageview_tab_page.ts';
import { Migration20261213090000_share_embedding } from './Migration20261213090000_share_embedding.ts';
import { Migration20261214090000_funnels } from './Migration20261214090000_funnels.ts';
import { Migration20261215090000_segments_annotations } from './Migration20261215090000_segments_annotations.ts';
import { Migration20261216090000_browser_os } from './Migration20261216090000_browser_os.ts';
import { Migration20261217090000_pageview_channels } from './Migration20261217090000_pageview_channels.ts';
import { Migration20261218090000_properties } from './Migration20261218090000_properties.ts';
import { Migration20261219090000_imports } from './Migration20261219090000_imports.ts';
import { Migration20261220090000_rollup_kept_properties } from './Migration20261220090000_rollup_kept_properties.ts';
import { Migration20261221090000_alerts } from './Migration20261221090000_alerts.ts';
import { Migration20261222090000_rollups_by_dimension } from './Migration20261222090000_rollups_by_dimension.ts';
import { Migration20261223090000_page_leaves_at } from './Migration20261223090000_page_leaves_at.ts';
import { Migration20261224090000_rollup_snapshot_server } from './Migration20261224090000_rollup_snapshot_server.ts';
import { Migration20261225090000_rollup_timezone } from './Migration20261225090000_rollup_timezone.ts';
import { Migration20261226090000_rollup_omitted_pairs } from './Migration20261226090000_rollup_omitted_pairs.ts';
import { Migration20261227090000_import_turns } from './Migration20261227090000_import_turns.ts';
import { Migration20261228090000_hostname_checks } from './Migration20261228090000_hostname_checks.ts';
import { Migration20261229090000_rollup_failures } from './Migration20261229090000_rollup_failures.ts';
import { Migration20261230090000_alert_sends } from './Migration20261230090000_alert_sends.ts';
import { Migration20261231090000_import_claim } from './Migration20261231090000_import_claim.ts';
import { Migration20270101090000_confirmation_sending } from './Migration20270101090000_confirmation_sending.ts';
import { Migration20270102090000_share_link_token } from './Migration20270102090000_share_link_token.ts';
import { Migration20270103090000_deleted_sites } from './Migration20270103090000_deleted_sites.ts';
import { Migration20270104090000_made_with_token } from './Migration20270104090000_made_with_token.ts';
import { Migration20270105090000_invite_token } from './Migration20270105090000_invite_token.ts';
import { Migration20270106090000_import_upload } from './Migration20270106090000_import_upload.ts';
import { Migration20270107090000_internal_key_sealed } from './Migration20270107090000_internal_key_sealed.ts';
import { Migration20270108090000_site_zone_spelling } from './Migration20270108090000_site_zone_spelling.ts';
import { Migration20270109090000_search_backfill } from './Migration20270109090000_search_backfill.ts';
import { Migration20270110090000_alert_optouts } from './Migration20270110090000_alert_optouts.ts';
import { Migration20270111090000_report_sending } from './Migration20270111090000_report_sending.ts';

/** The committed migrations, in order. New ones: `npm run -w @us/db migration:create -- <name>`, then list it here. */
export const migrationsList = [
  { name: 'Migration20261122055824_initial', class: Migration20261122055824_initial },
  { name: 'Migration20261122063516_sites_members', class: Migration20261122063516_sites_members },
  { name: 'Migration20261122080000_analytics', class: Migration20261122080000_analytics },
  { name: 'Migration20261123013000_leaves_usage_rollups', class: Migration20261123013000_leaves_usage_rollups },
  { name: 'Migration20261123140000_ingest_dead_letters', class: Migration20261123140000_ingest_dead_letters },
  { name: 'Migration20261123170000_protection', class: Migration20261123170000_protection },
  { name: 'Migration20261124090000_pageview_journeys', class: Migration20261124090000_pageview_journeys },
  { name: 'Migration20261125090000_result_days', class: Migration20261125090000_result_days },
  { name: 'Migration20261126090000_day_arrivals', class: Migration20261126090000_day_arrivals },
  { name: 'Migration20261127090000_result_packed', class: Migration20261127090000_result_packed },
  { name: 'Migration20261128090000_exports', class: Migration20261128090000_exports },
  { name: 'Migration20261129090000_search', class: Migration20261129090000_search },
  { name: 'Migration20261130090000_search_top', class: Migration20261130090000_search_top },
  { name: 'Migration20261201090000_billing', class: Migration20261201090000_billing },
  { name: 'Migration20261202090000_rollup_pairs', class: Migration20261202090000_rollup_pairs },
  { name: 'Migration20261203090000_rollup_today', class: Migration20261203090000_rollup_today },
  { name: 'Migration20261204090000_share_links', class: Migration20261204090000_share_links },
  { name: 'Migration20261205090000_email_reports', class: Migration20261205090000_email_reports },
  { name: 'Migration20261206090000_rollup_arrivals', class: Migration20261206090000_rollup_arrivals },
  { name: 'Migration20261207090000_arrival_indexes', class: Migration20261207090000_arrival_indexes },
  { name: 'Migration20261208090000_billing_segments', class: Migration20261208090000_billing_segments },
  { name: 'Migration20261209090000_report_optin', class: Migration20261209090000_report_optin },
  { name: 'Migration20261210090000_search_nulls', class: Migration20261210090000_search_nulls },
  { name: 'Migration20261212090000_pageview_tab_page', class: Migration20261212090000_pageview_tab_page },
  { name: 'Migration20261213090000_share_embedding', class: Migration20261213090000_share_embedding },
  { name: 'Migration20261214090000_funnels', class: Migration20261214090000_funnels },
  {
    name: 'Migration20261215090000_segments_annotations',
    class: Migration20261215090000_segments_annotations,
  },
  { name: 'Migration20261216090000_browser_os', class: Migration20261216090000_browser_os },
  { name: 'Migration20261217090000_pageview_channels', class: Migration20261217090000_pageview_channels },
  { name: 'Migration20261218090000_properties', class: Migration20261218090000_properties },
  { name: 'Migration20261219090000_imports', class: Migration20261219090000_imports },
  {
    name: 'Migration20261220090000_rollup_kept_properties',
    class: Migration20261220090000_rollup_kept_properties,
  },
  { name: 'Migration20261221090000_alerts', class: Migration20261221090000_alerts },
  { name: 'Migration20261222090000_rollups_by_dimension', class: Migration20261222090000_rollups_by_dimension },
  { name: 'Migration20261223090000_page_leaves_at', class: Migration20261223090000_page_leaves_at },
  { name: 'Migration20261224090000_rollup_snapshot_server', class: Migration20261224090000_rollup_snapshot_server },
  { name: 'Migration20261225090000_rollup_timezone', class: Migration20261225090000_rollup_timezone },
  { name: 'Migration20261226090000_rollup_omitted_pairs', class: Migration20261226090000_rollup_omitted_pairs },
  { name: 'Migration20261227090000_import_turns', class: Migration20261227090000_import_turns },
  { name: 'Migration20261228090000_hostname_checks', class: Migration20261228090000_hostname_checks },
  { name: 'Migration20261229090000_rollup_failures', class: Migration20261229090000_rollup_failures },
  { name: 'Migration20261230090000_alert_sends', class: Migration20261230090000_alert_sends },
  { name: 'Migration20261231090000_import_claim', class: Migration20261231090000_import_claim },
  { name: 'Migration20270101090000_confirmation_sending', class: Migration20270101090000_confirmation_sending },
  { name: 'Migration20270102090000_share_link_token', class: Migration20270102090000_share_link_token },
  { name: 'Migration20270103090000_deleted_sites', class: Migration20270103090000_deleted_sites },
  { name: 'Migration20270104090000_made_with_token', class: Migration20270104090000_made_with_token },
  { name: 'Migration20270105090000_invite_token', class: Migration20270105090000_invite_token },
  { name: 'Migration20270106090000_import_upload', class: Migration20270106090000_import_upload },
  { name: 'Migration20270107090000_internal_key_sealed', class: Migration20270107090000_internal_key_sealed },
  { name: 'Migration20270108090000_site_zone_spelling', class: Migration20270108090000_site_zone_spelling },
  { name: 'Migration20270109090000_search_backfill', class: Migration20270109090000_search_backfill },
  { name: 'Migration20270110090000_alert_optouts', class: Migration20270110090000_alert_optouts },
  { name: 'Migration20270111090000_report_sending', class: Migration20270111090000_report_sending },
];
