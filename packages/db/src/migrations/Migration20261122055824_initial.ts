import { Migration } from '@mikro-orm/migrations';

export class Migration20261122055824_initial extends Migration {

  override name = 'Migration20261122055824_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "users" ("id" uuid not null, "email" varchar(254) not null, "password_hash" text not null, "email_verified_at" timestamptz null, "totp_secret_enc" text null, "two_factor_enabled_at" timestamptz null, "totp_last_step" bigint null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(`create table "sessions" ("id" uuid not null, "user_id" uuid not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "last_seen_at" timestamptz null, "expires_at" timestamptz not null, "network" varchar(64) null, "device" varchar(120) null, "wrong_password_count" int not null default 0, primary key ("id"));`);
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);
    this.addSql(`alter table "sessions" add constraint "sessions_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "email_tokens" ("id" uuid not null, "user_id" uuid not null, "purpose" varchar(16) not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "email_tokens_user_id_index" on "email_tokens" ("user_id");`);
    this.addSql(`alter table "email_tokens" add constraint "email_tokens_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "workspaces" ("id" uuid not null, "name" varchar(80) not null, "plan" varchar(16) not null default 'Free', "status" varchar(16) not null default 'active', "created_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "memberships" ("workspace_id" uuid not null, "user_id" uuid not null, "role" varchar(16) not null, "joined_at" timestamptz not null, primary key ("workspace_id", "user_id"));`);

    this.addSql(`create table "api_tokens" ("id" uuid not null, "workspace_id" uuid not null, "name" varchar(80) not null, "prefix" varchar(32) not null, "token_hash" varchar(64) not null, "scopes" text[] not null, "site_ids" jsonb null, "created_by_id" uuid not null, "parent_token" uuid null, "created_at" timestamptz not null, "expires_at" timestamptz null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "api_tokens_workspace_id_index" on "api_tokens" ("workspace_id");`);
    this.addSql(`alter table "api_tokens" add constraint "api_tokens_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "api_tokens_created_by_id_index" on "api_tokens" ("created_by_id");`);
    this.addSql(`create index "api_tokens_parent_token_index" on "api_tokens" ("parent_token");`);

    this.addSql(`alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);

    this.addSql(`alter table "email_tokens" add constraint "email_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);

    this.addSql(`alter table "memberships" add constraint "memberships_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "memberships" add constraint "memberships_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "api_tokens" add constraint "api_tokens_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "api_tokens" add constraint "api_tokens_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sessions" drop constraint "sessions_user_id_foreign";`);
    this.addSql(`alter table "email_tokens" drop constraint "email_tokens_user_id_foreign";`);
    this.addSql(`alter table "memberships" drop constraint "memberships_user_id_foreign";`);
    this.addSql(`alter table "api_tokens" drop constraint "api_tokens_created_by_id_foreign";`);
    this.addSql(`alter table "memberships" drop constraint "memberships_workspace_id_foreign";`);
    this.addSql(`alter table "api_tokens" drop constraint "api_tokens_workspace_id_foreign";`);

    this.addSql(`drop table if exists "users" cascade;`);
    this.addSql(`drop table if exists "sessions" cascade;`);
    this.addSql(`drop table if exists "email_tokens" cascade;`);
    this.addSql(`drop table if exists "workspaces" cascade;`);
    this.addSql(`drop table if exists "memberships" cascade;`);
    this.addSql(`drop table if exists "api_tokens" cascade;`);
  }

}
