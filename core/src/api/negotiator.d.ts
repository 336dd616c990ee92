// negotiator 1.x, as koa-compress uses it: @types/negotiator describes 0.6, without the
// `preferred` option that breaks ties between equally accepted encodings.
declare module 'negotiator' {
  export default class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    /** The best of `available` by the request's Accept-Encoding ('identity' when none is accepted). */
    encoding(available?: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
}
