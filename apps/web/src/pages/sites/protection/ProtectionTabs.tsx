import { type KeyboardEvent, type ReactNode, useRef } from 'react';
import { setSearch, useQueryParam } from '../../../router.tsx';

/** The Protection page's tabs, each its own address (`?tab=`; Settings has none), so links and Back work. */
export const TABS = [
  { key: 'settings', label: 'Settings' },
  { key: 'decisions', label: 'Decisions' },
  { key: 'ai-traffic', label: 'AI traffic' },
  { key: 'try', label: 'Try a request' },
] as const;
export type TabKey = (typeof TABS)[number]['key'];

const isTab = (v: string | null): v is TabKey => TABS.some((t) => t.key === v);

/** The address of a tab of the current site's Protection page (relative to the page). */
export const tabHref = (siteId: string, tab: TabKey) =>
  `/sites/${encodeURIComponent(siteId)}/protection${tab === 'settings' ? '' : `?tab=${tab}`}`;

/** The tab the address names; an unknown or missing `tab` is Settings. */
export function useProtectionTab(): TabKey {
  const tab = useQueryParam('tab');
  return isTab(tab) ? tab : 'settings';
}

/** Shows `tab`: a new history entry, the rest of the query string kept, the scroll position too. */
export function openTab(tab: TabKey) {
  const params = new URLSearchParams(window.location.search);
  if (tab === 'settings') params.delete('tab');
  else params.set('tab', tab);
  setSearch(params);
}

const tabId = (key: TabKey) => `protection-tab-${key}`;
const panelId = (key: TabKey) => `protection-panel-${key}`;

/**
 * The tab list (WAI-ARIA tabs, automatic activation): one tab stop, the selected tab; arrow keys, Home and
 * End move to another tab and open it.
 */
export function ProtectionTabList({ current, opened }: { current: TabKey; opened: ReadonlySet<TabKey> }) {
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = TABS.findIndex((t) => t.key === current);
    const last = TABS.length - 1;
    const to =
      e.key === 'ArrowRight'
        ? (at + 1) % TABS.length
        : e.key === 'ArrowLeft'
          ? (at + last) % TABS.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? last
              : null;
    const next = to === null ? undefined : TABS[to];
    if (!next) return;
    e.preventDefault();
    openTab(next.key);
    list.current?.querySelector<HTMLElement>(`#${tabId(next.key)}`)?.focus();
  };
  return (
    <div ref={list} className="protection-tabs" role="tablist" aria-label="Protection" onKeyDown={onKeyDown}>
      {TABS.map((t) => {
        const on = t.key === current;
        return (
          <button
            key={t.key}
            id={tabId(t.key)}
            type="button"
            role="tab"
            aria-selected={on}
            // Only a panel on the page can be named: panels are mounted when first opened.
            aria-controls={opened.has(t.key) ? panelId(t.key) : undefined}
            tabIndex={on ? 0 : -1}
            className={on ? 'protection-tab protection-tab-on' : 'protection-tab'}
            onClick={() => {
              if (!on) openTab(t.key);
            }}
          >
            {t.label}
          </button>
        );
      })}
    </div>
  );
}

/**
 * One tab's panel. A panel stays mounted once opened (hidden while another tab is shown), so what was typed,
 * run or picked there is still there on coming back.
 */
export function ProtectionTabPanel({
  tab,
  current,
  opened,
  children,
}: {
  tab: TabKey;
  current: TabKey;
  opened: ReadonlySet<TabKey>;
  children: ReactNode;
}) {
  if (tab !== current && !opened.has(tab)) return null;
  return (
    <div
      id={panelId(tab)}
      role="tabpanel"
      aria-labelledby={tabId(tab)}
      hidden={tab !== current}
      className="site-stack protection-panel"
      data-testid={`protection-panel-${tab}`}
    >
      {children}
    </div>
  );
}
