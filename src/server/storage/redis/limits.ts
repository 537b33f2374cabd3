/**
 * The `Limits` of stores.ts in Redis, one count for every instance:
 *
 * - rate: a sliding-window log per key (a sorted set of request times), checked and counted by one Lua
 *   script, so two instances never both take the last request of a window; times are Redis's clock;
 * - failed master-key attempts, and failed API-key attempts, per client address: the same window, counted
 *   the same way (two counts);
 * - concurrency: per organisation, a sorted set of the sessions holding a slot, scored by when their lease
 *   ends, and a hash of which instance holds each. The holding instance renews its leases every
 *   `leaseMs / 3`; the slots of an instance that died are free again when their leases end (`leaseMs`).
 *   A session resumed on another instance takes its slot over (as a take-over does in one process).
 *
 * While Redis is unreachable, the failed master-key attempts count in this instance (so that key management,
 * a revocation above all, still works), and taking a rate token or a slot fails with BackendUnavailableError (the
 * request gets INTERNAL_ERROR with `retry_after_ms`); live sessions go on, and their leases are renewed
 * (re-taken if Redis lost them) once it is back.
 */
import { createHash, randomBytes } from 'node:crypto';
import { MASTER_KEY_FAILURES, MASTER_KEY_WINDOW_MS, RateLimiter } from '../limits';
import type { ServerLogger } from '../../log';
import type { Limits, RateDecision } from '../stores';
import type { RedisLink } from './connect';
import { checkWhole } from '../../../shared/options';

const PREFIX = 'dictee:';

/** A sliding window (KEYS[1], ARGV limit and window ms): the wait in ms before one more request fits, 0 when it does. */
const WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
local wait = 0
if n >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  wait = math.max(1, tonumber(oldest[2]) + window - now)
end`;

/** The window's wait, without counting. */
const WAIT_SCRIPT = `${WINDOW}
return wait`;

/** KEYS[1] the log; ARGV limit, window ms, a unique member. Counts the request if it fits: returns 0 (counted) or the wait in ms. */
const RATE_SCRIPT = `${WINDOW}
if wait > 0 then return wait end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 0`;

/** Drops expired leases (shared by the slot scripts). */
const EXPIRE_LEASES = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
if #expired > 0 then
  redis.call('ZREM', KEYS[1], unpack(expired))
  redis.call('HDEL', KEYS[2], unpack(expired))
end`;

/** KEYS slots, holders; ARGV session, holder, limit, lease ms. Returns 1 (held) or 0 (none free). */
const ACQUIRE_SCRIPT = `${EXPIRE_LEASES}
local lease = tonumber(ARGV[4])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], lease * 4)
redis.call('PEXPIRE', KEYS[2], lease * 4)
return 1`;

/** KEYS slots, holders; ARGV session, holder. Frees the slot if this holder has it. */
const RELEASE_SCRIPT = `
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
end
return 0`;

/**
 * KEYS slots, holders; ARGV holder, limit, lease ms, then the sessions. Extends the leases this holder has;
 * a lease Redis lost (it ended, or Redis restarted empty) is taken again if a slot is free. Returns the
 * sessions whose slot another instance holds now (`t:` + id) and those waiting for a free slot (`n:` + id).
 */
const RENEW_SCRIPT = `${EXPIRE_LEASES}
local lease = tonumber(ARGV[3])
local lost = {}
for i = 4, #ARGV do
  local s = ARGV[i]
  local holder = redis.call('HGET', KEYS[2], s)
  if holder == ARGV[1] then
    redis.call('ZADD', KEYS[1], 'XX', now + lease, s)
  elseif holder then
    table.insert(lost, 't:' .. s)
  elseif redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
    redis.call('ZADD', KEYS[1], now + lease, s)
    redis.call('HSET', KEYS[2], s, ARGV[1])
  else
    table.insert(lost, 'n:' .. s)
  end
end
redis.call('PEXPIRE', KEYS[1], lease * 4)
redis.call('PEXPIRE', KEYS[2], lease * 4)
return lost`;

