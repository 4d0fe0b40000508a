/** Requests per connection per window (spec: Limits). */
export const connectionRateLimit = { limit: 120, windowSeconds: 60 } as const;
