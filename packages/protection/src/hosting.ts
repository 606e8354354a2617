/** An autonomous system: its number and the operator's name. */
export interface Network {
  asn: number;
  org: string;
}

/**
 * Is an autonomous system a hosting / cloud / data-centre network?
 *
 * Used only as one input to the bot-protection gate (spec §2, decision order 6): a browser on a hosting network
 * may be *challenged*; the network alone never refuses anyone (in `block` mode such a browser is still served).
 *
 * Source of the list: the public AS numbers of the major hosting and cloud operators (as registered with the RIRs
 * and listed in PeeringDB), compiled by hand and cross-checked on 2026-11-22 against the organisation names in the
 * bundled ip-location-db `asn` data. Maintained by hand: add an ASN here when a large hosting operator shows up.
 * Networks not listed are still caught by the organisation-name patterns below.
 * Google's 15169 is deliberately absent: it also carries Google's own services and crawlers, while Google Cloud
 * customers use 396982 (and 19527).
 */
export const HOSTING_ASNS: ReadonlyMap<number, string> = new Map([
  [16509, 'Amazon AWS'],
  [14618, 'Amazon AWS'],
  [8987, 'Amazon AWS (EU)'],
  [396982, 'Google Cloud'],
  [19527, 'Google Cloud'],
  [8075, 'Microsoft Azure'],
  [8068, 'Microsoft Azure'],
  [14061, 'DigitalOcean'],
  [16276, 'OVH'],
  [35540, 'OVH'],
  [24940, 'Hetzner'],
  [213230, 'Hetzner Cloud'],
  [63949, 'Linode / Akamai Cloud'],
  [20473, 'Vultr (Choopa)'],
  [31898, 'Oracle Cloud'],
  [45102, 'Alibaba Cloud'],
  [37963, 'Alibaba Cloud'],
  [132203, 'Tencent Cloud'],
  [45090, 'Tencent Cloud'],
  [51167, 'Contabo'],
  [12876, 'Scaleway'],
  [36352, 'HostPapa (ex ColoCrossing)'],
  [53667, 'FranTech / BuyVM'],
  [62567, 'DigitalOcean (not in the current data)'],
  [200651, 'Flokinet'],
  [9009, 'M247'],
  [60068, 'Datacamp / CDN77'],
  [212238, 'Datacamp'],
  [40021, 'Contabo US'],
  [46606, 'Unified Layer'],
  [26496, 'GoDaddy'],
  [398101, 'GoDaddy'],
  [55286, 'Server Central / B2 Net'],
  [3842, 'InMotion Hosting (ex RamNode)'],
  [8100, 'QuadraNet'],
  [29802, 'HVC-AS / Hivelocity'],
  [25820, 'IT7 Networks'],
  [142036, 'Hosteons'],
  [8560, 'IONOS'],
  [197540, 'netcup'],
  [51396, 'Pfcloud'],
  [49981, 'WorldStream'],
  [136907, 'Huawei Cloud'],
  [55990, 'Huawei Cloud'],
  [61317, 'Hivelocity'],
]);

/**
 * Networks whose names look like hosting but that carry people: Cloudflare (WARP and iCloud Private Relay
 * egress) and Google's own AS. Listed explicitly so the name patterns below never flag them.
 */
const NOT_HOSTING: ReadonlySet<number> = new Set([13335, 15169, 36183, 54113]);

/** Organisation names that announce hosting. Word-ish boundaries avoid matching e.g. "Observer" as "server". */
const HOSTING_ORG =
  /\b(?:hosting|host(?:er|ed)?\b|cloud\b|data ?cent(?:er|re)s?\b|dedicated\b|servers?\b|vps|colo(?:cation)?\b)/i;

export function isHostingNetwork(net: Network | null | undefined): boolean {
  if (!net) return false;
  if (HOSTING_ASNS.has(net.asn)) return true;
  if (NOT_HOSTING.has(net.asn)) return false;
  return HOSTING_ORG.test(net.org);
}
