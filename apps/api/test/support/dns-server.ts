import { isIPv4 } from 'node:net';
import { createServer, Packet } from 'dns2';

type RecordType = 'TXT' | 'PTR' | 'A' | 'AAAA' | 'CNAME';

/** The name a PTR question about an address asks for (`4.3.2.1.in-addr.arpa`, IPv6 nibbles under ip6.arpa). */
export function reverseName(ip: string): string {
  if (isIPv4(ip)) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  const nibbles = groups.map((g) => g.padStart(4, '0')).join('');
  return `${[...nibbles].reverse().join('.')}.ip6.arpa`;
}

/**
 * A real DNS server on 127.0.0.1 (UDP, a free port) answering TXT, PTR, A, AAAA and CNAME questions from an
 * in-memory table: a known name gets its records of the asked type (none: NOERROR without answers), anything
 * else NXDOMAIN. A name with a CNAME answers other questions as a recursive resolver does: the CNAME, then
 * its target's records of the asked type (followed up to 8 hops). `slow` names are answered only after a
 * delay; `failing` ones with SERVFAIL. Point the service at it with DNS_SERVERS=<address>.
 */
export async function startDnsServer() {
  const table = new Map<string, Partial<Record<RecordType, string[]>>>();
  const slow = new Map<string, number>();
  const failing = new Set<string>();
  const queries: string[] = [];
  const set = (name: string, type: RecordType, values: string[]) => {
    const key = name.toLowerCase();
    table.set(key, { ...table.get(key), [type]: values });
  };
  const server = createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      if (!question) return void send(response);
      const name = question.name.toLowerCase().replace(/\.$/, '');
      queries.push(name);
      const answer = () => {
        const entry = table.get(name);
        if (failing.has(name)) {
          response.header.rcode = Packet.RCODE.SERVFAIL;
        } else if (!entry) {
          response.header.rcode = Packet.RCODE.NXDOMAIN;
        } else {
          const base = { type: question.type, class: Packet.CLASS.IN, ttl: 1 };
          // The owner of the records answered: the asked name, or the end of its CNAME chain.
          let owner = question.name;
          let records: typeof entry | undefined = entry;
          for (let hop = 0; records?.CNAME && question.type !== Packet.TYPE.CNAME && hop < 8; hop++) {
            const [domain = ''] = records.CNAME;
            response.answers.push({ name: owner, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 1, domain } as never);
            owner = domain;
            records = table.get(domain.toLowerCase());
          }
          const name = owner;
          if (!records) {
            // A CNAME to a name nobody knows: the chain is the whole answer.
          } else if (question.type === Packet.TYPE.TXT) {
            for (const data of records.TXT ?? []) response.answers.push({ name, ...base, data } as never);
          } else if (question.type === Packet.TYPE.PTR) {
            for (const domain of records.PTR ?? []) response.answers.push({ name, ...base, domain } as never);
          } else if (question.type === Packet.TYPE.CNAME) {
            for (const domain of records.CNAME ?? []) response.answers.push({ name, ...base, domain } as never);
          } else if (question.type === Packet.TYPE.A) {
            for (const address of records.A ?? []) response.answers.push({ name, ...base, address } as never);
          } else if (question.type === Packet.TYPE.AAAA) {
            for (const address of records.AAAA ?? []) response.answers.push({ name, ...base, address } as never);
          }
        }
        // A slow answer may come after the server closed: nobody is listening for it then.
        try {
          Promise.resolve(send(response)).catch(() => {});
        } catch {}
      };
      const delay = slow.get(name);
      if (delay) setTimeout(answer, delay);
      else answer();
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = (addresses as { udp: { port: number } }).udp.port;
  return {
    port,
    /** For DNS_SERVERS. */
    address: `127.0.0.1:${port}`,
    /** Names asked about, lower-cased, in order. */
    queries,
    setTxt(name: string, values: string[]) {
      set(name, 'TXT', values);
    },
    /** The host names an address resolves back to. */
    setPtr(ip: string, names: string[]) {
      set(reverseName(ip), 'PTR', names);
    },
    /** The addresses a host name resolves to (IPv4 into A, IPv6 into AAAA records). */
    setAddresses(name: string, ips: string[]) {
      set(
        name,
        'A',
        ips.filter((ip) => isIPv4(ip)),
      );
      set(
        name,
        'AAAA',
        ips.filter((ip) => !isIPv4(ip)),
      );
    },
    /** `name` is an alias of `target` (a CNAME record): other records of `name` are not answered any more. */
    setCname(name: string, target: string) {
      set(name, 'CNAME', [target]);
    },
    /** Answers questions about `name` (a host name, or `reverseName(ip)`) only after `ms`. */
    slowDown(name: string, ms: number) {
      slow.set(name.toLowerCase(), ms);
    },
    /** Answers questions about `name` with SERVFAIL. */
    fail(name: string) {
      failing.add(name.toLowerCase());
    },
    clear(name: string) {
      table.delete(name.toLowerCase());
      slow.delete(name.toLowerCase());
      failing.delete(name.toLowerCase());
    },
    close: () => server.close(),
  };
}
export type DnsStandIn = Awaited<ReturnType<typeof startDnsServer>>;
