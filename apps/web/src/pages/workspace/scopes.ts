import { SCOPES, type Scope } from '../../../../../packages/shared/src/scopes.ts';

export { SCOPES, type Scope };

/** What each scope lets a token do, in a few words. */
const WHAT: Record<Scope, string> = {
  'analytics:read': 'read reports',
  'sites:read': 'see sites and settings',
  'sites:write': 'create, change and delete sites',
  'bot:read': 'see bot traffic',
  'bot:write': 'change bot settings',
  'search:read': 'see search data',
  'search:write': 'change search settings',
  'members:read': 'see members and invitations',
  'members:write': 'invite, change and remove members',
  'tokens:read': 'see API tokens',
  'tokens:write': 'create and revoke API tokens',
  'billing:read': 'see the plan and invoices',
  'billing:write': 'change the plan',
  'export:read': 'export data',
  'account:admin': 'manage owners',
};

const AREA_NAMES: Record<string, string> = {
  analytics: 'Analytics',
  sites: 'Sites',
  bot: 'Bots',
  search: 'Search',
  members: 'Members',
  tokens: 'Tokens',
  billing: 'Billing',
  export: 'Export',
  account: 'Account',
};

export interface ScopeArea {
  area: string;
  label: string;
  scopes: { scope: Scope; what: string }[];
}

/** The scopes grouped by area (the part before the colon), in the API's order. */
export const SCOPE_AREAS: ScopeArea[] = SCOPES.reduce<ScopeArea[]>((areas, scope) => {
  const area = scope.split(':')[0] ?? scope;
  let group = areas.find((a) => a.area === area);
  if (!group) {
    group = { area, label: AREA_NAMES[area] ?? area, scopes: [] };
    areas.push(group);
  }
  group.scopes.push({ scope, what: WHAT[scope] });
  return areas;
}, []);

export const isReadScope = (s: Scope) => s.endsWith(':read');
