/**
 * The fields of a created token's answer (POST /api/v1/tokens, and POST /api/v1/setup's admin
 * token), sorted: the one answer that shows the secret (`token`).
 */
export const CREATED_TOKEN_FIELDS = ['created_at', 'expires_at', 'id', 'idle_expiry', 'name', 'scope', 'token'];
