/**
 * The routes of the spec (../shared/spec/service-spec.md §4) built so far, as written there.
 * Contract tests check the generated OpenAPI document and REST routes against this list; each later
 * capability adds its rows.
 */
export const SPEC_ROUTES: [method: string, path: string][] = [
  ['POST', '/v1/auth/signup'],
  ['POST', '/v1/auth/verify'],
  ['POST', '/v1/auth/verify/resend'],
  ['POST', '/v1/auth/login'],
  ['POST', '/v1/auth/login/2fa'],
  ['POST', '/v1/auth/logout'],
  ['POST', '/v1/auth/password/reset-request'],
  ['POST', '/v1/auth/password/reset'],
  ['POST', '/v1/auth/password/change'],
  ['GET', '/v1/auth/sessions'],
  ['DELETE', '/v1/auth/sessions/{id}'],
  ['POST', '/v1/auth/2fa/enroll'],
  ['POST', '/v1/auth/2fa/confirm'],
  ['POST', '/v1/auth/2fa/disable'],
  ['GET', '/v1/me'],
];

/** Success status per route where the spec says other than 200. */
export const SPEC_STATUS: Record<string, number> = {
  'POST /v1/auth/signup': 202,
  'POST /v1/auth/verify/resend': 202,
  'POST /v1/auth/password/reset-request': 202,
  'POST /v1/auth/logout': 204,
  'DELETE /v1/auth/sessions/{id}': 204,
};

/** Routes marked (person) in the spec: they must refuse API tokens. */
export const PERSON_ROUTES = new Set([
  'POST /v1/auth/password/change',
  'GET /v1/auth/sessions',
  'DELETE /v1/auth/sessions/{id}',
  'POST /v1/auth/2fa/enroll',
  'POST /v1/auth/2fa/confirm',
  'POST /v1/auth/2fa/disable',
]);
