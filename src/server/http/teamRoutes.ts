/** The paths of the team endpoints (orgs.ts, projects.ts) and of a key's roll; routes.ts asks here first. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rollKey } from './keys';
import { createOrg, createPerson, deletePerson, getPerson, listOrgs, listPeople, updateOrg, updatePerson } from './orgs';
import { addMember, createProject, getProject, listProjects, removeMember } from './projects';
import type { ApiContext } from './context';
import { HttpError, decodePathSegment } from './util';

const TEAM_PATHS = { orgs: '/v1/orgs', people: '/v1/people', projects: '/v1/projects' } as const;

/** Serves `path` when it is one of these endpoints (true), else leaves it to the caller (false). */
export async function teamRoute(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<boolean> {
  const method = req.method ?? 'GET';
  const allow = (...allowed: string[]): void => {
    if (!allowed.includes(method)) throw HttpError.methodNotAllowed(method, allowed);
  };
  const parts = path.split('/').slice(1); // ['v1', 'orgs', …]
  if (parts[0] !== 'v1' || parts.length < 2) return false;
  const rest = parts.slice(2).map(decodePathSegment);
  switch (parts[1]) {
    case 'api-keys':
      if (rest.length === 2 && rest[1] === 'roll') {
        allow('POST');
        await rollKey(ctx, req, rest[0]!, res);
        return true;
      }
      return false;
    case 'orgs':
      if (rest.length === 0) {
        allow('GET', 'POST');
        await (method === 'POST' ? createOrg(ctx, req, res) : listOrgs(ctx, req, res));
        return true;
      }
      if (rest.length === 1) {
        allow('PATCH');
        await updateOrg(ctx, req, rest[0]!, res);
        return true;
      }
      return false;
    case 'people':
      if (rest.length === 0) {
        allow('GET', 'POST');
        await (method === 'POST' ? createPerson(ctx, req, res) : listPeople(ctx, req, url, res));
        return true;
      }
      if (rest.length === 1) {
        allow('GET', 'PATCH', 'DELETE');
        const id = rest[0]!;
        await (method === 'GET'
          ? getPerson(ctx, req, id, res)
          : method === 'PATCH'
            ? updatePerson(ctx, req, id, res)
            : deletePerson(ctx, req, id, res));
        return true;
      }
      return false;
    case 'projects':
      if (rest.length === 0) {
        allow('GET', 'POST');
        await (method === 'POST' ? createProject(ctx, req, res) : listProjects(ctx, req, url, res));
        return true;
      }
      if (rest.length === 1) {
        allow('GET');
        await getProject(ctx, req, rest[0]!, url, res);
        return true;
      }
      if (rest[1] === 'members' && rest.length === 2) {
        allow('POST');
        await addMember(ctx, req, rest[0]!, url, res);
        return true;
      }
      if (rest[1] === 'members' && rest.length === 3) {
        allow('DELETE');
        await removeMember(ctx, req, rest[0]!, rest[2]!, url, res);
        return true;
      }
      return false;
    default:
      return false;
  }
}
