import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import { loadOnce } from '../load-once.ts';
import type { Logger } from '../logger.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * SMTP when SMTP_URL is set. Otherwise every e-mail is appended to `<DATA_DIR>/outbox.ndjson`, so
 * nothing is dropped on a machine without a mail server, and noted in the log: whole outside
 * production (a developer follows the link from there), recipient and subject only in production,
 * where the links in a mail must not reach the log.
 */
export function createMailer(opts: {
  smtpUrl?: string | undefined;
  from: string;
  dataDir: string;
  logger: Logger;
  production: boolean;
}): Mailer {
  if (opts.smtpUrl) {
    const smtpUrl = opts.smtpUrl;
    // The SMTP client is loaded with the first e-mail: most nodes send none for hours.
    const transport = loadOnce<Transporter>(() =>
      import('nodemailer').then(({ default: nodemailer }) =>
        // Bounded: nodemailer waits 2 minutes to connect and 10 for an idle socket, and callers wait on a send.
        nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }),
      ),
    );
    return {
      async send(mail) {
        await (await transport()).sendMail({ from: opts.from, ...mail });
      },
      close: () =>
        void transport.started()?.then(
          (t) => t.close(),
          () => {},
        ),
    };
  }
  const outbox = path.resolve(opts.dataDir, 'outbox.ndjson');
  mkdirSync(path.dirname(outbox), { recursive: true });
  return {
    async send(mail) {
      appendFileSync(outbox, `${JSON.stringify({ at: new Date().toISOString(), from: opts.from, ...mail })}\n`);
      const note = `e-mail (no SMTP_URL; kept in ${outbox}) to ${mail.to}: ${mail.subject}`;
      opts.logger.info(opts.production ? note : `${note}\n${mail.text}`);
    },
    close() {},
  };
}
