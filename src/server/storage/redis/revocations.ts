/**
 * Revocation across instances over Redis pub/sub: the instance that revokes a key publishes its id on
 * one channel; every instance (itself included) ends the key's live sessions when the message arrives,
 * well within a second. An announcement that cannot be published (Redis down) is published again once
 * Redis is back; an instance whose subscription was cut may have missed some, so it re-checks the keys
 * of its live sessions (`resync`) each time the subscription is back.
 */
import type { Redis } from 'ioredis';
import type { ServerLogger } from '../../log';
import type { RevocationFeed } from '../stores';
import type { RedisLink } from './connect';

const REVOCATION_CHANNEL = 'dictee:revocations';

export class RedisRevocations implements RevocationFeed {
  private readonly unsent = new Set<string>();

  constructor(
    private readonly link: RedisLink,
    /** A connection of its own: a subscribed connection runs no other command. */
    private readonly subscriber: Redis,
    private readonly log: ServerLogger,
  ) {
    link.redis.on('ready', () => void this.flush());
  }

  async announce(keyId: string): Promise<void> {
    this.unsent.add(keyId);
    await this.flush();
  }

  private async flush(): Promise<void> {
    for (const keyId of [...this.unsent]) {
      try {
        await this.link.redis.publish(REVOCATION_CHANNEL, keyId);
        this.unsent.delete(keyId);
      } catch (e) {
        this.log.error('revocation not yet announced to the other instances (Redis unreachable); it will be once Redis is back', {
          key_id: keyId,
          error: e,
        });
        return;
      }
    }
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
    await this.subscriber.subscribe(REVOCATION_CHANNEL);
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
  }
}
