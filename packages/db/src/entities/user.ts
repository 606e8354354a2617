import { randomUUID } from 'node:crypto';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/** A person who signs in. Secrets (password hash, encrypted TOTP secret) never leave the services. */
export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    email: p.string().length(254).unique(),
    passwordHash: p.text(),
    emailVerifiedAt: p.datetime().nullable(),
    /** AES-GCM encrypted TOTP secret, set by enrol; 2FA is on only when `twoFactorEnabledAt` is set. */
    totpSecretEnc: p.text().nullable(),
    twoFactorEnabledAt: p.datetime().nullable(),
    /** Last accepted TOTP time step, so a code cannot be used twice. */
    totpLastStep: p.bigint('number').nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type User = InferEntity<typeof User>;
