// The tokens wing's public surface: what other wings may use (the layering lint holds them to this file).
export { revokeMemberTokens, revokeTokensBeyondRole, revokeTokensMadeBy } from './revocation.ts';
