/*
 * Choosing a register map by the model a device reports: a family of devices shares an
 * identification register (Deye's device type in register 0, SunSpec's model id) but not
 * the rest of its map. A driver lists the models it knows; a code it does not know is
 * refused rather than read or written with the wrong map.
 */
import { ConfigError } from '../errors.js';

/**
 * One model of a family: the identification codes that mean it, its name, and what the
 * driver uses for it (a register map, or a function that builds one).
 *
 * @example
 * { codes: [0x0005, 0x0500], label: 'Three-phase hybrid (LV)', value: threePhaseLv }
 */
export interface ModelChoice<T> {
  codes: readonly number[];
  label: string;
  value: T;
}

/**
 * The model `code` identifies. Throws ConfigError naming the code and the known models when
 * the driver does not know it, so the instance stops instead of reading or writing blindly.
 *
 * @example
 * const model = chooseModel(DEYE_MODELS, Number(identity.device_type), 'register 0 (device type)');
 */
export function chooseModel<T>(models: readonly ModelChoice<T>[], code: number, where: string): ModelChoice<T> {
  const found = models.find((model) => model.codes.includes(code));
  if (found) return found;
  const known = models.map((m) => `${m.codes.map(hex).join('/')} ${m.label}`).join(', ');
  throw new ConfigError(
    `unknown model code ${hex(code)} in ${where}: this driver knows ${known}; it does not read or write a model it does not know`,
  );
}

/** `0x0005`. */
function hex(code: number): string {
  return `0x${code.toString(16).padStart(4, '0')}`;
}
