import { type ReactNode, useEffect, useRef } from 'react';

let firstPage = true;

/**
 * A page body: sets the document title and, after a client-side navigation, moves focus to the
 * heading so screen readers announce the new page.
 */
export function Page({
  title,
  wide,
  children,
}: {
  title: string;
  /** true: room for tables; 'dash': the figure pages' full width, from the first paint (no shift when they load). */
  wide?: boolean | 'dash';
  children: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Unseen Stats`;
    if (firstPage) firstPage = false;
    else heading.current?.focus();
  }, [title]);
  return (
    <section className={wide === 'dash' ? 'page page-wide page-dash' : wide ? 'page page-wide' : 'page'}>
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </section>
  );
}
