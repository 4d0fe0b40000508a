import type { IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest, FastifySchema, RawServerDefault, RouteGenericInterface } from 'fastify';

/*
 * What every JSON surface's routes share (api-v1, console, dashboard): a route is data (method,
 * url, auth, TypeBox schema) and a thin handler taking a ctx and the request, typed from its
 * schema, so no handler casts its body, query or params.
 */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The request as the route's TypeBox schema types it. */
export type TypedRequest<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  IncomingMessage,
  S,
  TypeBoxTypeProvider
>;
