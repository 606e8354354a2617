import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatCount, formatPeriod } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { DaysPicker } from './DaysPicker.tsx';
import { useAiTraffic } from './data.ts';
import { type AiTraffic, CATEGORIES } from './types.ts';

const categoryLabel = (c: string) => CATEGORIES.find((x) => x.value === c)?.label ?? c;

/**
 * Per page: which AI crawlers read it (training, search, assistant) beside how many people AI assistants
 * and AI search sent to it, so AI bots can be let in or kept out from evidence.
 */
export function AiTrafficCard({ siteId, days, onDays }: { siteId: string; days: number; onDays: (days: number) => void }) {
  const traffic = useAiTraffic(siteId, days);
  const data = traffic.data;
  return (
    <Card title="AI traffic per page" aside={<DaysPicker id="ai-days" days={days} onChange={onDays} />}>
      <p className="card-intro">
        What AI crawlers read, beside the people AI assistants and AI search sent: a crawler that reads much and sends no one may
        be one to keep out.
      </p>
      {traffic.isError && <Notice tone="error">{toProblem(traffic.error).title}</Notice>}
      {traffic.isPending && <p className="loading">Loading…</p>}
      {data && <AiTrafficBody data={data} busy={traffic.isFetching} />}
    </Card>
  );
}

function AiTrafficBody({ data, busy }: { data: AiTraffic; busy: boolean }) {
  const t = data.totals;
  return (
    <div className="ai-traffic" aria-busy={busy} data-testid="ai-traffic">
      <ul className="dash-legend" aria-label="AI traffic in the period">
        <li>
          AI crawler requests <strong>{formatCount(t.crawls)}</strong>
          <span className="muted">
            ({formatCount(t.training)} training, {formatCount(t.search)} search, {formatCount(t.assistant)} assistant)
          </span>
        </li>
        <li>
          Pageviews sent by AI <strong>{formatCount(t.referred.pageviews)}</strong>
          <span className="muted">
            ({formatCount(t.referred.assistant)} from assistants, {formatCount(t.referred.search)} from AI search)
          </span>
        </li>
        <li className="muted">{formatPeriod(data.from, data.to)}</li>
      </ul>
      {data.pages.length === 0 ? (
        <p className="site-none">No AI crawler read a page, and no one came from an AI service, in this period.</p>
      ) : (
        <div className="site-table-wrap">
          <table className="site-table ai-pages" aria-label="AI traffic per page">
            <thead>
              <tr>
                <th scope="col">Page</th>
                <th scope="col" className="num">
                  AI crawls
                </th>
                <th scope="col">Crawlers</th>
                <th scope="col" className="num">
                  People sent by AI
                </th>
                <th scope="col" className="fit">
                  From
                </th>
              </tr>
            </thead>
            <tbody>
              {data.pages.map((p) => (
                <tr key={p.path}>
                  <th scope="row" className="site-cell-main">
                    <code>{p.path}</code>
                  </th>
                  <td className="num">{formatCount(p.crawls)}</td>
                  <td>
                    {p.crawlers.length
                      ? p.crawlers.map((c) => `${c.name} (${categoryLabel(c.category)}) ${formatCount(c.count)}`).join(', ')
                      : '—'}
                  </td>
                  <td className="num">{formatCount(p.referred.pageviews)}</td>
                  <td className="fit">
                    {p.referred.pageviews
                      ? [
                          p.referred.assistant ? `${formatCount(p.referred.assistant)} assistants` : null,
                          p.referred.search ? `${formatCount(p.referred.search)} AI search` : null,
                        ]
                          .filter(Boolean)
                          .join(', ')
                      : '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {data.truncated && <p className="muted small">Only the pages with the most AI traffic are shown.</p>}
        </div>
      )}
      {(data.crawlers.length > 0 || data.sources.length > 0) && (
        <div className="protection-tables protection-tables-pair">
          <div className="site-table-wrap">
            <table className="site-table" aria-label="AI crawlers">
              <thead>
                <tr>
                  <th scope="col">AI crawler</th>
                  <th scope="col">Category</th>
                  <th scope="col" className="num">
                    Requests
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.crawlers.map((c) => (
                  <tr key={`${c.name}|${c.category}`}>
                    <th scope="row">{c.name}</th>
                    <td>{categoryLabel(c.category)}</td>
                    <td className="num">{formatCount(c.count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="site-table-wrap">
            <table className="site-table" aria-label="AI services that sent people">
              <thead>
                <tr>
                  <th scope="col">AI service</th>
                  <th scope="col">Kind</th>
                  <th scope="col" className="num">
                    Pageviews
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.sources.map((s) => (
                  <tr key={s.host}>
                    <th scope="row">{s.host}</th>
                    <td>{s.kind === 'assistant' ? 'Assistant' : 'AI search'}</td>
                    <td className="num">{formatCount(s.pageviews)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
      <details className="disclosure">
        <summary>Which services count as AI</summary>
        <p className="small">
          A human pageview counts as sent by AI when its referrer (or its utm_source) is one of: assistants{' '}
          {data.referrers.assistant.join(', ')}; AI search {data.referrers.search.join(', ')}. AI crawlers are requests of bots in
          the AI training, AI search and AI assistant categories.
        </p>
      </details>
    </div>
  );
}
