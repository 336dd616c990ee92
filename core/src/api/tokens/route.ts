import { formatZodIssue } from '@heliograph/plugins-sdk';
import Router from '../router.js';
import { z } from 'zod';
import { AuthInputError, tokenNameSchema, type AuthService } from '../../auth/service.js';
import { scopeSchema } from '../../auth/scopes.js';
import { scope } from '../auth.js';
import { parseRfc3339 } from '../../rfc3339.js';
import { ApiError } from '../errors.js';
import type { RecordChange } from '../change-audit.js';
import { NO_QUERY, parseQuery } from '../query.js';

const BODY_SHAPE =
  'the body must be a JSON object: {"name": "...", "expires_at"?: RFC 3339 time, "scope"?: "read" | "write" | "admin", "idle_expiry"?: true | false}';
const EXPIRES_AT_ERROR = 'expires_at must be an RFC 3339 time such as "2030-01-31T12:00:00Z", or null';

// Strict, so a misspelt "expires_at" cannot silently create a token that never expires.
export const createTokenBody = z.strictObject(
  {
    name: tokenNameSchema,
    // Read by the parser every other endpoint uses, so "RFC 3339" means the same everywhere.
    expires_at: z
      .string({ error: EXPIRES_AT_ERROR })
      .nullish()
      .transform((text, ctx) => {
        if (text == null) return null;
        const ms = parseRfc3339(text);
        if (ms === undefined) {
          ctx.addIssue({ code: 'custom', message: EXPIRES_AT_ERROR });
          return z.NEVER;
        }
        return ms;
      }),
    scope: scopeSchema.optional(),
    /** Expires after auth.idleTokenDays unused (a sign-in's token), and is then deleted. */
    idle_expiry: z.boolean({ error: 'idle_expiry must be true or false' }).optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}: only name, expires_at, scope and idle_expiry are accepted`
        : BODY_SHAPE,
  },
);

/**
 * All need scope admin. POST /api/v1/tokens (the secret is shown once; `scope` defaults to write), GET /api/v1/tokens (never the secrets),
 * DELETE /api/v1/tokens/:id (the token stops working from the next request).
 */
export function tokensRoutes(deps: { auth: AuthService; record?: RecordChange }): Router {
  const { auth } = deps;
  // Created and revoked tokens are audited as tokens/<name> (the secret never is).
  const record: RecordChange = deps.record ?? (async () => {});
  const router = new Router();

  // The answer holds the secret: no cache (browser, proxy) may keep it.
  router.post('/tokens', scope('admin'), async (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    ctx.set('Cache-Control', 'no-store');
    const parsed = createTokenBody.safeParse(ctx.request.body);
    if (!parsed.success) throw new ApiError('BODY_INVALID', formatZodIssue(parsed.error.issues[0]!));
    const { name, expires_at, scope: tokenScope, idle_expiry } = parsed.data;
    let created;
    try {
      created = await auth.createToken({ name, expiresAt: expires_at, scope: tokenScope, idleExpiry: idle_expiry });
    } catch (err) {
      if (err instanceof AuthInputError)
        throw new ApiError(err.reason === 'conflict' ? 'TOKEN_NAME_TAKEN' : 'BODY_INVALID', err.message);
      throw err;
    }
    await record({
      who: ctx.state.who,
      topic: `tokens/${created.name}`,
      oldValue: '',
      newValue: created.expires_at ? `created, expires ${created.expires_at}` : 'created',
    });
    ctx.body = created;
    ctx.status = 201;
  });

  router.get('/tokens', scope('admin'), async (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    ctx.body = await auth.listTokens();
  });

  router.delete('/tokens/:id', scope('admin'), async (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    const id = ctx.params.id!;
    const name = (await auth.listTokens()).find((t) => t.id === id)?.name;
    if (!(await auth.revokeToken(id)))
      throw new ApiError('TOKEN_NOT_FOUND', `no token with id "${id}": GET /api/v1/tokens lists the tokens`);
    await record({ who: ctx.state.who, topic: `tokens/${name ?? id}`, oldValue: 'active', newValue: 'revoked' });
    ctx.status = 204;
  });

  return router;
}
