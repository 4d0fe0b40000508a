import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import { type AddressInfo, isIP, type LookupFunction } from 'node:net';
import { after, before, test } from 'node:test';
import { AddressRefusedError, guardedLookup, OutboundHttpClient } from '../../src/adapters/outbound-http.ts';

/** A DNS that answers every name with these addresses, as dns.lookup does with `all`. */
function answering(...addresses: string[]): LookupFunction {
  return (_hostname, _options, callback) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: isIP(address) })),
    );
}

/** A real receiver on every loopback address (127.0.0.1 and ::1), counting the connections made to it. */
let port = 0;
let connections = 0;
const server = createServer((_request, response) => response.end('reached'));
server.on('connection', () => {
  connections += 1;
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Fetches through the client; returns the body, or the error the connection failed with. */
async function get(client: OutboundHttpClient, url: string): Promise<string | Error> {
  try {
    return await (await client.fetch(url)).text();
  } catch (error) {
    return (error as Error).cause as Error;
  }
}

function assertRefused(outcome: string | Error, pattern: RegExp): void {
  assert.ok(outcome instanceof AddressRefusedError, `refused, got ${String(outcome)}`);
  assert.match(outcome.message, pattern);
}

test('a name answering a non-public address is refused at connect time, before any connection', async () => {
  const cases: [string[], RegExp][] = [
    [['127.0.0.1'], /resolves to 127\.0\.0\.1, not a public internet address \(loopback\)/],
    [['::1'], /::1.*\(loopback\)/],
    [['169.254.169.254'], /169\.254\.169\.254.*\(linkLocal\)/],
    [['fe80::1'], /fe80::1.*\(linkLocal\)/],
    [['10.0.0.1'], /\(private\)/],
    [['172.16.5.4'], /\(private\)/],
    [['192.168.1.1'], /\(private\)/],
    [['fc00::1'], /\(uniqueLocal\)/],
    [['100.64.0.1'], /\(carrierGradeNat\)/],
    [['0.0.0.0'], /\(unspecified\)/],
    [['::ffff:127.0.0.1'], /::ffff:127\.0\.0\.1.*\(loopback\)/],
    // One bad address among several refuses the name: the connection could go to any of them.
    [['93.184.216.34', '127.0.0.1'], /127\.0\.0\.1.*\(loopback\)/],
  ];
  for (const [addresses, pattern] of cases) {
    const client = new OutboundHttpClient({ lookup: answering(...addresses) });
    assertRefused(await get(client, `http://hooks.example.test:${port}/`), pattern);
    assertRefused(await get(client, `https://hooks.example.test:${port}/`), pattern);
  }
  assert.equal(connections, 0);
});

test('an IP literal outside public unicast is refused without a lookup, before any connection', async () => {
  const client = new OutboundHttpClient({
    lookup: () => assert.fail('an IP literal is not looked up'),
  });
  for (const [host, range] of [
    ['127.0.0.1', 'loopback'],
    ['[::1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['10.1.2.3', 'private'],
    ['[fd00::2]', 'uniqueLocal'],
  ]) {
    assertRefused(await get(client, `http://${host}:${port}/`), new RegExp(`\\(${range}\\)`));
  }
  assertRefused(await get(new OutboundHttpClient(), `http://localhost:${port}/`), /loopback/);
  assert.equal(connections, 0);
});

test('a client allowing loopback connects to the address its lookup answered, nothing else private', async () => {
  const before = connections;
  const client = new OutboundHttpClient({ allowLoopback: true, lookup: answering('127.0.0.1') });
  assert.equal(await get(client, `http://hooks.example.test:${port}/`), 'reached');
  assert.equal(await get(client, `http://[::1]:${port}/`), 'reached');
  assert.equal(
    await get(
      new OutboundHttpClient({ allowLoopback: true, lookup: answering('::1') }),
      `http://x.test:${port}/`,
    ),
    'reached',
  );
  assert.equal(connections, before + 3);
  for (const address of ['169.254.169.254', '10.0.0.1', 'fe80::1']) {
    const refusing = new OutboundHttpClient({ allowLoopback: true, lookup: answering(address) });
    assertRefused(await get(refusing, `http://hooks.example.test:${port}/`), /not a public internet address/);
  }
  assert.equal(connections, before + 3);
});

test('a public answer passes the guard unchanged, so the connection goes to it', async () => {
  const lookup = guardedLookup(answering('93.184.216.34', '2606:4700::1'), false);
  const answer = (all: boolean) =>
    new Promise<[Error | null, string | LookupAddress[], number | undefined]>((resolve) =>
      lookup('hooks.example.com', { all }, (error, address, family) => resolve([error, address, family])),
    );
  assert.deepEqual(await answer(true), [
    null,
    [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ],
    undefined,
  ]);
  assert.deepEqual(await answer(false), [null, '93.184.216.34', 4]);
});

test('a name that does not resolve fails with the resolver’s error', async () => {
  const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
  const client = new OutboundHttpClient({
    lookup: (_hostname, _options, callback) => callback(notFound, ''),
  });
  assert.equal(await get(client, `http://nowhere.example:${port}/`), notFound);
  assert.equal(
    (
      (await get(new OutboundHttpClient({ lookup: answering() }), `http://empty.example:${port}/`)) as {
        code?: string;
      }
    ).code,
    'ENOTFOUND',
  );
});
