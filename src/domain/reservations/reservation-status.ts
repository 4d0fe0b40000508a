import type { Transitions } from '../shared/state-machine.ts';

export const reservationStatuses = [
  'pending',
  'confirmed',
  'declined',
  'seated',
  'done',
  'cancelled',
  'no_show',
] as const;
export type ReservationStatus = (typeof reservationStatuses)[number];

/** A reservation's moves (decisions.md, Reservations); declined, done, cancelled and no_show are final. */
export const reservationTransitions: Transitions<ReservationStatus> = {
  pending: ['confirmed', 'declined', 'cancelled'],
  confirmed: ['seated', 'cancelled', 'no_show'],
  seated: ['done'],
  declined: [],
  done: [],
  cancelled: [],
  no_show: [],
};
