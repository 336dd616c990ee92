/**
 * The MQTT bridge: every topic's state on the broker, writes from it through the core's
 * write path (audited `via: "mqtt"`), and Home Assistant MQTT discovery.
 */
import { definePlugin } from '@heliograph/plugins-sdk';
import { MqttBridge } from './bridge.js';
import { configSchema } from './config.js';

export { configSchema };

export default definePlugin({
  id: 'mqtt',
  configSchema,
  setup(ctx, config) {
    const bridge = new MqttBridge(ctx, config);
    return () => {
      bridge.stop().catch((err: Error) => ctx.log.warn(`MQTT disconnect: ${err.message}`));
    };
  },
});
