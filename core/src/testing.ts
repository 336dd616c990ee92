/*
 * `@heliograph/core/testing`: the core's internals that the repository's cross-package tests
 * and benchmarks (test/) build on directly, by name, in one entry point. Not an API: a test
 * that needs more adds it here, so the core's package exports stay the short list that
 * docs/architecture.md ("The packages") gives and test/shape/exports.test.ts holds.
 */
export { createApp, listen } from './api/app.js';
export { historyRoutes } from './api/history/route.js';
export type { RouteInfo } from './api/routes.js';
export { attachWebsocket } from './api/websocket/index.js';
export { scopeAllows } from './auth/scopes.js';
export type { Authenticator } from './auth/types.js';
export { CLOCK } from './container/tokens.js';
export { ERROR_CODES, type ErrorCode } from './contract/error-codes.js';
export { migrate, openDatabase, type Db } from './db.js';
export { DbWriter } from './db-writer.js';
export { historyMigrations } from './history/migrations.js';
export { Recorder } from './history/recorder.js';
export { HistoryStore } from './history/store.js';
export { createBoundedHttp } from './plugins/context/bounded-got.js';
export type { InstanceStatus } from './plugins/host/host.js';
export { SystemInfo } from './system/info.js';
export { compileGlob } from './topics/glob.js';
export { TopicRegistry, type Tick, type TopicMeta, type TopicState } from './topics/registry.js';
export { AuditLog, auditMigrations } from './writes/audit.js';
export { WriteService } from './writes/service.js';
