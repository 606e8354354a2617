import { ApiToken } from './api-token.ts';
import { EmailToken } from './email-token.ts';
import { Membership } from './membership.ts';
import { Session } from './session.ts';
import { User } from './user.ts';
import { Workspace } from './workspace.ts';

export { ApiToken, EmailToken, Membership, Session, User, Workspace };
export const entities = [User, Workspace, Membership, Session, ApiToken, EmailToken];
