import { createServer, Packet } from 'dns2';

/**
 * A real DNS server on 127.0.0.1 (UDP, a free port) answering TXT questions from an in-memory table:
 * a known name gets its TXT records (an empty list: NOERROR without answers), anything else NXDOMAIN.
 * Point the service at it with DNS_SERVERS=<address>.
 */
export async function startDnsServer() {
  const txt = new Map<string, string[]>();
  const queries: string[] = [];
  const server = createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      if (!question) return void send(response);
      const name = question.name.toLowerCase().replace(/\.$/, '');
      queries.push(name);
      const values = txt.get(name);
      if (!values) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
      } else if (question.type === Packet.TYPE.TXT) {
        for (const data of values) {
          response.answers.push(
            Packet.createResourceFromQuestion(question, { type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data }),
          );
        }
      }
      void send(response);
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
      txt.set(name.toLowerCase(), values);
    },
    clear(name: string) {
      txt.delete(name.toLowerCase());
    },
    close: () => server.close(),
  };
}
export type DnsStandIn = Awaited<ReturnType<typeof startDnsServer>>;
