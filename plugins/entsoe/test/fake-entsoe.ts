/*
 * A fake ENTSO-E Transparency Platform answering GET /api?securityToken=&documentType=A44&
 * in_Domain=&out_Domain=&periodStart=&periodEnd= in the real XML: a Publication_MarketDocument
 * with one TimeSeries per market day and resolution (curve type A03, repeated prices left
 * out), or an Acknowledgement_MarketDocument with reason 999 when nothing is published.
 */
import { DateTime } from 'luxon';
import { type FakeServer, send, startFakeServer } from '@heliograph/plugins-sdk/fake-server';

export type Resolution = 'PT15M' | 'PT30M' | 'PT60M';
const minutes: Record<Resolution, number> = { PT15M: 15, PT30M: 30, PT60M: 60 };

export interface EntsoeMarket {
  token: string;
  area: string;
  /** EUR/MWh of the slot starting at `start` for a series of `resolution`. */
  price(start: number, resolution: Resolution): number;
  /** Series published per market day, in document order. */
  resolutions: Resolution[];
  /** The last market (CET) day with published prices. */
  publishedThrough: string;
  /** Leave out points whose price repeats the one before (curve type A03). */
  compress: boolean;
  /** Send "no matching data" with HTTP 400 instead of 200. */
  noDataStatus?: number;
  failure?: { status: number; contentType: string; body: string };
  corrupt?: 'wrong-type' | 'broken-xml';
}

export interface FakeEntsoe extends FakeServer {
  market: EntsoeMarket;
}

const stampPattern = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)$/;
const parseStamp = (stamp: string) => {
  const m = stampPattern.exec(stamp);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5])) : NaN;
};
const isoMinute = (ms: number) => new Date(ms).toISOString().slice(0, 16) + 'Z';

