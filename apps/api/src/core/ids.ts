const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string is a uuid in any case (PostgreSQL's `uuid` takes both). */
export const isUuid = (s: string) => UUID.test(s);
