import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  to: string[];
  raw: string;
  /** The decoded text of the message (quoted-printable soft breaks undone). */
  text: string;
  subject: string;
}

function decodeQuotedPrintable(s: string) {
  return s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
}

/** A real SMTP server on 127.0.0.1 that keeps every message it receives. */
export async function startSmtpCapture() {
  const mails: CapturedMail[] = [];
  const waiters: (() => void)[] = [];
  /** Recipients this server turns away (451, "try again later"), as a busy or failing mail server does. */
  const refused = new Set<string>();
  /** Recipients this server rejects for good (550, "no such user"), as a mailbox that does not exist is. */
  const rejected = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const to = address.address.toLowerCase();
      if (rejected.has(to)) return callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      if (!refused.has(to)) return callback();
      const err = Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 });
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const text = decodeQuotedPrintable(raw);
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          text,
          subject: /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '',
        });
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    refused,
    rejected,
    /** Waits for the next message to `to` whose subject matches, and returns it. */
    async waitFor(to: string, subject: RegExp, timeoutMs = 5000): Promise<CapturedMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = [...mails].reverse().find((m) => m.to.includes(to) && subject.test(m.subject));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no e-mail to ${to} matching ${subject}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The `token` of the first link in a mail that points at `{app}/<page>?token=`. */
export function linkToken(mail: CapturedMail, page: string): string {
  const m = new RegExp(`/${page}\\?token=([A-Za-z0-9_%-]+)`).exec(mail.text);
  if (!m?.[1]) throw new Error(`no /${page} link in the e-mail`);
  return decodeURIComponent(m[1]);
}
