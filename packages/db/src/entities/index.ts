import { ApiToken } from './api-token.ts';
import { EmailToken } from './email-token.ts';
import { Invite } from './invite.ts';
import { Membership } from './membership.ts';
import { Session } from './session.ts';
import { Site } from './site.ts';
import { SiteHostname } from './site-hostname.ts';
import { SiteKey } from './site-key.ts';
import { User } from './user.ts';
import { Workspace } from './workspace.ts';

export { ApiToken, EmailToken, Invite, Membership, Session, Site, SiteHostname, SiteKey, User, Workspace };
export const entities = [User, Workspace, Membership, Session, ApiToken, EmailToken, Invite, Site, SiteHostname, SiteKey];
