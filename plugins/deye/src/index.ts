/**
 * Placeholder until the deye driver is written (issue 12): this package holds the device's
 * emulator (src/emulator/, run by `heliograph emulate deye`). The driver replaces this file.
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';

export default definePlugin({
  id: 'deye',
  configSchema: z.object({}),
  setup() {
    throw new Error('the deye driver is not implemented yet: only its emulator is (heliograph emulate deye)');
  },
});
