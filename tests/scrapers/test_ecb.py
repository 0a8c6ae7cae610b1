"""ECB reference rates: parse the daily XML layout, refuse drifted layouts, fetch the right URL.

There is no capture of the ECB feed under ../shared, so the XML below is built here in the
documented shape of ``eurofxref-daily.xml`` (doc-shaped, not a recorded response): envelope,
outer Cube, one dated Cube, one Cube per currency. Rates are the ECB's published reference
rates for 2024-06-28 (USD 1.0705, GBP 0.84638, JPY 171.94), trimmed to three currencies.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import ecb, http
from scrapers.base import RawResponse, SchemaDriftError

DOC_SHAPED_DAILY = """<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"
    xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
  <Cube>
    <Cube time='2024-06-28'>
      <Cube currency='USD' rate='1.0705'/>
      <Cube currency='JPY' rate='171.94'/>
      <Cube currency='GBP' rate='0.84638'/>
    </Cube>
  </Cube>
</gesmes:Envelope>
"""


def _raw(text: str) -> RawResponse:
    return RawResponse(
        url=ecb.DAILY_URL,
        method="GET",
        status=200,
        content_type="text/xml",
        body=text.encode(),
        fetched_at=datetime(2024, 6, 28, 15, 0, tzinfo=UTC),
    )


def test_parse_reads_date_and_units_per_eur() -> None:
    rates = ecb.parse_rates(_raw(DOC_SHAPED_DAILY))

    assert rates.rate_date == date(2024, 6, 28)
    assert dict(rates.units_per_eur) == {
        "USD": Decimal("1.0705"),
        "JPY": Decimal("171.94"),
        "GBP": Decimal("0.84638"),
    }
    assert rates.source_url == ecb.DAILY_URL


def test_usd_per_uses_the_usd_rate_for_eur_and_the_cross_rate_otherwise() -> None:
    rates = ecb.parse_rates(_raw(DOC_SHAPED_DAILY))

    assert rates.usd_per("EUR") == Decimal("1.0705")
    assert rates.usd_per("usd") == Decimal(1)
    # 1 GBP = 1.0705 / 0.84638 USD
    assert rates.usd_per("GBP").quantize(Decimal("0.000001")) == Decimal("1.264798")
    with pytest.raises(KeyError, match="CHF"):
        rates.usd_per("CHF")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda x: x.replace(" time='2024-06-28'", ""), "time attribute"),
        (lambda x: x.replace("currency='USD'", "currency='XXX'"), "no USD rate"),
        (lambda x: x.replace("time='2024-06-28'", "time='28/06/2024'"), "bad Cube time"),
        (lambda x: x.replace("rate='0.84638'", "rate='n/a'"), "not a number"),
        (lambda x: x.replace("rate='171.94'", "rate='-1'"), "not positive"),
        (lambda x: x.replace("currency='JPY'", "currency='USD'"), "listed twice"),
        (lambda x: x.replace("currency='GBP' ", ""), "without an ISO code"),
        (
            lambda x: x.replace("</Cube>\n  </Cube>", "</Cube><Cube time='2024-06-27'/></Cube>"),
            "2 dated",
        ),
        (lambda x: x.replace("gesmes:Envelope", "gesmes:Letter"), "not gesmes:Envelope"),
        (lambda x: x.replace("eurofxref", "eurofxref-v2"), "time attribute"),
        (lambda x: x[:200], "not XML"),
        (lambda x: x.replace("?>", "?><!DOCTYPE x [<!ENTITY a 'b'>]>", 1), "DOCTYPE"),
    ],
)
def test_drifted_layouts_raise_schema_drift(mutate, message: str) -> None:
    with pytest.raises(SchemaDriftError, match=message):
        ecb.parse_rates(_raw(mutate(DOC_SHAPED_DAILY)))


def test_fetch_rates_gets_the_daily_xml_once() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text=DOC_SHAPED_DAILY, headers={"content-type": "text/xml"})

    with http.make_client(httpx.MockTransport(answer)) as client:
        rates = ecb.fetch_rates(client)

    assert [(r.method, str(r.url)) for r in seen] == [("GET", ecb.DAILY_URL)]
    assert "gpuprices" in seen[0].headers["user-agent"]
    assert rates.rate_date == date(2024, 6, 28)
    assert rates.usd_per("EUR") == Decimal("1.0705")
