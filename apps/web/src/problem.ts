import { isTRPCClientError } from '@trpc/client';
import type { AppRouter } from '@us/api';

/** The problem the API sends with every failure: `title` says what to do, `field` names the culprit. */
export interface Problem {
  title: string;
  status: number;
  field?: string;
}

/** A problem the API answered inside a 200 (a refused entry of a stats batch), thrown like any other. */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.title);
  }
}

/** Any thrown value as a problem; network failures and surprises get a readable title too. */
export function toProblem(err: unknown): Problem {
  if (err instanceof ProblemError) return err.problem;
  if (isTRPCClientError<AppRouter>(err)) {
    const problem = err.data?.problem;
    if (problem) return problem;
    return { title: 'The service could not be reached: check your connection and try again', status: 0 };
  }
  return { title: 'Something went wrong in the page: reload and try again', status: 0 };
}

export const isSignedOut = (p: Problem) => p.status === 401;

/** A problem's title as shown under its own field: the API's "Fix <field>: " lead-in is redundant there. */
export function fieldMessage(p: Problem): string {
  const lead = `Fix ${p.field}: `;
  const text = p.field && p.title.startsWith(lead) ? p.title.slice(lead.length) : p.title;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
