-- Distributes the analytics tables of a migrated database over Citus workers. Run on the coordinator
-- once the API has started there (its migrations create the tables), e.g. by compose.citus.yaml's
-- `citus-setup` service; safe to run again (tables already distributed are skipped).
create extension if not exists citus;

do $$
declare
  t text;
begin
  -- The control plane's tables that analytics tables or the jobs join (sites: time zones, retention) and
  -- those they reference: reference tables, a copy on every worker. Small, and written rarely.
  foreach t in array array['users', 'workspaces', 'sites'] loop
    if not exists (select 1 from citus_tables where table_name = t::regclass) then
      perform create_reference_table(t);
    end if;
  end loop;
  -- The analytics plane: distributed by site_id, colocated, so every per-site statement (stats, rollups,
  -- results, journeys, export) is routed to one worker and a site's raw rows, rollups and per-day
  -- results sit together. Partitions created later follow their parent.
  foreach t in array array['pageviews', 'page_leaves', 'events', 'requests', 'daily_rollups', 'rollup_days',
                           'day_arrivals', 'result_days'] loop
    if not exists (select 1 from citus_tables where table_name = t::regclass) then
      perform create_distributed_table(t, 'site_id', colocate_with => case when t = 'pageviews' then 'default' else 'pageviews' end);
    end if;
  end loop;
  -- Everything else (members, tokens, keys, exports, billing, search, dead letters) stays on the
  -- coordinator as Citus-managed local tables; their foreign keys to the reference tables are kept.
end $$;
