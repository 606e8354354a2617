import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '../../src/core/env.ts';
import { connectRedis, redisTargetOf } from '../../src/core/hot/redis-connection.ts';

/** What the operator's settings make of Redis: one server, a cluster's nodes, or in-process state. */
describe('REDIS_URL and REDIS_CLUSTER_NODES', () => {
  const target = (env: Record<string, string>) => redisTargetOf(parseEnv(env));

  it('one URL is one Redis; neither setting is in-process state', () => {
    expect(target({ REDIS_URL: 'redis://cache:6379' })).toBe('redis://cache:6379');
    expect(target({})).toBeUndefined();
  });

  it('REDIS_CLUSTER_NODES, or several URLs in REDIS_URL, are the nodes of a Redis Cluster', () => {
    expect(target({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, 10.0.0.2:7000,10.0.0.3:7001' })).toEqual({
      cluster: ['10.0.0.1:7000', '10.0.0.2:7000', '10.0.0.3:7001'],
    });
    expect(target({ REDIS_URL: 'redis://a:7000,redis://b:7000' })).toEqual({ cluster: ['redis://a:7000', 'redis://b:7000'] });
    expect(target({ REDIS_CLUSTER_NODES: 'rediss://:secret@a.example:7000' })).toEqual({
      cluster: ['rediss://:secret@a.example:7000'],
    });
  });

  it('refuses both settings at once, and nodes without their ports', () => {
    expect(() => parseEnv({ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'b:7000' })).toThrow(ConfigError);
    expect(() => parseEnv({ REDIS_CLUSTER_NODES: 'a,b' })).toThrow(/REDIS_CLUSTER_NODES/);
    expect(() => parseEnv({ REDIS_URL: 'redis://a:6379,b:6379' })).toThrow(/REDIS_URL/);
  });

  it('a cluster client takes its nodes, and the password and TLS of a node given as a URL', async () => {
    const one = connectRedis('redis://127.0.0.1:9', { lazyConnect: true });
    expect(one).toBeInstanceOf(Redis);
    const cluster = connectRedis(
      { cluster: ['127.0.0.1:9', 'rediss://:s3cret@[::1]:10'] },
      { lazyConnect: true, keyPrefix: 'us:', commandTimeout: 500 },
    );
    expect(cluster).toBeInstanceOf(Cluster);
    const { options } = cluster as Cluster;
    expect(options.keyPrefix).toBe('us:');
    expect(options.scaleReads).toBe('master');
    expect(options.redisOptions).toMatchObject({ password: 's3cret', tls: {}, commandTimeout: 500 });
    one.disconnect();
    cluster.disconnect();
  });
});
