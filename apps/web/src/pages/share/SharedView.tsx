import { DashboardBaseProvider } from '../sites/dashboard/base.tsx';
import { DashboardFigures } from '../sites/dashboard/DashboardFigures.tsx';
import { FullTableView } from '../sites/dashboard/full/FullTableView.tsx';
import type { OpenedView } from './openedViews.ts';
import { SharedDataProvider } from './SharedDataProvider.tsx';
import { SharedFrame } from './SharedFrame.tsx';

/** An opened shared link: the site's dashboard, or one of its tables in full, with the view's own calls. */
export function SharedView({
  token,
  view,
  dimension,
  onEnded,
}: {
  token: string;
  view: OpenedView;
  dimension: string | undefined;
  onEnded: (title: string) => void;
}) {
  const { site } = view;
  return (
    <SharedDataProvider view={view.view} onEnded={onEnded}>
      <DashboardBaseProvider path={`/share/${token}`}>
        {dimension ? (
          <FullTableView
            siteId={site.id}
            siteName={site.name}
            timezone={site.timezone}
            dimension={decodeURIComponent(dimension)}
            frame={(title, body) => (
              <SharedFrame figures title={title}>
                <div className="site-stack dash">{body}</div>
              </SharedFrame>
            )}
          />
        ) : (
          <SharedFrame figures title={`${site.name} dashboard`}>
            <div className="site-stack dash">
              <DashboardFigures siteId={site.id} timezone={site.timezone} installed />
            </div>
          </SharedFrame>
        )}
      </DashboardBaseProvider>
    </SharedDataProvider>
  );
}
