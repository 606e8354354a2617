/** Fields every JSON line has, shown in the readable line's own places rather than as `key=value`. */
const OWN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);

const show = (v: unknown) => (typeof v === 'string' && !/[\s"=]/.test(v) && v !== '' ? v : JSON.stringify(v));

/**
 * One JSON line of the logger as the readable line of development: `time LEVEL message key=value`, the request
 * id among the fields, an error's stack on the lines below. Our own small formatter: pino-pretty is not wanted
 * as a dependency.
 */
export function readableLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const fields = Object.entries(entry)
    .filter(([k, v]) => !OWN.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${show(v)}`);
  const head = [entry.time, String(entry.level).toUpperCase(), entry.msg, ...fields].filter((p) => p !== undefined).join(' ');
  const err = entry.err as { stack?: string; message?: string } | undefined;
  const detail = err ? `\n${err.stack ?? err.message ?? ''}` : '';
  return `${head}${detail}\n`;
}