/** A Lua script run by its SHA-1 (EVALSHA), sent whole only when Redis does not have it yet. */
class Script {
  private readonly sha: string;
  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }
  async run(link: RedisLink, keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await link.redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (e) {
      if (!(e instanceof Error && e.message.startsWith('NOSCRIPT'))) throw e;
      return link.redis.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}

const RATE = new Script(RATE_SCRIPT);
const WAIT = new Script(WAIT_SCRIPT);
const ACQUIRE = new Script(ACQUIRE_SCRIPT);
const RELEASE = new Script(RELEASE_SCRIPT);
const RENEW = new Script(RENEW_SCRIPT);

const uniqueMember = (): string => `${Date.now()}-${randomBytes(6).toString('base64url')}`;

const slotKeys = (orgId: string): [string, string] => [`${PREFIX}slots:{${orgId}}`, `${PREFIX}slot-holders:{${orgId}}`];

interface RedisLimitsOptions {
  link: RedisLink;
  rateLimit: number;
  rateWindowMs: number;
  concurrencyLimit: number;
  /** How long a slot's lease lasts without renewal (the slots of a dead instance are free after this). */
  leaseMs: number;
  /** This instance (unique per process: the holder of its slots). */
  holder: string;
  /** Failed master-key (and, apart, API-key) attempts allowed per client address per minute (default 10). */
  authFailureLimit?: number;
  log: ServerLogger;
}

export class RedisLimits implements Limits {
  readonly rateLimit: number;
  readonly rateWindowMs: number;
  readonly concurrencyLimit: number;
  readonly authFailureLimit: number;
  /** The slots this instance holds: organisation → sessions. */
  private readonly held = new Map<string, Set<string>>();
  private readonly renewTimer: NodeJS.Timeout;
  private renewing = false;
  /** Failed master-key attempts counted here too, for when Redis is unreachable. */
  private readonly localMasterFailures: RateLimiter;
  /** Failed API-key attempts counted here too, for when Redis is unreachable. */
  private readonly localKeyFailures: RateLimiter;
  /** Sessions whose lease ended while the organisation was at its limit (told once). */
  private readonly waiting = new Set<string>();

  constructor(private readonly o: RedisLimitsOptions) {
    checkWhole('rateLimit', o.rateLimit, 1);
    checkWhole('rateWindowMs', o.rateWindowMs, 1);
    checkWhole('concurrencyLimit', o.concurrencyLimit, 1);
    checkWhole('leaseMs', o.leaseMs, 3);
    this.rateLimit = o.rateLimit;
    this.rateWindowMs = o.rateWindowMs;
    this.concurrencyLimit = o.concurrencyLimit;
    this.authFailureLimit = o.authFailureLimit ?? MASTER_KEY_FAILURES;
    checkWhole('authFailureLimit', this.authFailureLimit, 1);
    this.localMasterFailures = new RateLimiter(this.authFailureLimit, MASTER_KEY_WINDOW_MS);
    this.localKeyFailures = new RateLimiter(this.authFailureLimit, MASTER_KEY_WINDOW_MS);
    this.renewTimer = setInterval(() => void this.renew(), Math.max(100, Math.floor(o.leaseMs / 3)));
  }

  private async run<T>(script: Script, keys: string[], args: Array<string | number>): Promise<T> {
    try {
      return (await script.run(this.o.link, keys, args)) as T;
    } catch (e) {
      throw this.o.link.failure(e);
    }
  }

  async takeRate(keyId: string): Promise<RateDecision> {
    const wait = await this.run<number>(RATE, [`${PREFIX}rate:{${keyId}}`], [this.rateLimit, this.rateWindowMs, uniqueMember()]);
    return wait === 0 ? { allowed: true } : { allowed: false, retryAfterMs: wait };
  }

  /**
   * Failed master-key attempts per address, one window for every instance (as in limits.ts). While Redis is
   * unreachable, this instance's own window counts instead: key management (a revocation above all) must
   * work during a Redis outage, and the failures are still limited, per instance.
   */
  masterKeyWait(address: string): Promise<number> {
    return this.failureWait('master-failures', this.localMasterFailures, address);
  }

  masterKeyFailed(address: string): Promise<void> {
    return this.failed('master-failures', this.localMasterFailures, address);
  }

  /** Failed API-key attempts per address, the same way (counted apart from the master key's). */
  keyFailureWait(address: string): Promise<number> {
    return this.failureWait('key-failures', this.localKeyFailures, address);
  }

  keyFailed(address: string): Promise<void> {
    return this.failed('key-failures', this.localKeyFailures, address);
  }

  /** The wait before `address` may try again: from Redis, or from this instance's window when Redis fails. */
  private async failureWait(kind: string, local: RateLimiter, address: string): Promise<number> {
    try {
      return await this.run<number>(WAIT, [`${PREFIX}${kind}:{${address}}`], [this.authFailureLimit, MASTER_KEY_WINDOW_MS]);
    } catch (e) {
      // Also a command that failed as the connection was being lost, before it is known to be down.
      this.o.log.debug('failed attempts counted in this instance (Redis unreachable)', { kind, error: e });
      return local.wait(address);
    }
  }

  /** One failure of `address`: counted here (for an outage) and in Redis. */
  private async failed(kind: string, local: RateLimiter, address: string): Promise<void> {
    local.take(address);
    try {
      await this.run(RATE, [`${PREFIX}${kind}:{${address}}`], [this.authFailureLimit, MASTER_KEY_WINDOW_MS, uniqueMember()]);
    } catch (e) {
      this.o.log.debug('a failed attempt counted in this instance only (Redis unreachable)', { kind, error: e });
    }
  }

  async acquireSlot(orgId: string, sessionId: string): Promise<boolean> {
    const ok = (await this.run<number>(ACQUIRE, slotKeys(orgId), [sessionId, this.o.holder, this.concurrencyLimit, this.o.leaseMs])) === 1;
    if (ok) {
      let set = this.held.get(orgId);
      if (!set) this.held.set(orgId, (set = new Set()));
      set.add(sessionId);
    }
    return ok;
  }

  releaseSlot(orgId: string, sessionId: string): void {
    const set = this.held.get(orgId);
    this.waiting.delete(sessionId);
    if (!set?.delete(sessionId)) return;
    if (set.size === 0) this.held.delete(orgId);
    // A release that fails (Redis down) is not retried: the lease, no longer renewed, ends by itself.
    this.run(RELEASE, slotKeys(orgId), [sessionId, this.o.holder]).catch(() => undefined);
  }

  /** Slots this instance holds for an organisation. */
  slotsHeld(orgId: string): number {
    return this.held.get(orgId)?.size ?? 0;
  }

  sweep(): void {
    this.localMasterFailures.sweep();
    this.localKeyFailures.sweep();
  }

  private async renew(): Promise<void> {
    if (this.renewing || !this.o.link.up) return;
    this.renewing = true;
    try {
      for (const [orgId, set] of [...this.held]) {
        if (!set.size) continue;
        const lost = await this.run<string[]>(RENEW, slotKeys(orgId), [this.o.holder, this.concurrencyLimit, this.o.leaseMs, ...set]);
        for (const entry of lost) {
          const s = entry.slice(2);
          if (entry.startsWith('t:')) {
            // Resumed on another instance, which holds the slot now; the journal ends the session here.
            set.delete(s);
          } else if (!this.waiting.has(s)) {
            this.waiting.add(s);
            this.o.log.warn(
              'concurrency slot lost (its lease ended, and the organisation is at its limit): the session goes on and takes a slot again when one is free',
              { session_id: s, org_id: orgId },
            );
          }
        }
        for (const s of this.waiting) if (!lost.includes(`n:${s}`) && set.has(s)) this.waiting.delete(s);
      }
    } catch (e) {
      this.o.log.debug('slot leases not renewed', { error: e });
    } finally {
      this.renewing = false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.renewTimer);
    const releases = [...this.held].flatMap(([orgId, set]) =>
      [...set].map((s) => this.run(RELEASE, slotKeys(orgId), [s, this.o.holder]).catch(() => undefined)),
    );
    this.held.clear();
    await Promise.all(releases);
  }
}
