/**
 * Placeholder until the sunspec driver is written (issue 12): this package holds the device's
 * emulator (src/emulator/, run by `heliograph emulate sunspec`). The driver replaces this file.
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';

export default definePlugin({
  id: 'sunspec',
  configSchema: z.object({}),
  setup() {
    throw new Error('the sunspec driver is not implemented yet: only its emulator is (heliograph emulate sunspec)');
  },
});
