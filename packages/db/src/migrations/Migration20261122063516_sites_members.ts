import { Migration } from '@mikro-orm/migrations';

export class Migration20261122063516_sites_members extends Migration {

  override name = 'Migration20261122063516_sites_members';

  override up(): void | Promise<void> {
    this.addSql(`create table "sites" ("id" uuid not null, "workspace_id" uuid not null, "name" varchar(80) not null, "timezone" varchar(64) not null, "settings" jsonb not null, "internal_key" varchar(64) not null, "created_at" timestamptz not null, "last_seen_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "sites_workspace_id_index" on "sites" ("workspace_id");`);

    this.addSql(`create table "site_keys" ("id" uuid not null, "site_id" uuid not null, "kind" varchar(8) not null, "public_value" varchar(40) null, "secret_hash" varchar(64) null, "prefix" varchar(24) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "site_keys_site_id_index" on "site_keys" ("site_id");`);
    this.addSql(`alter table "site_keys" add constraint "site_keys_public_value_unique" unique ("public_value");`);
    this.addSql(`alter table "site_keys" add constraint "site_keys_secret_hash_unique" unique ("secret_hash");`);

    this.addSql(`create table "site_hostnames" ("site_id" uuid not null, "hostname" varchar(253) not null, "proxy" boolean not null default false, "origin" text null, "verify_token" varchar(64) not null, "verified_at" timestamptz null, "edge_id" varchar(128) null, "edge_status" varchar(32) null, "created_at" timestamptz not null, primary key ("site_id", "hostname"));`);
    this.addSql(`create index "site_hostnames_hostname_index" on "site_hostnames" ("hostname");`);
    // A hostname may be proxied by one site only (the answer to a second site is 409).
    this.addSql(`create unique index "site_hostnames_proxied_unique" on "site_hostnames" ("hostname") where "proxy";`);

    this.addSql(`create table "invites" ("id" uuid not null, "workspace_id" uuid not null, "email" varchar(254) not null, "role" varchar(16) not null, "token_hash" varchar(64) not null, "invited_by" uuid not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "accepted_at" timestamptz null, "withdrawn_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "invites_workspace_id_index" on "invites" ("workspace_id");`);
    this.addSql(`alter table "invites" add constraint "invites_token_hash_unique" unique ("token_hash");`);

    this.addSql(`alter table "sites" add constraint "sites_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);

    this.addSql(`alter table "site_keys" add constraint "site_keys_site_id_foreign" foreign key ("site_id") references "sites" ("id") on delete cascade;`);

    this.addSql(`alter table "site_hostnames" add constraint "site_hostnames_site_id_foreign" foreign key ("site_id") references "sites" ("id") on delete cascade;`);

    this.addSql(`alter table "invites" add constraint "invites_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "site_keys" drop constraint "site_keys_site_id_foreign";`);
    this.addSql(`alter table "site_hostnames" drop constraint "site_hostnames_site_id_foreign";`);

    this.addSql(`drop table if exists "sites" cascade;`);
    this.addSql(`drop table if exists "site_keys" cascade;`);
    this.addSql(`drop table if exists "site_hostnames" cascade;`);
    this.addSql(`drop table if exists "invites" cascade;`);
  }

}
