import { parseAnswer, parseJson, type PriceSlot } from '@heliograph/plugins-sdk';
import { z } from 'zod';

const answer = { source: 'Tibber answer', meanwhile: 'the last published prices stay' };

export type TibberResolution = 'QUARTER_HOURLY' | 'HOURLY';

const resolutionMs: Record<TibberResolution, number> = { QUARTER_HOURLY: 900_000, HOURLY: 3_600_000 };

/** The GraphQL query of Tibber's API for a home's price info, asking for the configured resolution. */
export function priceQuery(resolution: TibberResolution): string {
  return `{ viewer { homes { id currentSubscription { priceInfo(resolution: ${resolution}) {
  current { total energy tax startsAt currency level }
  today { total energy tax startsAt level } tomorrow { total energy tax startsAt level } } } } } }`;
}

const priceSchema = z.object({
  total: z.number(),
  energy: z.number().nullish(),
  tax: z.number().nullish(),
  startsAt: z.iso.datetime({ offset: true }),
  level: z.string().nullish(),
});

const graphqlErrorsSchema = z.array(z.object({ message: z.string() })).min(1);

const answerSchema = z.object({
  data: z.object({
    viewer: z.object({
      homes: z.array(
        z.object({
          id: z.string(),
          currentSubscription: z
            .object({
              priceInfo: z
                .object({
                  current: priceSchema.extend({ currency: z.string() }).nullable(),
                  today: z.array(priceSchema),
                  tomorrow: z.array(priceSchema),
                })
                .nullable(),
            })
            .nullable(),
        }),
      ),
    }),
  }),
});

export interface TibberPrices {
  homeId: string;
  /** Currency of the prices, when Tibber said (it does with `current`). */
  currency: string | undefined;
  /** Tibber's today and tomorrow of the home, oldest first. */
  slots: PriceSlot[];
}

/** GraphQL error messages in an answer body, if it carries any. */
export function graphqlErrors(body: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const errors = graphqlErrorsSchema.safeParse((json as { errors?: unknown } | null)?.errors);
  return errors.success ? errors.data.map((e) => e.message).join('; ') : undefined;
}

/**
 * The Tibber answer's prices for one home (`homeId`, or the first home with prices), `total`
 * per kWh as slots. Tibber gives only start times: the slot length is the spacing of
 * consecutive `startsAt`, or the asked resolution when there is a single price.
 */
export function parsePriceInfo(body: string, resolution: TibberResolution, homeId?: string): TibberPrices {
  const json = parseJson({ ...answer, text: body });
  const errors = graphqlErrors(body);
  if (errors) {
    const auth = /token|unauthenticated|unauthori[sz]ed/i.test(errors)
      ? ' Check the access token in the plugin settings.'
      : '';
    throw new Error(`Tibber answered with an error: "${errors}".${auth} The last published prices stay.`);
  }
  const { homes } = parseAnswer({ ...answer, schema: answerSchema, input: json }).data.viewer;
  const home = homeId ? homes.find((h) => h.id === homeId) : homes.find((h) => h.currentSubscription?.priceInfo);
  if (!home) {
    throw new Error(
      homeId
        ? `Tibber account has no home with id ${homeId}; its homes are: ${homes.map((h) => h.id).join(', ') || 'none'}. Fix homeId in the plugin settings.`
        : 'no home of this Tibber account has an active subscription with prices yet',
    );
  }
  const info = home.currentSubscription?.priceInfo;
  if (!info) throw new Error(`Tibber home ${home.id} has no active subscription with prices yet`);

  const prices = [...info.today, ...info.tomorrow]
    .map((p) => ({ start: Date.parse(p.startsAt), price: p.total }))
    .sort((a, b) => a.start - b.start);
  const spacing = prices
    .slice(1)
    .map((p, i) => p.start - prices[i]!.start)
    .filter((gap) => gap > 0);
  const slotMs = spacing.length > 0 ? Math.min(...spacing) : resolutionMs[resolution];
  const slots = prices.map(({ start, price }) => ({ start, end: start + slotMs, price }));
  return { homeId: home.id, currency: info.current?.currency, slots };
}
