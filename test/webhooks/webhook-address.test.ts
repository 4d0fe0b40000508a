import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/domain/shared/errors.ts';
import { checkEventSelection, eventGroups } from '../../src/domain/webhooks/event-selection.ts';
import {
  type AddressRules,
  checkPublicHost,
  checkWebhookUrl,
} from '../../src/domain/webhooks/webhook-address.ts';

const strict: AddressRules = { allowInsecure: false };
const insecure: AddressRules = { allowInsecure: true };

async function refusedWith(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.param, 'url');
    assert.match(error.message, pattern);
    return true;
  });
}

test('an address is an https URL of at most 500 characters without credentials', async () => {
  await checkWebhookUrl('https://93.184.216.34/hooks/servery', strict);
  await refusedWith(checkWebhookUrl('http://93.184.216.34/hook', strict), /https/);
  await refusedWith(checkWebhookUrl('ftp://93.184.216.34/hook', insecure), /https/);
  await refusedWith(checkWebhookUrl('not a url', strict), /absolute/);
  await refusedWith(checkWebhookUrl('https://user:pw@93.184.216.34/hook', strict), /user name or password/);
  await refusedWith(checkWebhookUrl('https://user@93.184.216.34/hook', strict), /user name or password/);
  const base = 'https://93.184.216.34/';
  await checkWebhookUrl(base + 'a'.repeat(500 - base.length), strict);
  await refusedWith(checkWebhookUrl(base + 'a'.repeat(501 - base.length), strict), /500/);
});

test('IP literals outside public unicast are refused, IPv6 forms of an IPv4 address as that address or a range of their own', async () => {
  for (const host of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '[::1]',
    '[::]',
    '[fe80::1]',
    '[fc00::1]',
    '[ff02::1]',
    '[2001:db8::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:10.0.0.1]',
    '[::127.0.0.1]', // IPv4-compatible (::/96), which the URL writes as [::7f00:1]
    '[::7f00:1]',
    '[::10.0.0.1]',
    '[::a9fe:a9fe]', // 169.254.169.254
    '[64:ff9b::7f00:1]', // NAT64
    '[2002:7f00:1::]', // 6to4
    '[2001::1]', // Teredo
    '[::ffff:0:7f00:1]', // SIIT
    '2130706433', // 127.0.0.1 written as a number
  ]) {
    await refusedWith(checkWebhookUrl(`https://${host}/hook`, strict), /not a public internet address/);
  }
  await checkWebhookUrl('https://[2606:4700::1]/hook', strict);
  await checkWebhookUrl('https://[::ffff:93.184.216.34]/hook', strict);
});

test('a name is resolved and refused when any of its addresses is not public', async () => {
  await refusedWith(checkWebhookUrl('https://localhost/hook', strict), /loopback/);
  const resolvingTo = (addresses: string[]) => async () => addresses;
  await checkPublicHost('hooks.example.com', {
    allowInsecure: false,
    resolve: resolvingTo(['93.184.216.34']),
  });
  await refusedWith(
    checkPublicHost('hooks.example.com', {
      allowInsecure: false,
      resolve: resolvingTo(['93.184.216.34', '10.1.2.3']),
    }),
    /private/,
  );
  await refusedWith(
    checkPublicHost('hooks.example.com', {
      allowInsecure: false,
      resolve: resolvingTo(['::ffff:192.168.0.1']),
    }),
    /private/,
  );
  await refusedWith(
    checkPublicHost('hooks.example.com', { allowInsecure: false, resolve: resolvingTo([]) }),
    /no address/,
  );
  await refusedWith(
    checkPublicHost('nowhere.example', {
      allowInsecure: false,
      resolve: async () => {
        throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      },
    }),
    /cannot be resolved/,
  );
});

test('the insecure setting allows http and loopback receivers, nothing else private', async () => {
  await checkWebhookUrl('http://127.0.0.1:4000/hook', insecure);
  await checkWebhookUrl('http://localhost:4000/hook', insecure);
  await checkWebhookUrl('https://[::1]/hook', insecure);
  await refusedWith(checkWebhookUrl('http://10.0.0.1/hook', insecure), /private/);
  await refusedWith(checkWebhookUrl('http://169.254.169.254/hook', insecure), /linkLocal/);
});

test('an event selection names known types and groups; a restaurant’s own none of app.*', () => {
  assert.deepEqual([...eventGroups].sort(), [
    '*',
    'app.*',
    'menu.*',
    'menu.category.*',
    'menu.option.*',
    'menu.option_group.*',
    'menu.product.*',
    'order.*',
    'reservation.*',
    'store.*',
  ]);
  assert.deepEqual(checkEventSelection(['order.*', 'order.*', 'menu.synced', 'app.connected'], 'app'), [
    'order.*',
    'menu.synced',
    'app.connected',
  ]);
  assert.deepEqual(checkEventSelection(['*'], 'restaurant'), ['*']);
  const refusal = (events: string[], owner: 'app' | 'restaurant') => {
    try {
      checkEventSelection(events, owner);
    } catch (error) {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'invalid_request');
      return error.param;
    }
    return 'accepted';
  };
  assert.equal(refusal([], 'app'), 'events');
  assert.equal(refusal(['order.*', 'order.shipped'], 'app'), 'events[1]');
  assert.equal(refusal(['orders.*'], 'app'), 'events[0]');
  assert.equal(refusal(['order.'], 'app'), 'events[0]');
  assert.equal(refusal(['order.created', 'app.*'], 'restaurant'), 'events[1]');
  assert.equal(refusal(['app.disconnected'], 'restaurant'), 'events[0]');
});
