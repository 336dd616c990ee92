/** The Deye models the emulator can be: each has its device type code and register layout. */
export const DEYE_EMULATOR_MODELS = ['single-phase', 'three-phase-lv', 'three-phase-hv'] as const;
export type DeyeEmulatorModel = (typeof DEYE_EMULATOR_MODELS)[number];