function acknowledgement(text: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Acknowledgement_MarketDocument xmlns="urn:iec62325.351:tc57wg16:451-1:acknowledgementdocument:7:0">
\t<mRID>a1b2c3d4-5e6f-4</mRID>
\t<createdDateTime>2026-11-20T12:00:00Z</createdDateTime>
\t<sender_MarketParticipant.mRID codingScheme="A01">10X1001A1001A450</sender_MarketParticipant.mRID>
\t<sender_MarketParticipant.marketRole.type>A32</sender_MarketParticipant.marketRole.type>
\t<receiver_MarketParticipant.mRID codingScheme="A01">10X1001A1001A450</receiver_MarketParticipant.mRID>
\t<receiver_MarketParticipant.marketRole.type>A39</receiver_MarketParticipant.marketRole.type>
\t<received_MarketDocument.createdDateTime>2026-11-20T12:00:00Z</received_MarketDocument.createdDateTime>
\t<Reason>
\t\t<code>999</code>
\t\t<text>${text}</text>
\t</Reason>
</Acknowledgement_MarketDocument>`;
}

function timeSeries(m: EntsoeMarket, day: DateTime, resolution: Resolution, index: number, sequence: number): string {
  const start = day.toMillis();
  const end = day.plus({ days: 1 }).toMillis();
  const step = minutes[resolution] * 60_000;
  const points: string[] = [];
  let last: number | undefined;
  for (let position = 1; start + (position - 1) * step < end; position++) {
    const price = m.price(start + (position - 1) * step, resolution);
    if (m.compress && price === last) continue;
    last = price;
    const amount = m.corrupt === 'wrong-type' && index === 0 && points.length === 3 ? 'n/a' : String(price);
    points.push(
      `\t\t\t<Point>\n\t\t\t\t<position>${position}</position>\n\t\t\t\t<price.amount>${amount}</price.amount>\n\t\t\t</Point>`,
    );
  }
  return `\t<TimeSeries>
\t\t<mRID>${index + 1}</mRID>
\t\t<auction.type>A01</auction.type>
\t\t<businessType>A62</businessType>
\t\t<in_Domain.mRID codingScheme="A01">${m.area}</in_Domain.mRID>
\t\t<out_Domain.mRID codingScheme="A01">${m.area}</out_Domain.mRID>
\t\t<contract_MarketAgreement.type>A01</contract_MarketAgreement.type>
\t\t<currency_Unit.name>EUR</currency_Unit.name>
\t\t<price_Measure_Unit.name>MWH</price_Measure_Unit.name>
\t\t<classificationSequence_AttributeInstanceComponent.position>${sequence}</classificationSequence_AttributeInstanceComponent.position>
\t\t<curveType>A03</curveType>
\t\t<Period>
\t\t\t<timeInterval>
\t\t\t\t<start>${isoMinute(start)}</start>
\t\t\t\t<end>${isoMinute(end)}</end>
\t\t\t</timeInterval>
\t\t\t<resolution>${resolution}</resolution>
${points.join('\n')}
\t\t</Period>
\t</TimeSeries>`;
}

export async function startFakeEntsoe(market: EntsoeMarket): Promise<FakeEntsoe> {
  const fake = { market } as FakeEntsoe;
  const server = await startFakeServer({
    handle: (req, res) => {
      const m = fake.market;
      if (req.method !== 'GET' || req.path !== '/api')
        return send(res, 404, 'text/html', '<html><body><h1>404 Not Found</h1></body></html>');
      if (req.query.get('securityToken') !== m.token)
        return send(res, 401, 'text/html', '<html><body><h1>Unauthorized</h1></body></html>');
      if (m.failure) return send(res, m.failure.status, m.failure.contentType, m.failure.body);
      const from = parseStamp(req.query.get('periodStart') ?? '');
      const to = parseStamp(req.query.get('periodEnd') ?? '');
      const area = req.query.get('in_Domain');
      if (
        req.query.get('documentType') !== 'A44' ||
        area !== req.query.get('out_Domain') ||
        Number.isNaN(from) ||
        !(to > from)
      ) {
        return send(
          res,
          400,
          'application/xml',
          acknowledgement(
            'The request is not valid: check documentType, in_Domain, out_Domain, periodStart and periodEnd.',
          ),
        );
      }
      const interval = `${new Date(from).toISOString()}/${new Date(to).toISOString()}`;
      const noData = () =>
        send(
          res,
          m.noDataStatus ?? 200,
          'application/xml',
          acknowledgement(
            `No matching data found for Data item Day-ahead Prices [12.1.D] (${area}, ${area}) and interval ${interval}.`,
          ),
        );
      if (area !== m.area) return noData();

      // Market days are CET days; every published one that overlaps the asked interval is sent.
      const days: DateTime[] = [];
      for (
        let day = DateTime.fromMillis(from, { zone: 'Europe/Berlin' }).startOf('day');
        day.toMillis() < to;
        day = day.plus({ days: 1 })
      ) {
        if ((day.toISODate() ?? '') <= m.publishedThrough) days.push(day);
      }
      if (days.length === 0) return noData();
      const series = days.flatMap((day) =>
        m.resolutions.map((resolution, i) => ({ day, resolution, sequence: i + 1 })),
      );
      let document = `<?xml version="1.0" encoding="utf-8"?>
  <Publication_MarketDocument xmlns="urn:iec62325.351:tc57wg16:451-3:publicationdocument:7:3">
  \t<mRID>9c2a1f0e7d6b4a3c</mRID>
  \t<revisionNumber>1</revisionNumber>
  \t<type>A44</type>
  \t<sender_MarketParticipant.mRID codingScheme="A01">10X1001A1001A450</sender_MarketParticipant.mRID>
  \t<sender_MarketParticipant.marketRole.type>A32</sender_MarketParticipant.marketRole.type>
  \t<receiver_MarketParticipant.mRID codingScheme="A01">10X1001A1001A450</receiver_MarketParticipant.mRID>
  \t<receiver_MarketParticipant.marketRole.type>A33</receiver_MarketParticipant.marketRole.type>
  \t<createdDateTime>2026-11-20T12:00:00Z</createdDateTime>
  \t<period.timeInterval>
  \t\t<start>${isoMinute(days[0]!.toMillis())}</start>
  \t\t<end>${isoMinute(days.at(-1)!.plus({ days: 1 }).toMillis())}</end>
  \t</period.timeInterval>
  ${series.map((s, i) => timeSeries(m, s.day, s.resolution, i, s.sequence)).join('\n')}
  </Publication_MarketDocument>`;
      if (m.corrupt === 'broken-xml') document = document.slice(0, document.length / 2);
      send(res, 200, 'application/xml', document);
    },
  });
  return Object.assign(fake, server);
}
