import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Type from 'typebox';
import { orderTransitions } from '../../src/domain/orders/order-status.ts';
import { reservationTransitions } from '../../src/domain/reservations/reservation-status.ts';
import { assertTransition, type Transitions } from '../../src/domain/shared/state-machine.ts';
import { apiRoute } from '../../src/http/api-v1/api-route.ts';
import { errorResponses } from '../../src/http/api-v1/error-responses.ts';
import { bearer, buildTestApp, makeTenant, type Tenant, type TestApp } from '../harness.ts';

/*
 * The state-machine helper with the transition tables of orders and reservations, through an
 * operation that exists only in this test (as the conventions test does): every pair of statuses
 * is a move the table allows (200) or a 409 invalid_transition naming the statuses possible now.
 */
const tables: Record<string, Transitions<string>> = {
  order: orderTransitions,
  reservation: reservationTransitions,
};
const moveRoute = apiRoute({
  method: 'POST',
  url: '/test/moves',
  auth: { scopes: [] },
  schema: {
    operationId: 'testMove',
    summary: 'a move of a status',
    tags: ['Test'],
    body: Type.Object(
      {
        what: Type.Union([Type.Literal('order'), Type.Literal('reservation')]),
        from: Type.String(),
        to: Type.String(),
      },
      { additionalProperties: false },
    ),
    response: {
      200: Type.Object({ status: Type.String() }, { additionalProperties: false }),
      ...errorResponses(400, 401, 409, 500),
    },
  },
  handler: async (_ctx, request) => {
    const { what, from, to } = request.body;
    assertTransition(tables[what] as Transitions<string>, what, from, to);
    return { status: to };
  },
});

let t: TestApp;
let tenant: Tenant;
before(async () => {
  t = await buildTestApp({ extraApiRoutes: [moveRoute] });
  tenant = await makeTenant(t.ctx);
});
after(() => t.close());

const move = (what: string, from: string, to: string) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/test/moves',
    headers: { ...bearer(tenant.token), 'content-type': 'application/json' },
    payload: { what, from, to },
  });

test('reservations move as decisions.md lists, and nowhere else', async () => {
  const allowed = [
    'pending→confirmed',
    'pending→declined',
    'pending→cancelled',
    'confirmed→seated',
    'confirmed→cancelled',
    'confirmed→no_show',
    'seated→done',
  ];
  const statuses = Object.keys(reservationTransitions);
  for (const from of statuses)
    for (const to of statuses) {
      const response = await move('reservation', from, to);
      assert.equal(response.statusCode, allowed.includes(`${from}→${to}`) ? 200 : 409, `${from}→${to}`);
    }
});

test('orders move forward only, cancel from any status but a final one', async () => {
  const order = ['pending', 'confirmed', 'preparing', 'ready', 'completed'];
  for (const [i, from] of order.entries())
    for (const [j, to] of order.entries())
      assert.equal((await move('order', from, to)).statusCode, j > i ? 200 : 409, `${from}→${to}`);
  for (const from of order.slice(0, 4))
    assert.equal((await move('order', from, 'cancelled')).statusCode, 200);
  for (const to of [...order, 'cancelled']) {
    assert.equal((await move('order', 'completed', to)).statusCode, 409);
    assert.equal((await move('order', 'cancelled', to)).statusCode, 409);
  }
});

test('a refused move is 409 invalid_transition naming the statuses possible now', async () => {
  const response = await move('reservation', 'pending', 'seated');
  assert.equal(response.statusCode, 409);
  const { error } = response.json();
  assert.equal(error.code, 'invalid_transition');
  assert.match(error.message, /pending: it can become confirmed, declined, cancelled, not seated/);
  const final = (await move('reservation', 'done', 'seated')).json().error;
  assert.equal(final.code, 'invalid_transition');
  assert.match(final.message, /done, a final status/);
});
