import { createRequire } from 'node:module';
import { type DatedData, dateOfBuildVersion } from '../stale-data.ts';

const PACKAGES = [
  ['@ip-location-db/geo-whois-asn-country-mmdb', 'Country-by-address data'],
  ['@ip-location-db/asn', 'Network-operator (ASN) data'],
] as const;

/** The installed ip-location-db packages, dated by their version (see `dateOfBuildVersion`). */
export function ipDataDated(): DatedData[] {
  const require = createRequire(import.meta.url);
  return PACKAGES.map(([name, what]) => {
    const { version } = require(`${name}/package.json`) as { version: string };
    return {
      what: `${what} (${name} ${version})`,
      date: dateOfBuildVersion(version),
      update: `npm update ${name} -w @us/api`,
    };
  });
}
