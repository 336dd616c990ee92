/**
 * Placeholder until the pylontech driver is written (issue 12): this package holds the device's
 * emulator (src/emulator/, run by `heliograph emulate pylontech`). The driver replaces this file.
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';

export default definePlugin({
  id: 'pylontech',
  configSchema: z.object({}),
  setup() {
    throw new Error('the pylontech driver is not implemented yet: only its emulator is (heliograph emulate pylontech)');
  },
});
