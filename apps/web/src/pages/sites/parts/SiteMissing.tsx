import { Link } from '../../../router.tsx';
import { SitesFrame } from './SitesFrame.tsx';

/** A site page of an unknown (or another workspace's) site. */
export function SiteMissing() {
  return (
    <SitesFrame title="No such site">
      <div className="card site-missing">
        <p>
          <strong>No such site in this workspace.</strong> It may have been deleted, or it belongs to another workspace: switch
          workspaces in the header to look there.
        </p>
        <p>
          <Link to="/sites">See all sites of this workspace</Link>
        </p>
      </div>
    </SitesFrame>
  );
}
