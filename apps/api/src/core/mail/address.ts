/** One spelling per mailbox for lookups and budgets: surrounding spaces dropped, lower case. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();
