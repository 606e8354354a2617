/** The 15 token scopes of the spec, and the scopes each workspace role grants (spec §5 item 4). */
export const SCOPES = [
  'analytics:read',
  'sites:read',
  'sites:write',
  'bot:read',
  'bot:write',
  'search:read',
  'search:write',
  'members:read',
  'members:write',
  'tokens:read',
  'tokens:write',
  'billing:read',
  'billing:write',
  'export:read',
  'account:admin',
] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const readScopes = SCOPES.filter((s) => s.endsWith(':read'));

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: [...SCOPES],
  // Admin: everything except billing:write (deleting the account is owner-only, checked by role).
  admin: SCOPES.filter((s) => s !== 'billing:write'),
  member: [...readScopes, 'sites:write', 'bot:write', 'search:write'],
  viewer: ['analytics:read', 'sites:read', 'bot:read', 'search:read'],
};

export function scopesOfRole(role: Role): Scope[] {
  return [...ROLE_SCOPES[role]];
}
