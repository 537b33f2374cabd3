import assert from 'node:assert/strict';
import os from 'node:os';
import { cliActor } from '../../src/server/dashboard/usersCommand';

describe('users add: the audit actor (cliActor)', () => {
  it('is cli:<user>, the operating system user who ran it', () => {
    assert.equal(cliActor('alice'), 'cli:alice');
    assert.equal(cliActor('svc-dictee.ops_1'), 'cli:svc-dictee.ops_1');
    assert.equal(cliActor(), `cli:${os.userInfo().username}`);
  });

  it('is cli when the user has no name or one the audit filter does not take', () => {
    for (const user of ['', 'DOMAIN\\bob', 'a b', 'x'.repeat(65), 'é']) assert.equal(cliActor(user), 'cli', String(user));
  });
});
