import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('the connection limits of the configuration', () => {
  it('gives one address half the global cap by default, connections and requests in flight alike', () => {
    expect(loadConfig({}).config?.limits).toMatchObject({ maxConnections: 512, maxConnectionsPerAddress: 256, maxInFlightPerAddress: 256 });
    expect(loadConfig({ PROMPTLINE_MAX_CONNECTIONS: '41' }).config?.limits).toMatchObject({ maxConnectionsPerAddress: 20, maxInFlightPerAddress: 20 });
    expect(loadConfig({ PROMPTLINE_MAX_CONNECTIONS: '0' }).config?.limits).toMatchObject({ maxConnectionsPerAddress: 0, maxInFlightPerAddress: 0 });
    expect(
      loadConfig({ PROMPTLINE_MAX_CONNECTIONS_PER_ADDRESS: '16', PROMPTLINE_MAX_IN_FLIGHT_PER_ADDRESS: '0' }).config?.limits,
    ).toMatchObject({ maxConnections: 512, maxConnectionsPerAddress: 16, maxInFlightPerAddress: 0 });
  });

  it('lists a bad cap or a proxy list that names no address', () => {
    const { config, errors } = loadConfig({
      PROMPTLINE_MAX_CONNECTIONS_PER_ADDRESS: 'many',
      PROMPTLINE_MAX_IN_FLIGHT_PER_ADDRESS: '-1',
      PROMPTLINE_TRUST_PROXY: 'loopback,10.0.0.0/33',
    });
    expect(config).toBeNull();
    expect(errors).toEqual([
      'PROMPTLINE_MAX_CONNECTIONS_PER_ADDRESS="many" is invalid: expected an integer (0 for no cap)',
      'PROMPTLINE_MAX_IN_FLIGHT_PER_ADDRESS="-1" is invalid: expected an integer (0 for no cap)',
      'PROMPTLINE_TRUST_PROXY="loopback,10.0.0.0/33" is invalid: expected "on", "off", or proxy addresses/CIDRs (or loopback, linklocal, uniquelocal) separated by commas',
    ]);
  });
});
