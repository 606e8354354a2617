import { describe, expect, it } from 'vitest';
import { confirmationMail, SITE_NAME_IN_MAIL } from '../../../src/features/reports/confirm-mail.ts';

/** The confirmation mail: its only text from the sender is the site's name, on one line and bounded. */
describe('report confirmation mail', () => {
  const mail = (siteName: string) =>
    confirmationMail({
      to: 'reader@example.com',
      siteName,
      frequency: 'weekly',
      link: 'https://app.example/confirm-report?token=t',
    });

  it(`cuts the site’s name to ${SITE_NAME_IN_MAIL} characters and one line`, () => {
    const long = `${'A very long site name '.repeat(10)}`;
    const m = mail(`${long}\r\nBcc: someone@example.com`);
    const shown = m.subject.replace(/^Confirm e-mail reports of /, '');
    expect([...shown].length).toBeLessThanOrEqual(SITE_NAME_IN_MAIL);
    expect(shown.endsWith('…')).toBe(true);
    expect(m.subject).not.toMatch(/[\r\n]/);
    expect(m.text).toContain(shown);
  });

  it('escapes the name in the HTML part and says what happens if nobody answers', () => {
    const m = mail('<img src=x onerror=alert(1)>');
    expect(m.html).not.toContain('<img');
    expect(m.html).toContain('&#60;img');
    expect(m.text).toContain('Nothing is sent to this address unless you confirm');
    expect(m.text).toContain('https://app.example/confirm-report?token=t');
  });
});
