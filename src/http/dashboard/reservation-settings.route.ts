import Type from 'typebox';
import {
  ReservationSettingsPatchSchema,
  ReservationSettingsSchema,
} from '../../domain/reservations/reservation-settings.schema.ts';
import {
  getReservationSettings,
  updateReservationSettings,
} from '../../domain/reservations/reservation-settings.service.ts';
import { ownersOnly, type SignedInRoute, signedInRoute } from '../shared/signed-in-route.ts';

const url = '/dashboard/api/restaurants/:restaurant_id/reservation-settings';
const params = Type.Object(
  { restaurant_id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
const noQuery = Type.Object({}, { additionalProperties: false });

/** A restaurant's booking settings, for its owners (anyone else: the restaurant is 404). */
export const reservationSettingsRoutes: readonly SignedInRoute[] = [
  signedInRoute({
    method: 'GET',
    url,
    auth: ownersOnly,
    schema: { params, querystring: noQuery, response: { 200: ReservationSettingsSchema } },
    handler: (ctx) => getReservationSettings(ctx),
  }),
  signedInRoute({
    method: 'PATCH',
    url,
    auth: ownersOnly,
    schema: {
      params,
      querystring: noQuery,
      body: ReservationSettingsPatchSchema,
      response: { 200: ReservationSettingsSchema },
    },
    handler: (ctx, request) => updateReservationSettings(ctx, request.body),
  }),
];
