/*
 * ocpp-rpc for OCPP 1.6J, the one version the plugin speaks. On its first load ocpp-rpc builds
 * a JSON-schema validator for every OCPP version it knows (lib/standard-validators.js: 1.6,
 * 2.0.1 and 2.1, 1.6 MB of schemas in three ajv instances): about 220 ms of CPU on every start
 * of the service, in which it answers nobody, and the schemas' memory for good. So that list is
 * put in Node's module cache first, holding 1.6's validator alone, made by ocpp-rpc's own
 * createValidator from its own 1.6 schema when the first message is checked (ajv and its
 * meta-schema then, not at start): strict mode checks every 1.6 message as before, and a
 * charge point offering only 2.0.1 is refused at the handshake as it already was
 * (central-system.ts requires ocpp1.6). Everything in the plugin imports ocpp-rpc from here
 * (ocpp-rpc 2.2: the files below are its lib/, which its package.json leaves open).
 */
import Module, { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const VALIDATORS = require.resolve('ocpp-rpc/lib/standard-validators.js');

/** ocpp-rpc's validator (lib/validator.js): the subprotocol it checks, and the check, which throws an RPC error. */
interface Validator {
  readonly subprotocol: string;
  validate(schemaId: string, params: unknown): boolean;
}

function ocpp16Validator(): Validator {
  let made: Validator | undefined;
  return {
    subprotocol: 'ocpp1.6',
    validate(schemaId, params) {
      made ??= (
        require('ocpp-rpc/lib/validator.js') as { createValidator(protocol: string, schemas: unknown): Validator }
      ).createValidator('ocpp1.6', require('ocpp-rpc/lib/schemas/ocpp1_6.json'));
      return made.validate(schemaId, params);
    },
  };
}

if (!(VALIDATORS in require.cache)) {
  const list = new Module(VALIDATORS);
  list.filename = VALIDATORS;
  list.exports = [ocpp16Validator()];
  list.loaded = true;
  require.cache[VALIDATORS] = list;
}

// The classes from their own files: the package's index.js would load lib/validator.js (ajv
// and its formats) at once for its createValidator export, which the plugin does not use.
export const RPCServer = require('ocpp-rpc/lib/server.js') as typeof import('ocpp-rpc').RPCServer;
export const RPCClient = require('ocpp-rpc/lib/client.js') as typeof import('ocpp-rpc').RPCClient;
export const { createRPCError } = require('ocpp-rpc/lib/util.js') as Pick<typeof import('ocpp-rpc'), 'createRPCError'>;
export type RPCClient = import('ocpp-rpc').RPCClient;
export type RPCServer = import('ocpp-rpc').RPCServer;
