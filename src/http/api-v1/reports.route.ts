import Type from 'typebox';
import {
  GroupingSchema,
  maxReportDays,
  ProductReportSchema,
  SalesReportSchema,
} from '../../domain/reports/report.schema.ts';
import { productReport, salesReport } from '../../domain/reports/reports.service.ts';
import { LocalDate } from '../../domain/store/store.schema.ts';
import { apiRoute } from './api-route.ts';
import { errorResponses } from './error-responses.ts';

const tags = ['Reports'];
/** Every plan has reports (decisions.md "Reports"). */
const auth = { scopes: ['reports:read'] } as const;

const days = {
  from: { ...LocalDate, description: 'First day of the report, restaurant-local.', examples: ['2026-10-01'] },
  to: {
    ...LocalDate,
    description: `Last day of the report (inclusive), restaurant-local: not before \`from\`, at most ${maxReportDays} days in all.`,
    examples: ['2026-10-31'],
  },
};
const errors = errorResponses(400, 401, 403, 429, 500);

export const getSalesReport = apiRoute({
  method: 'GET',
  url: '/reports/sales',
  auth,
  schema: {
    operationId: 'getSalesReport',
    summary: 'Sales by day, week or month',
    description:
      'The orders placed from `from` to `to` (restaurant-local creation dates) that are not cancelled, ' +
      'added up per period and in all. Weeks start on Monday; days follow the restaurant’s clock across ' +
      'daylight-saving changes.',
    tags,
    querystring: Type.Object(
      {
        ...days,
        group_by: Type.Optional(
          Type.Union(GroupingSchema.anyOf, {
            default: 'day',
            description: 'The rows’ period: a day, a week from Monday, a month (default `day`).',
            examples: ['week'],
          }),
        ),
      },
      { additionalProperties: false },
    ),
    response: { 200: { ...SalesReportSchema, description: 'The sales report.' }, ...errors },
  },
  handler: (ctx, request) =>
    salesReport(ctx, {
      from: request.query.from,
      to: request.query.to,
      group_by: request.query.group_by ?? 'day',
    }),
});

export const getProductReport = apiRoute({
  method: 'GET',
  url: '/reports/products',
  auth,
  schema: {
    operationId: 'getProductReport',
    summary: 'Products sold',
    description:
      'Per product, what the orders placed from `from` to `to` (restaurant-local creation dates) that ' +
      'are not cancelled sold of it: quantity, gross (its lines’ totals) and orders; by gross descending.',
    tags,
    querystring: Type.Object(days, { additionalProperties: false }),
    response: { 200: { ...ProductReportSchema, description: 'The product report.' }, ...errors },
  },
  handler: (ctx, request) => productReport(ctx, { from: request.query.from, to: request.query.to }),
});

export const reportRoutes = [getSalesReport, getProductReport];
