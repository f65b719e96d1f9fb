#!/usr/bin/env python3
"""Fake Yelp Fusion and Google Places (New) on 127.0.0.1 for the lookup demo.

Usage: fake_upstreams.py PORT. Counts calls per provider at GET /__calls.
Answers are real-shaped (the documented JSON of each API) and scripted by the query text:
  "Maya Bar & Grill"   Yelp knows it well (cheap accept).
  "Aurora Sauna Club"  Yelp returns a different business far away; Google knows it (costly fallback).
  "Polaris Sky Lounge" Yelp returns a similar but doubtful candidate; Google knows it (budget-exhausted run).
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

CALLS = {"yelp": 0, "google": 0}
LOCK = threading.Lock()

YELP = {
    "maya": {"id": "maya-bar-and-grill-helsinki", "alias": "maya-bar-and-grill-helsinki", "name": "Maya Bar & Grill",
             "coordinates": {"latitude": 60.17212, "longitude": 24.94505},
             "location": {"address1": "Annankatu 1", "city": "Helsinki", "zip_code": "00120", "country": "FI",
                          "display_address": ["Annankatu 1", "00120 Helsinki", "Finland"]},
             "phone": "+358912345678", "display_phone": "+358 9 1234 5678", "rating": 4.5, "review_count": 120,
             "categories": [{"alias": "bars", "title": "Bars"}], "url": "https://www.yelp.com/biz/maya",
             "is_closed": False,
             "hours": [{"hours_type": "REGULAR", "is_open_now": True,
                        "open": [{"day": d, "start": "1600", "end": "0200", "is_overnight": True} for d in range(7)]}]},
    "polaris": {"id": "polaris-lounge-helsinki", "alias": "polaris-lounge-helsinki", "name": "Polaris Lounge",
                "coordinates": {"latitude": 60.16995, "longitude": 24.93870},
                "location": {"address1": "Mannerheimintie 1", "city": "Helsinki", "zip_code": "00100", "country": "FI",
                             "display_address": ["Mannerheimintie 1", "00100 Helsinki", "Finland"]},
                "categories": [{"alias": "lounges", "title": "Lounges"}], "is_closed": False},
    "poor": {"id": "aurora-hair-studio-espoo", "alias": "aurora-hair-studio-espoo", "name": "Aurora Hair Studio",
             "coordinates": {"latitude": 60.2055, "longitude": 24.6559},
             "location": {"address1": "Tapiontori 3", "city": "Espoo", "zip_code": "02100", "country": "FI",
                          "display_address": ["Tapiontori 3", "02100 Espoo", "Finland"]},
             "phone": "+358987654321", "categories": [{"alias": "hair", "title": "Hair Salons"}], "is_closed": False},
}

GOOGLE = {
    "aurora": {"id": "ChIJaurora-sauna-club", "displayName": {"text": "Aurora Sauna Club", "languageCode": "en"},
               "location": {"latitude": 60.16652, "longitude": 24.95731},
               "formattedAddress": "Laivapoika 1, 00140 Helsinki, Finland",
               "nationalPhoneNumber": "09 555 0100", "internationalPhoneNumber": "+358 9 5550100",
               "websiteUri": "https://aurora-sauna.example", "types": ["spa", "point_of_interest"],
               "primaryType": "spa", "businessStatus": "OPERATIONAL", "rating": 4.6, "userRatingCount": 812,
               "utcOffsetMinutes": 120,
               "regularOpeningHours": {"periods": [{"open": {"day": d, "hour": 7, "minute": 0},
                                                    "close": {"day": d, "hour": 22, "minute": 0}} for d in range(7)],
                                       "weekdayDescriptions": ["Monday: 7:00 AM – 10:00 PM"]}},
    "polaris": {"id": "ChIJpolaris-sky-lounge", "displayName": {"text": "Polaris Sky Lounge", "languageCode": "en"},
                "location": {"latitude": 60.16990, "longitude": 24.93840},
                "formattedAddress": "Mannerheimintie 1, 00100 Helsinki, Finland",
                "internationalPhoneNumber": "+358 9 5550200", "types": ["bar"], "primaryType": "bar",
                "businessStatus": "OPERATIONAL"},
}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def count(self, provider):
        with LOCK:
            CALLS[provider] += 1

    def do_GET(self):
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/__calls":
            return self.reply(200, CALLS)
        if url.path.startswith("/v3/businesses/"):
            self.count("yelp")
            term = (query.get("term") or query.get("name") or "").lower()
            if "maya" in term:
                hits = [YELP["maya"]]
            elif "polaris" in term:
                hits = [YELP["polaris"]]
            elif "aurora" in term:
                hits = [YELP["poor"]]
            else:
                hits = []
            key = "businesses"
            return self.reply(200, {key: hits, "total": len(hits)})
        self.reply(404, {"error": {"code": "NOT_FOUND", "description": "no such path"}})

    def do_POST(self):
        url = urlparse(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if url.path.startswith("/v1/places:search"):
            self.count("google")
            if not self.headers.get("X-Goog-FieldMask"):
                return self.reply(400, {"error": {"code": 400, "message": "FieldMask is a required parameter",
                                                  "status": "INVALID_ARGUMENT"}})
            text = (body.get("textQuery") or "").lower()
            hits = [GOOGLE[k] for k in GOOGLE if k in text]
            return self.reply(200, {"places": hits})
        self.reply(404, {"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}})


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8765
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
