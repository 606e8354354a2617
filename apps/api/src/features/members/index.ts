// The members wing's public surface: what other wings may use (the layering lint holds them to this file).
export { canManageOwners, lockWorkspace, seatsTaken } from './seats.ts';
