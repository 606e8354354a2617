import { z } from 'zod';
import { zEmail, zExistingPassword, zId, zName, zNewPassword, zPlan, zRole, zSixDigitCode, zTimestamp } from './common.ts';

export const zMessage = z.object({ message: z.string() });

export const SignupInput = z.object({ email: zEmail, password: zNewPassword, workspaceName: zName.optional() }).strict();
export const VerifyInput = z.object({ token: z.string().min(1).max(512), password: zExistingPassword }).strict();
/** Spec §4: 200 either way; an unknown, used or expired link is `verified: false` with a message saying what to do. */
export const VerifyOutput = z.object({ verified: z.boolean(), message: z.string().optional() });
export const EmailOnlyInput = z.object({ email: zEmail }).strict();
export const LoginInput = z.object({ email: zEmail, password: zExistingPassword }).strict();
export const LoginTwoFactorInput = z.object({ challenge: z.string().min(1).max(512), code: zSixDigitCode }).strict();

export const Membership = z.object({
  workspaceId: zId,
  name: z.string(),
  role: zRole,
  plan: zPlan,
});
export type Membership = z.infer<typeof Membership>;

export const LoginSuccess = z.object({
  user: z.object({ id: zId, email: z.string() }),
  memberships: z.array(Membership),
});
export const LoginOutput = z.union([LoginSuccess, z.object({ twoFactorRequired: z.literal(true), challenge: z.string() })]);

export const ResetInput = z.object({ token: z.string().min(1).max(512), password: zNewPassword }).strict();
export const ResetOutput = z.object({ reset: z.boolean() });
export const ChangePasswordInput = z.object({ currentPassword: zExistingPassword, newPassword: zNewPassword }).strict();
export const ChangePasswordOutput = z.object({ changed: z.boolean() });

export const Session = z.object({
  id: zId,
  createdAt: zTimestamp,
  lastSeenAt: zTimestamp.nullable(),
  expiresAt: zTimestamp,
  ip: z.string().nullable().describe('Coarse network of the sign-in (IPv4 /24, IPv6 /48); never the full address'),
  userAgent: z.string().nullable().describe('Browser and system summary; never the full user-agent string'),
  current: z.boolean(),
});
export type Session = z.infer<typeof Session>;
export const SessionList = z.object({ sessions: z.array(Session) });
export const SessionIdInput = z.object({ id: zId }).strict();

export const PasswordOnlyInput = z.object({ password: zExistingPassword }).strict();
export const TwoFactorEnrollOutput = z.object({ secret: z.string(), otpauthUri: z.string() });
export const CodeOnlyInput = z.object({ code: zSixDigitCode }).strict();
export const TwoFactorDisableInput = z.object({ password: zExistingPassword, code: zSixDigitCode }).strict();
export const TwoFactorStateOutput = z.object({ enabled: z.boolean() });
