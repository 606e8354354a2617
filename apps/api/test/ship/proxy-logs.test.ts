import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The proxy configurations this repository ships keep no visitor's address or user agent: nginx logs each request
 * in its `combined` format (address, request URL, user agent) unless told not to, and names the client in its error
 * lines; Caddy logs requests only with a `log` directive.
 */
const INFRA = path.resolve(import.meta.dirname, '../../../../infra');
const read = (file: string) =>
  readFileSync(path.join(INFRA, file), 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean)
    .join('\n');

describe('the shipped proxy configurations keep no visitor addresses', () => {
  it('nginx: no access log, and only critical error lines', () => {
    const conf = read('nginx.conf');
    const server = conf.slice(conf.indexOf('server {'));
    expect(server).toMatch(/^access_log off;$/m);
    expect(conf.match(/^access_log\b.*$/gm)).toEqual(['access_log off;']);
    expect(conf.match(/^error_log\b.*$/gm)).toEqual(['error_log /var/log/nginx/error.log crit;']);
  });

  it.each(['Caddyfile', 'caddy/Caddyfile'])('%s: no request log', (file) => {
    expect(read(file)).not.toMatch(/^log\b|\blog\s*\{/m);
  });
});
