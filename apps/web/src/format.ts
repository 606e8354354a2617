const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const date = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' });

export const formatDateTime = (iso: string | null) => (iso ? dateTime.format(new Date(iso)) : 'never');
export const formatDate = (iso: string) => date.format(new Date(iso));

/** A TOTP secret in groups of four, easier to type into an authenticator app. */
export const groupSecret = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');
