import {
  ChangePasswordInput,
  ChangePasswordOutput,
  CodeOnlyInput,
  EmailOnlyInput,
  LoginInput,
  LoginOutput,
  LoginSuccess,
  LoginTwoFactorInput,
  PasswordOnlyInput,
  ResetInput,
  ResetOutput,
  SessionIdInput,
  SessionList,
  SignupInput,
  TwoFactorDisableInput,
  TwoFactorEnrollOutput,
  TwoFactorStateOutput,
  VerifyInput,
  VerifyOutput,
  zEmpty,
  zMessage,
} from '@us/shared';
import { z } from 'zod';
import type { PersonActor } from '../../actor/actor.ts';
import { router } from '../../procedures/init.ts';
import { personProcedure, publicProcedure } from '../../procedures/procedures.ts';
import * as accounts from './accounts.ts';
import * as loginService from './login.ts';
import * as passwords from './passwords.ts';
import * as sessions from './sessions.ts';
import * as twoFactor from './two-factor.ts';

const tags = ['Auth'];

/** The signed-in person and the session they typed into (password checks count per session). */
function sessionPerson(p: PersonActor) {
  return { userId: p.user.id, sessionId: p.session.id };
}
const post = (path: `/${string}`, summary: string) => ({ method: 'POST' as const, path, summary, tags, protect: false });

export const authRouter = router({
  signup: publicProcedure
    .meta({ auth: 'none', status: 202, openapi: post('/v1/auth/signup', 'Create an account and its workspace') })
    .input(SignupInput)
    .output(zMessage)
    .mutation(({ ctx, input }) => accounts.signup(ctx.deps, ctx.em, input, ctx.req)),

  verify: publicProcedure
    .meta({ auth: 'none', openapi: post('/v1/auth/verify', 'Confirm the e-mail address from the link') })
    .input(VerifyInput)
    .output(VerifyOutput)
    .mutation(({ ctx, input }) => accounts.verifyEmail(ctx.deps, ctx.em, input)),

  resendVerification: publicProcedure
    .meta({ auth: 'none', status: 202, openapi: post('/v1/auth/verify/resend', 'Send the confirmation link again') })
    .input(EmailOnlyInput)
    .output(zMessage)
    .mutation(({ ctx, input }) => accounts.resendVerification(ctx.deps, ctx.em, input)),

  login: publicProcedure
    .meta({ auth: 'none', answers: [401], openapi: post('/v1/auth/login', 'Sign in; sets the us_session cookie') })
    .input(LoginInput)
    .output(LoginOutput)
    .mutation(({ ctx, input }) => loginService.login(ctx.deps, ctx.em, input, ctx.req, ctx.out)),

  loginTwoFactor: publicProcedure
    .meta({ auth: 'none', answers: [401], openapi: post('/v1/auth/login/2fa', 'Finish signing in with a two-factor code') })
    .input(LoginTwoFactorInput)
    .output(LoginSuccess)
    .mutation(({ ctx, input }) => loginService.loginTwoFactor(ctx.deps, ctx.em, input, ctx.req, ctx.out)),

  logout: publicProcedure
    .meta({ auth: 'optional', status: 204, openapi: post('/v1/auth/logout', 'Sign out this session') })
    .input(zEmpty.optional())
    .output(z.void())
    .mutation(async ({ ctx }) => {
      // By the cookie itself: a workspace header the person no longer has, or a bearer beside it, must not leave it live.
      if (ctx.req.sessionCookie !== undefined) await sessions.endSessionOfCookie(ctx.em, ctx.req.sessionCookie);
      sessions.clearSessionCookie(ctx.req, ctx.out);
    }),

  requestReset: publicProcedure
    .meta({ auth: 'none', status: 202, openapi: post('/v1/auth/password/reset-request', 'E-mail a password reset link') })
    .input(EmailOnlyInput)
    .output(zMessage)
    .mutation(({ ctx, input }) => passwords.requestReset(ctx.deps, ctx.em, input)),

  reset: publicProcedure
    .meta({ auth: 'none', openapi: post('/v1/auth/password/reset', 'Set a new password from a reset link') })
    .input(ResetInput)
    .output(ResetOutput)
    .mutation(({ ctx, input }) => passwords.resetPassword(ctx.deps, ctx.em, input)),

  changePassword: personProcedure
    .meta({
      auth: 'person',
      idempotent: true,
      openapi: { ...post('/v1/auth/password/change', 'Change your password'), protect: true },
    })
    .input(ChangePasswordInput)
    .output(ChangePasswordOutput)
    .mutation(({ ctx, input }) => passwords.changePassword(ctx.deps, ctx.em, sessionPerson(ctx.actor), input, ctx.req, ctx.out)),

  sessions: personProcedure
    .meta({ auth: 'person', openapi: { method: 'GET', path: '/v1/auth/sessions', summary: 'Your signed-in sessions', tags } })
    .input(zEmpty.optional())
    .output(SessionList)
    .query(async ({ ctx }) => {
      const p = ctx.actor;
      return { sessions: await sessions.listSessions(ctx.em, p.user.id, p.session.id) };
    }),

  deleteSession: personProcedure
    .meta({
      auth: 'person',
      idempotent: true,
      status: 204,
      openapi: { method: 'DELETE', path: '/v1/auth/sessions/{id}', summary: 'Sign out one of your sessions', tags },
    })
    .input(SessionIdInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      const p = ctx.actor;
      await sessions.endSession(ctx.em, p.user.id, input.id);
      if (input.id === p.session.id) sessions.clearSessionCookie(ctx.req, ctx.out);
    }),

  twoFactorEnroll: personProcedure
    .meta({
      auth: 'person',
      idempotent: true,
      openapi: { ...post('/v1/auth/2fa/enroll', 'Start two-factor enrolment'), protect: true },
    })
    .input(PasswordOnlyInput)
    .output(TwoFactorEnrollOutput)
    .mutation(({ ctx, input }) => twoFactor.enroll(ctx.deps, ctx.em, sessionPerson(ctx.actor), input.password, ctx.req, ctx.out)),

  twoFactorConfirm: personProcedure
    .meta({
      auth: 'person',
      idempotent: true,
      openapi: { ...post('/v1/auth/2fa/confirm', 'Turn two-factor on with a first code'), protect: true },
    })
    .input(CodeOnlyInput)
    .output(TwoFactorStateOutput)
    .mutation(({ ctx, input }) => twoFactor.confirm(ctx.deps, ctx.em, ctx.actor.user.id, input.code)),

  twoFactorDisable: personProcedure
    .meta({
      auth: 'person',
      idempotent: true,
      openapi: { ...post('/v1/auth/2fa/disable', 'Turn two-factor off'), protect: true },
    })
    .input(TwoFactorDisableInput)
    .output(TwoFactorStateOutput)
    .mutation(({ ctx, input }) => twoFactor.disable(ctx.deps, ctx.em, sessionPerson(ctx.actor), input, ctx.req, ctx.out)),
});
