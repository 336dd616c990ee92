import Router from '../router.js';
import { z } from 'zod';
import { passwordProblem, PASSWORD_USER, type AuthService } from '../../auth/service.js';
import { authError } from '../auth.js';
import type { SetupCode } from '../../auth/setup-code.js';
import type { Clock } from '../../clock.js';
import { jsonBody } from '../body.js';
import type { RecordChange } from '../change-audit.js';
import { ApiError } from '../errors.js';
import { parseBody, ValidationError } from '../../contract/field-issues.js';

export const setupBody = z.strictObject(
  {
    code: z.string({
      error: 'is required: the setup code the service printed in its log at start ("setup code: XXXX-XXXX")',
    }),
    password: z.string({ error: 'is required: the new password for this device' }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? undefined
        : 'the body must be a JSON object: {"code": "XXXX-XXXX", "password": "..."}',
  },
);

const WRONG_CODE =
  'wrong setup code: use the one in the service\'s log from its latest start (a line "setup code: XXXX-XXXX"); a new code is printed at every start until a password is set';
const ALREADY_SET =
  'a password is already set: sign in with it (the setup code only works before the first password is set)';

/**
 * First run, before any password exists (public routes: there is nothing to sign in with yet).
 * GET /api/v1/setup: `{"needs_setup": true|false}`.
 * POST /api/v1/setup `{"code", "password"}`: sets the first password, guarded by the setup
 * code from the log, and answers 201 with a token for the settings page, so the browser
 * never has to keep the password.
 */
export function setupRoutes(deps: {
  auth: AuthService;
  setupCode: SetupCode;
  clock: Clock;
  realm: string;
  record?: RecordChange;
}): Router {
  const { auth, setupCode, clock } = deps;
  const record: RecordChange = deps.record ?? (async () => {});
  const router = new Router({ prefix: '/api/v1' });
  // One at a time, so two browsers racing with the right code cannot both set a password.
  let busy: Promise<unknown> = Promise.resolve();

  router.get('/setup', async (ctx) => {
    ctx.body = { needs_setup: !(await auth.hasPassword()) };
  });

  router.post('/setup', jsonBody({ limitBytes: 8 * 1024 }), async (ctx) => {
    const { code, password } = parseBody(setupBody, ctx.request.body);
    const run = busy.then(async () => {
      if (await auth.hasPassword()) throw new ApiError('SETUP_DONE', ALREADY_SET);
      const checked = await auth.checkOtherSecret(ctx.ip, () => setupCode.matches(code), WRONG_CODE);
      if (!checked.ok) {
        const error = authError(checked, deps.realm);
        // A wrong code is no missing credential: no WWW-Authenticate challenge.
        throw checked.status === 401
          ? new ApiError('SETUP_CODE_WRONG', error.message)
          : new ApiError(error.code, error.message, checked.status === 429 ? error.headers : {}, error.status);
      }
      const problem = passwordProblem(password);
      if (problem) throw new ValidationError(`password: ${problem}`, [{ path: ['password'], message: problem }]);
      await auth.setPassword(password);
      setupCode.consume();
      const when = new Date(clock.now()).toISOString().slice(0, 19).replace('T', ' ');
      const token = await auth.createToken({ name: `Settings page ${when} UTC`, scope: 'admin', idleExpiry: true });
      await record({ who: PASSWORD_USER, topic: 'auth/password', oldValue: '', newValue: '***' });
      await record({ who: PASSWORD_USER, topic: `tokens/${token.name}`, oldValue: '', newValue: 'created' });
      return token;
    });
    busy = run.catch(() => undefined);
    ctx.body = await run;
    ctx.status = 201;
  });

  return router;
}
