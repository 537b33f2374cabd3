/**
 * Revocation across instances over Redis pub/sub: the instance that revokes a key publishes its id on
 * one channel; every instance (itself included) ends the key's live sessions when the message arrives,
 * well within a second. The revocation itself is in the key store before it is announced, with its
 * announcement marked pending in the same transaction (`KeyStore.pendingRevocations`): an announcement
 * that cannot be published (Redis down) is published once Redis is back, by whichever instance sees it
 * back first (or starts next), even if the instance that revoked the key stopped meanwhile; publishing one
 * twice is harmless. An instance whose subscription was cut may have missed some, so it re-checks the keys
 * of its live sessions (`resync`) each time the subscription is back.
 */
import type { Redis } from 'ioredis';
import type { ServerLogger } from '../../log';
import type { KeyStore, RevocationFeed } from '../stores';
import type { RedisLink } from './connect';

const REVOCATION_CHANNEL = 'dictee:revocations';
/** Sessions an administrator ended (`DELETE /v1/sessions/<id>`): the instance holding one ends it. */
const SESSION_END_CHANNEL = 'dictee:session-ends';

/** How soon the pending announcements are read again when the key store could not be read. */
const RETRY_MS = 2000;

type PendingRevocations = Pick<KeyStore, 'pendingRevocations' | 'revocationAnnounced'>;

export class RedisRevocations implements RevocationFeed {
  /** Announced through this instance and not yet published (also pending in the key store). */
  private readonly unsent = new Set<string>();
  private flushing: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** Whether the failure to publish was logged since the last success. */
  private told = false;

  constructor(
    private readonly link: RedisLink,
    /** A connection of its own: a subscribed connection runs no other command. */
    private readonly subscriber: Redis,
    private readonly pending: PendingRevocations,
    private readonly log: ServerLogger,
  ) {
    link.redis.on('ready', () => void this.flush());
  }

  async announce(keyId: string): Promise<void> {
    this.unsent.add(keyId);
    await this.flush();
  }

  /** Publishes what is pending, here and in the key store (one flush at a time). */
  private flush(): Promise<void> {
    this.flushing ??= this.publishPending().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async publishPending(): Promise<void> {
    let stored: string[] = [];
    try {
      stored = await this.pending.pendingRevocations();
    } catch (e) {
      this.log.warn('could not read the revocations still to announce; trying again', { error: e });
      this.retryLater();
    }
    for (const keyId of new Set([...this.unsent, ...stored])) {
      try {
        await this.link.redis.publish(REVOCATION_CHANNEL, keyId);
      } catch (e) {
        if (!this.told) {
          this.told = true;
          this.log.error('revocation not yet announced to the other instances (Redis unreachable); it will be once Redis is back', {
            key_id: keyId,
            error: e,
          });
        }
        return;
      }
      this.told = false;
      this.unsent.delete(keyId);
      this.log.info('revocation announced to every instance', { key_id: keyId });
      // Should this fail, the announcement stays pending and is published again later: harmless.
      await this.pending.revocationAnnounced(keyId).catch(() => this.retryLater());
    }
  }

  private retryLater(): void {
    if (this.retry || this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.link.up) void this.flush();
    }, RETRY_MS);
    this.retry.unref();
  }

  /** Not kept when Redis is unreachable: the DELETE then answers that the session is still live. */
  async announceSessionEnd(sessionId: string): Promise<void> {
    await this.link.redis.publish(SESSION_END_CHANNEL, sessionId);
  }

  onSessionEnd(end: (sessionId: string) => void): void {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === SESSION_END_CHANNEL) end(message);
    });
  }

  /** After `start()`: every later `ready` is a reconnection. */
  subscribe(revoked: (keyId: string) => void, resync: () => void): void {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === REVOCATION_CHANNEL) revoked(message);
    });
    // ioredis subscribes again by itself after a reconnection; what was published meanwhile is lost to us.
    this.subscriber.on('ready', resync);
  }

  /** Connects and subscribes (at start, before `subscribe`). */
  async start(): Promise<void> {
    await this.subscriber.connect();
    await this.subscriber.subscribe(REVOCATION_CHANNEL, SESSION_END_CHANNEL);
    // Revocations an instance could not announce before it stopped.
    void this.flush();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.flushing;
    this.subscriber.disconnect();
  }
}
