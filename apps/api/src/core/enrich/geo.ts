import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Reader, type Response } from 'mmdb-lib';
import { normalizeIp } from './ip.ts';

/**
 * Country of an address from the geo-whois-asn-country database (CC0, by sapics/ip-location-db; see CREDITS.md).
 * The combined IPv4+IPv6 MaxMind-format file is read once, on first use, and kept in memory (~8 MB).
 */
const DB_FILE = '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb';

/** This data set's records are `{ country_code: "US" }`; MaxMind's own files use `country.iso_code`. */
type CountryRecord = { country_code?: string; country?: { iso_code?: string } };

let reader: Reader<Response> | null = null;

function db(): Reader<Response> {
  if (!reader) {
    const file = createRequire(import.meta.url).resolve(DB_FILE);
    reader = new Reader<Response>(readFileSync(file));
  }
  return reader;
}

/** Two-letter country code (upper case), or null for private, reserved, unknown or malformed addresses. */
export function countryOf(ip: string | null | undefined): string | null {
  const addr = normalizeIp(ip);
  if (!addr) return null;
  let rec: CountryRecord | null;
  try {
    rec = db().get(addr) as CountryRecord | null;
  } catch {
    return null;
  }
  const code = rec?.country_code ?? rec?.country?.iso_code;
  return typeof code === 'string' && /^[A-Za-z]{2}$/.test(code) ? code.toUpperCase() : null;
}
