import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { PLANS } from '../plans.ts';
import { ROLES } from '../scopes.ts';

export const zTimestamp = z.string().describe('ISO 8601 timestamp');
export const zId = z.string().min(1).max(64);
export const zEmail = z.email().max(254);
export const zNewPassword = z
  .string()
  .min(LIMITS.newPassword.min, `Use at least ${LIMITS.newPassword.min} characters`)
  .max(LIMITS.newPassword.max, `Use at most ${LIMITS.newPassword.max} characters`);
export const zExistingPassword = z
  .string()
  .min(LIMITS.existingPassword.min, 'Type your password')
  .max(LIMITS.existingPassword.max, `Passwords have at most ${LIMITS.existingPassword.max} characters`);
export const zName = z
  .string()
  .trim()
  .min(LIMITS.name.min, 'Give a name')
  .max(LIMITS.name.max, `Use at most ${LIMITS.name.max} characters`);
export const zSixDigitCode = z.string().regex(/^\d{6}$/, 'Type the six-digit code from your authenticator app');
export const zRole = z.enum(ROLES);
export const zPlan = z.enum(PLANS);
export const zEmpty = z.object({}).strict();
