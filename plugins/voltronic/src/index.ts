/**
 * Placeholder until the voltronic driver is written (issue 12): this package holds the device's
 * emulator (src/emulator/, run by `heliograph emulate voltronic`). The driver replaces this file.
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';

export default definePlugin({
  id: 'voltronic',
  configSchema: z.object({}),
  setup() {
    throw new Error('the voltronic driver is not implemented yet: only its emulator is (heliograph emulate voltronic)');
  },
});
