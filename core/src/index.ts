export { startHeliograph, type Heliograph, type ServerOptions } from './server.js';
